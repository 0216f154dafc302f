//! PrepareQuery and ExecuteQuery (Bigtable's SQL) over the core's [`sparsetable::api::sql`]:
//! this module converts types, values and the result stream, and the core decides what a
//! query means.
//!
//! A prepared query travels back to the client as opaque bytes, which the client returns in
//! ExecuteQuery: [`PREPARED_MAGIC`] and then a [`PreparedToken`] message (the query text, its
//! parameter types, when it stops being valid and the result metadata it was prepared with),
//! so a prepared query survives a server restart and is prepared again against the table's
//! current schema when executed. A query may read a logical view of the instance (`FROM
//! view`, the core's rules): the views are those the instance has when the query is
//! prepared, and again when it is executed (a view whose query changed the result's columns
//! makes the token stale, as a schema change does). It may also read a continuous
//! materialized view by its id: those live on the instance's database (the one queries run
//! on), created there from the instance record, and the core's engine finds them.
//!
//! A prepared query expires, as Bigtable's do: PrepareQuery's `valid_until` is
//! [`PREPARED_VALID_MICROS`] after it was prepared (on the server's clock, so a test clock
//! moves it), and a query whose result metadata would now differ (a family added to or
//! dropped from a table it reads with `SELECT *`) is stale as well. ExecuteQuery answers
//! either with FAILED_PRECONDITION carrying a `google.rpc.PreconditionFailure` whose violation
//! type is `PREPARED_QUERY_EXPIRED`: the signal on which Google's Node, Java, Go and C++
//! clients prepare the query again and retry (Bigtable's ExecuteQuery reference and the
//! clients' retry code; Google's Python client does not refresh yet and surfaces the error).
//! Bigtable's documentation gives no token lifetime; we keep the hour PrepareQuery has always
//! announced here.
//!
//! Results stream as Bigtable's PartialResultSet messages, made as the query reads (a bounded
//! channel between the query and the client paces it): each carries one batch (a
//! `ProtoRows` message of the row-major values of up to [`BATCH_BYTES`] of rows), the batch's
//! CRC32C and a resume token (the count of rows sent so far, as decimal text), so the client
//! checks every batch and a retry resumes after the rows it has. A query that returns no rows
//! sends one empty batch, so the client still sees a complete result.

use std::collections::BTreeMap;

use prost::Message;
use sparsetable::api::sql::{self, PreparedQuery, SqlType, SqlValue};
use sparsetable::codec::encoding::Crc32cDigest;
use sparsetable::{Error, LogicalViewRecord, Result, SharedDatabase};

use crate::convert::timestamp_to_proto;
use crate::names::InstanceName;
use crate::stubs::v2;
use googleapis_tonic_google_bigtable_v2::google::r#type::Date;
use v2::r#type::Kind as TypeKind;
use v2::value::Kind as ValueKind;

/// The first bytes of every prepared-query token this server issues.
pub const PREPARED_MAGIC: &[u8] = b"sparsetable-sql 1\n";

/// How long a prepared query is valid after PrepareQuery (the `valid_until` it announces).
pub const PREPARED_VALID_MICROS: i64 = 3_600_000_000;

/// The violation type of an expired or stale prepared query (see the module docs).
pub const PREPARED_QUERY_EXPIRED: &str = "PREPARED_QUERY_EXPIRED";

/// Largest batch of rows one PartialResultSet carries (a row larger than this goes alone).
pub const BATCH_BYTES: usize = 256 * 1024;

/// What a prepared-query token holds.
#[derive(Clone, PartialEq, Message)]
pub struct PreparedToken {
    /// The query text.
    #[prost(string, tag = "1")]
    pub query: String,
    /// Its parameters' types.
    #[prost(map = "string, message", tag = "2")]
    pub param_types: std::collections::HashMap<String, v2::Type>,
    /// The server time (µs) from which the token is expired; 0 (tokens issued before expiry
    /// existed) never expires.
    #[prost(int64, tag = "3")]
    pub valid_until_micros: i64,
    /// The encoded `ResultSetMetadata` PrepareQuery answered; empty: not checked.
    #[prost(bytes = "vec", tag = "4")]
    pub metadata: Vec<u8>,
}

/// FAILED_PRECONDITION with the `PREPARED_QUERY_EXPIRED` violation clients refresh on.
pub fn expired_status(message: String) -> tonic::Status {
    use crate::stubs::rpc;
    let failure = rpc::PreconditionFailure {
        violations: vec![rpc::precondition_failure::Violation {
            r#type: PREPARED_QUERY_EXPIRED.into(),
            subject: String::new(),
            description: message.clone(),
        }],
    };
    let status = rpc::Status {
        code: tonic::Code::FailedPrecondition as i32,
        message: message.clone(),
        details: vec![prost_types::Any {
            type_url: "type.googleapis.com/google.rpc.PreconditionFailure".into(),
            value: failure.encode_to_vec(),
        }],
    };
    tonic::Status::with_details(
        tonic::Code::FailedPrecondition,
        message,
        status.encode_to_vec().into(),
    )
}

/// A `google.bigtable.v2.Type` as the core's type.
///
/// # Errors
/// `InvalidArgument` for a type the served SQL does not have (structs, protos, enums,
/// aggregates) or a message with no kind.
pub fn type_from_proto(field: &str, ty: &v2::Type) -> Result<SqlType> {
    Ok(match &ty.kind {
        Some(TypeKind::BytesType(_)) => SqlType::Bytes,
        Some(TypeKind::StringType(_)) => SqlType::String,
        Some(TypeKind::Int64Type(_)) => SqlType::Int64,
        Some(TypeKind::Float32Type(_)) => SqlType::Float32,
        Some(TypeKind::Float64Type(_)) => SqlType::Float64,
        Some(TypeKind::BoolType(_)) => SqlType::Bool,
        Some(TypeKind::TimestampType(_)) => SqlType::Timestamp,
        Some(TypeKind::DateType(_)) => SqlType::Date,
        Some(TypeKind::ArrayType(a)) => {
            let element = a.element_type.as_deref().ok_or_else(|| {
                Error::invalid_argument(format!("{field}: an array type needs element_type"))
            })?;
            SqlType::Array(Box::new(type_from_proto(field, element)?))
        }
        Some(TypeKind::MapType(m)) => {
            let (Some(k), Some(v)) = (m.key_type.as_deref(), m.value_type.as_deref()) else {
                return Err(Error::invalid_argument(format!(
                    "{field}: a map type needs key_type and value_type"
                )));
            };
            SqlType::Map(
                Box::new(type_from_proto(field, k)?),
                Box::new(type_from_proto(field, v)?),
            )
        }
        Some(TypeKind::StructType(s)) => SqlType::Struct(
            s.fields
                .iter()
                .map(|f| {
                    let t = f.r#type.as_ref().ok_or_else(|| {
                        Error::invalid_argument(format!("{field}: a struct field needs a type"))
                    })?;
                    Ok((f.field_name.clone(), type_from_proto(field, t)?))
                })
                .collect::<Result<_>>()?,
        ),
        Some(_) => {
            return Err(Error::invalid_argument(format!(
                "{field}: proto, enum and aggregate types are not served in SQL parameters"
            )))
        }
        None => {
            return Err(Error::invalid_argument(format!(
                "{field}: the type has no kind"
            )))
        }
    })
}

/// The core's type as a `google.bigtable.v2.Type`.
pub fn type_to_proto(ty: &SqlType) -> v2::Type {
    let kind = match ty {
        SqlType::Bytes => TypeKind::BytesType(Default::default()),
        SqlType::String => TypeKind::StringType(Default::default()),
        SqlType::Int64 => TypeKind::Int64Type(Default::default()),
        SqlType::Float32 => TypeKind::Float32Type(Default::default()),
        SqlType::Float64 => TypeKind::Float64Type(Default::default()),
        SqlType::Bool => TypeKind::BoolType(Default::default()),
        SqlType::Timestamp => TypeKind::TimestampType(Default::default()),
        SqlType::Date => TypeKind::DateType(Default::default()),
        SqlType::Array(e) => TypeKind::ArrayType(Box::new(v2::r#type::Array {
            element_type: Some(Box::new(type_to_proto(e))),
        })),
        SqlType::Map(k, v) => TypeKind::MapType(Box::new(v2::r#type::Map {
            key_type: Some(Box::new(type_to_proto(k))),
            value_type: Some(Box::new(type_to_proto(v))),
        })),
        SqlType::Struct(fields) => TypeKind::StructType(v2::r#type::Struct {
            fields: fields
                .iter()
                .map(|(name, t)| v2::r#type::r#struct::Field {
                    field_name: name.clone(),
                    r#type: Some(type_to_proto(t)),
                })
                .collect(),
            encoding: None,
        }),
    };
    v2::Type { kind: Some(kind) }
}

/// A parameter's `Value` (of type `ty`) as the core's value.
///
/// # Errors
/// `InvalidArgument` when the value's kind does not carry a `ty`.
pub fn value_from_proto(name: &str, value: &v2::Value, ty: &SqlType) -> Result<SqlValue> {
    let wrong = || {
        Error::invalid_argument(format!(
            "params[{name}]: the value does not match its type {ty:?}"
        ))
    };
    Ok(match (&value.kind, ty) {
        (None, _) => SqlValue::Null,
        (Some(ValueKind::BytesValue(b)), SqlType::Bytes) => SqlValue::Bytes(b.clone()),
        (Some(ValueKind::StringValue(s)), SqlType::String) => SqlValue::String(s.clone()),
        (Some(ValueKind::IntValue(i)), SqlType::Int64) => SqlValue::Int64(*i),
        (Some(ValueKind::FloatValue(f)), SqlType::Float32) => SqlValue::Float32(*f as f32),
        (Some(ValueKind::FloatValue(f)), SqlType::Float64) => SqlValue::Float64(*f),
        (Some(ValueKind::BoolValue(b)), SqlType::Bool) => SqlValue::Bool(*b),
        (Some(ValueKind::TimestampValue(t)), SqlType::Timestamp) => SqlValue::Timestamp {
            seconds: t.seconds,
            nanos: t.nanos,
        },
        (Some(ValueKind::DateValue(d)), SqlType::Date) => SqlValue::Date {
            year: d.year,
            month: d.month,
            day: d.day,
        },
        (Some(ValueKind::ArrayValue(a)), SqlType::Struct(fields))
            if a.values.len() == fields.len() =>
        {
            SqlValue::Struct(
                a.values
                    .iter()
                    .zip(fields)
                    .map(|(v, (_, t))| value_from_proto(name, v, t))
                    .collect::<Result<_>>()?,
            )
        }
        (Some(ValueKind::ArrayValue(a)), SqlType::Map(k, v)) => SqlValue::Map(
            a.values
                .iter()
                .map(|entry| match &entry.kind {
                    Some(ValueKind::ArrayValue(pair)) if pair.values.len() == 2 => Ok((
                        value_from_proto(name, &pair.values[0], k)?,
                        value_from_proto(name, &pair.values[1], v)?,
                    )),
                    _ => Err(wrong()),
                })
                .collect::<Result<_>>()?,
        ),
        (Some(ValueKind::ArrayValue(a)), SqlType::Array(e)) => SqlValue::Array(
            a.values
                .iter()
                .map(|v| value_from_proto(name, v, e))
                .collect::<Result<_>>()?,
        ),
        _ => return Err(wrong()),
    })
}

/// The core's value as a result `Value` (typeless: the types are in the metadata). A map is an
/// array of two-element arrays, as Bigtable encodes one.
pub fn value_to_proto(value: &SqlValue) -> v2::Value {
    let kind = match value {
        SqlValue::Null => None,
        SqlValue::Bytes(b) => Some(ValueKind::BytesValue(b.clone())),
        SqlValue::String(s) => Some(ValueKind::StringValue(s.clone())),
        SqlValue::Int64(i) => Some(ValueKind::IntValue(*i)),
        SqlValue::Float32(f) => Some(ValueKind::FloatValue(f64::from(*f))),
        SqlValue::Float64(f) => Some(ValueKind::FloatValue(*f)),
        SqlValue::Bool(b) => Some(ValueKind::BoolValue(*b)),
        SqlValue::Timestamp { seconds, nanos } => {
            Some(ValueKind::TimestampValue(prost_types::Timestamp {
                seconds: *seconds,
                nanos: *nanos,
            }))
        }
        SqlValue::Date { year, month, day } => Some(ValueKind::DateValue(Date {
            year: *year,
            month: *month,
            day: *day,
        })),
        SqlValue::Array(items) | SqlValue::Struct(items) => {
            Some(ValueKind::ArrayValue(v2::ArrayValue {
                values: items.iter().map(value_to_proto).collect(),
            }))
        }
        SqlValue::Map(entries) => Some(ValueKind::ArrayValue(v2::ArrayValue {
            values: entries
                .iter()
                .map(|(k, v)| v2::Value {
                    r#type: None,
                    kind: Some(ValueKind::ArrayValue(v2::ArrayValue {
                        values: vec![value_to_proto(k), value_to_proto(v)],
                    })),
                })
                .collect(),
        })),
    };
    v2::Value { r#type: None, kind }
}

fn param_types_from_proto(
    types: &std::collections::HashMap<String, v2::Type>,
) -> Result<BTreeMap<String, SqlType>> {
    types
        .iter()
        .map(|(name, ty)| {
            Ok((
                name.clone(),
                type_from_proto(&format!("param_types[{name}]"), ty)?,
            ))
        })
        .collect()
}

fn metadata(query: &PreparedQuery) -> v2::ResultSetMetadata {
    v2::ResultSetMetadata {
        schema: Some(v2::result_set_metadata::Schema::ProtoSchema(
            v2::ProtoSchema {
                columns: query
                    .columns()
                    .iter()
                    .map(|c| v2::ColumnMetadata {
                        name: c.name.clone(),
                        r#type: Some(type_to_proto(&c.ty)),
                    })
                    .collect(),
            },
        )),
    }
}

/// PrepareQuery: the query checked against the instance's schema, its result columns, and the
/// token ExecuteQuery takes back.
///
/// # Errors
/// `InvalidArgument` for a malformed instance name or a query outside the served subset;
/// `NotFound` for an unknown table.
pub fn prepare(
    db: &SharedDatabase,
    req: &v2::PrepareQueryRequest,
    views: &[LogicalViewRecord],
) -> Result<v2::PrepareQueryResponse> {
    let param_types = param_types_from_proto(&req.param_types)?;
    let (query, now) = db.read(|db| {
        Ok((
            sql::prepare_with_views(db, &req.query, param_types, views)?,
            db.now_micros(),
        ))
    })?;
    let metadata = metadata(&query);
    let valid_until_micros = now.saturating_add(PREPARED_VALID_MICROS);
    let token = PreparedToken {
        query: req.query.clone(),
        param_types: req.param_types.clone(),
        valid_until_micros,
        metadata: metadata.encode_to_vec(),
    };
    let mut prepared_query = PREPARED_MAGIC.to_vec();
    token
        .encode(&mut prepared_query)
        .expect("a Vec grows to hold any message");
    Ok(v2::PrepareQueryResponse {
        metadata: Some(metadata),
        prepared_query,
        valid_until: Some(timestamp_to_proto(valid_until_micros)),
    })
}

/// The instance an ExecuteQuery or PrepareQuery names.
///
/// # Errors
/// `InvalidArgument` for a missing or malformed name.
pub fn instance_of(instance_name: &str) -> Result<InstanceName> {
    if instance_name.is_empty() {
        return Err(Error::invalid_argument("instance_name is required"));
    }
    InstanceName::parse("instance_name", instance_name)
}

/// ExecuteQuery: the result's PartialResultSet messages, produced batch by batch as the
/// query reads.
///
/// # Errors
/// FAILED_PRECONDITION with `PREPARED_QUERY_EXPIRED` for an expired or stale token (see the
/// module docs); `InvalidArgument` for a token this server did not issue, a missing or
/// mistyped parameter, or a bad resume token; what preparing or reading returns.
pub fn execute(
    db: &SharedDatabase,
    req: &v2::ExecuteQueryRequest,
    views: &[LogicalViewRecord],
) -> std::result::Result<Batches, tonic::Status> {
    match execute_token(db, req, views) {
        Ok(Ok(batches)) => Ok(batches),
        Ok(Err(expired)) => Err(expired_status(expired)),
        Err(e) => Err(crate::status::to_status(e)),
    }
}

/// ExecuteQuery's work: the batches, or why the prepared query must be prepared again (`Ok`
/// of `Err`, see the module docs), or the error.
fn execute_token(
    db: &SharedDatabase,
    req: &v2::ExecuteQueryRequest,
    views: &[LogicalViewRecord],
) -> Result<std::result::Result<Batches, String>> {
    let token = if req.prepared_query.is_empty() {
        // The deprecated form: the query itself, with each parameter's type on its value.
        #[allow(deprecated)]
        let query = req.query.clone();
        PreparedToken {
            query,
            param_types: req
                .params
                .iter()
                .map(|(name, v)| {
                    v.r#type.clone().map(|t| (name.clone(), t)).ok_or_else(|| {
                        Error::invalid_argument(format!("params[{name}]: the value has no type"))
                    })
                })
                .collect::<Result<_>>()?,
            ..PreparedToken::default()
        }
    } else {
        let body = req
            .prepared_query
            .strip_prefix(PREPARED_MAGIC)
            .ok_or_else(|| {
                Error::invalid_argument("prepared_query was not issued by this server")
            })?;
        PreparedToken::decode(body)
            .map_err(|_| Error::invalid_argument("prepared_query is damaged"))?
    };
    let param_types = param_types_from_proto(&token.param_types)?;
    let params = param_types
        .iter()
        .filter_map(|(name, ty)| {
            req.params
                .get(name)
                .map(|v| Ok((name.clone(), value_from_proto(name, v, ty)?)))
        })
        .collect::<Result<BTreeMap<_, _>>>()?;
    if let Some(missing) = param_types.keys().find(|k| !req.params.contains_key(*k)) {
        return Err(Error::invalid_argument(format!(
            "params[{missing}] was declared when the query was prepared but has no value"
        )));
    }
    if let Some(extra) = req.params.keys().find(|k| !param_types.contains_key(*k)) {
        return Err(Error::invalid_argument(format!(
            "params[{extra}] was not declared when the query was prepared"
        )));
    }
    let skip = if req.resume_token.is_empty() {
        0
    } else {
        std::str::from_utf8(&req.resume_token)
            .ok()
            .and_then(|t| t.parse::<usize>().ok())
            .ok_or_else(|| Error::invalid_argument("resume_token was not issued by this server"))?
    };
    // The query reads a snapshot taken now and holds no lock while it runs.
    let rows = db.read(|db| {
        let now = db.now_micros();
        if token.valid_until_micros != 0 && now >= token.valid_until_micros {
            return Ok(Err(format!(
                "the prepared query expired {} µs ago; prepare it again",
                now - token.valid_until_micros
            )));
        }
        let query = sql::prepare_with_views(db, &token.query, param_types, views)?;
        if !token.metadata.is_empty() && metadata(&query).encode_to_vec() != token.metadata {
            return Ok(Err(
                "the tables the prepared query reads have changed since it was prepared; \
                 prepare it again"
                    .to_string(),
            ));
        }
        sql::execute_stream(db, &query, &params).map(Ok)
    })?;
    Ok(rows.map(|rows| Batches::new(Box::new(QueryIter(rows)), skip)))
}

/// [`sql::QueryRows`] as an iterator.
struct QueryIter(sql::QueryRows);

impl Iterator for QueryIter {
    type Item = Result<Vec<SqlValue>>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0.try_next().transpose()
    }
}

/// A query's result as it is read, cut into PartialResultSet batches one at a time, so a
/// large result never sits in memory whole: each batch holds up to [`BATCH_BYTES`] of rows.
pub struct Batches {
    rows: Box<dyn Iterator<Item = Result<Vec<SqlValue>>> + Send>,
    /// Rows to pass over first (a resume token's count).
    skip: usize,
    /// Rows produced so far, skipped ones included (the resume token).
    sent: usize,
    /// Batches produced so far.
    batches: usize,
    done: bool,
}

impl Batches {
    /// Batches of `rows` after the first `skip`.
    pub fn new(rows: Box<dyn Iterator<Item = Result<Vec<SqlValue>>> + Send>, skip: usize) -> Self {
        Batches {
            rows,
            skip,
            sent: 0,
            batches: 0,
            done: false,
        }
    }

    fn message(&mut self, batch: v2::ProtoRows) -> v2::ExecuteQueryResponse {
        let data = batch.encode_to_vec();
        let mut crc = Crc32cDigest::default();
        crc.update(&data);
        self.batches += 1;
        v2::ExecuteQueryResponse {
            response: Some(v2::execute_query_response::Response::Results(
                v2::PartialResultSet {
                    batch_checksum: Some(crc.finalize()),
                    resume_token: self.sent.to_string().into_bytes(),
                    reset: self.batches == 1,
                    // No estimate (0). Google's Node client (6.5.1) turns a non-zero estimate
                    // into that many empty slots of its batch buffer and then fails reading
                    // their length ("Cannot read properties of undefined (reading 'length')");
                    // the field is only a pre-allocation hint, and Bigtable's own answers work
                    // with that client.
                    estimated_batch_size: 0,
                    partial_rows: Some(v2::partial_result_set::PartialRows::ProtoRowsBatch(
                        v2::ProtoRowsBatch { batch_data: data },
                    )),
                },
            )),
        }
    }

    /// The next batch, or `None` after the last. A result with no rows is one empty batch, so
    /// the client still sees a complete result.
    ///
    /// # Errors
    /// What running the query raises (overflow, a bad value, a failed read).
    pub fn next_batch(&mut self) -> Result<Option<v2::ExecuteQueryResponse>> {
        if self.done {
            return Ok(None);
        }
        let mut batch = v2::ProtoRows::default();
        loop {
            let Some(row) = self.rows.next().transpose()? else {
                self.done = true;
                break;
            };
            self.sent += 1;
            if self.sent <= self.skip {
                continue;
            }
            batch.values.extend(row.iter().map(value_to_proto));
            if batch.encoded_len() >= BATCH_BYTES {
                return Ok(Some(self.message(batch)));
            }
        }
        if !batch.values.is_empty() || self.batches == 0 {
            return Ok(Some(self.message(batch)));
        }
        Ok(None)
    }
}

/// The rows after the first `skip`, as batches of PartialResultSets.
#[cfg(test)]
fn batches(rows: &[Vec<SqlValue>], skip: usize) -> Vec<v2::ExecuteQueryResponse> {
    let owned: Vec<Result<Vec<SqlValue>>> = rows.iter().cloned().map(Ok).collect();
    let mut b = Batches::new(Box::new(owned.into_iter()), skip);
    let mut out = Vec::new();
    while let Some(m) = b.next_batch().expect("rows are values") {
        out.push(m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_and_values_round_trip() {
        let ty = SqlType::Map(
            Box::new(SqlType::Bytes),
            Box::new(SqlType::Array(Box::new(SqlType::Date))),
        );
        assert_eq!(type_from_proto("t", &type_to_proto(&ty)).unwrap(), ty);
        let array = SqlType::Array(Box::new(SqlType::Int64));
        let value = SqlValue::Array(vec![SqlValue::Int64(1), SqlValue::Null]);
        assert_eq!(
            value_from_proto("p", &value_to_proto(&value), &array).unwrap(),
            value
        );
        let err = value_from_proto("p", &value_to_proto(&SqlValue::Bool(true)), &array);
        assert_eq!(err.unwrap_err().code(), sparsetable::Code::InvalidArgument);
    }

    #[test]
    fn batches_carry_checksums_and_resume_tokens() {
        let rows: Vec<Vec<SqlValue>> = (0..3)
            .map(|i| vec![SqlValue::Bytes(vec![b'x'; BATCH_BYTES / 2 + i])])
            .collect();
        let out = batches(&rows, 0);
        assert_eq!(out.len(), 2, "two rows fill a batch");
        let tokens: Vec<Vec<u8>> = out
            .iter()
            .map(|r| match &r.response {
                Some(v2::execute_query_response::Response::Results(p)) => {
                    let Some(v2::partial_result_set::PartialRows::ProtoRowsBatch(b)) =
                        &p.partial_rows
                    else {
                        panic!("a batch")
                    };
                    let mut crc = Crc32cDigest::default();
                    crc.update(&b.batch_data);
                    assert_eq!(p.batch_checksum, Some(crc.finalize()));
                    p.resume_token.clone()
                }
                _ => panic!("results"),
            })
            .collect();
        assert_eq!(tokens, [b"2".to_vec(), b"3".to_vec()]);
        // Resumed after two rows, one row is left; no rows at all is one empty batch.
        assert_eq!(batches(&rows, 2).len(), 1);
        assert_eq!(batches(&[], 0).len(), 1);
    }
}
