//! Replays every shared SQL vector (tests/vectors/sql, and tests/vectors/sql_views) through
//! the real server: tables by CreateTable (then ModifyColumnFamilies, so families keep the
//! vector's order), rows by MutateRow, logical views by CreateLogicalView, queries by PrepareQuery and ExecuteQuery, results decoded from the checksummed
//! ProtoRows batches with the prepared metadata's types. The comparison is the shared one
//! (`sparsetable_test_vectors::sql::check_result`).

use crate::common;
use crate::vector_specs::family_to_proto;
use crate::vectors::mutation_to_proto;

use common::{code_name, Server};
use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use prost::Message;
use sparsetable::api::sql::SqlType;
use sparsetable_server::sql::{type_from_proto, type_to_proto, value_from_proto, value_to_proto};
use sparsetable_server::test_clock::service::test_clock_client::TestClockClient;
use sparsetable_server::test_clock::SetTimeRequest;
use sparsetable_test_vectors::sql::{
    check_result, load_sql, load_sql_views, row_mutations, sql_type, sql_value, Answer, SqlQuery,
    SqlVector,
};
use sparsetable_test_vectors::{table_config, DEFAULT_CLOCK_MICROS};

async fn run(server: &Server, instance: &str, q: &SqlQuery) -> Answer {
    let status = |s: tonic::Status| format!("{} {}", code_name(s.code()), s.message());
    let mut param_types = std::collections::HashMap::new();
    let mut params = std::collections::HashMap::new();
    for (name, p) in &q.params {
        let t = sql_type(&p.ty)?;
        let mut value = value_to_proto(&sql_value(&p.value, &t)?);
        value.r#type = Some(type_to_proto(&t));
        param_types.insert(name.clone(), type_to_proto(&t));
        params.insert(name.clone(), value);
    }
    let mut data = server.data().await;
    let prepared = data
        .prepare_query(v2::PrepareQueryRequest {
            instance_name: instance.into(),
            query: q.sql.clone(),
            param_types,
            ..Default::default()
        })
        .await
        .map_err(status)?
        .into_inner();
    let Some(v2::result_set_metadata::Schema::ProtoSchema(schema)) =
        prepared.metadata.and_then(|m| m.schema)
    else {
        return Err("PrepareQuery returned no proto schema".into());
    };
    let columns: Vec<(String, SqlType)> = schema
        .columns
        .iter()
        .map(|c| {
            let t = c.r#type.as_ref().ok_or("a column without a type")?;
            Ok((
                c.name.clone(),
                type_from_proto("column", t).map_err(|e| e.to_string())?,
            ))
        })
        .collect::<Result<_, String>>()?;
    let mut stream = data
        .execute_query(v2::ExecuteQueryRequest {
            instance_name: instance.into(),
            prepared_query: prepared.prepared_query,
            params,
            ..Default::default()
        })
        .await
        .map_err(status)?
        .into_inner();
    let mut values = Vec::new();
    while let Some(response) = stream.message().await.map_err(status)? {
        let Some(v2::execute_query_response::Response::Results(results)) = response.response else {
            continue;
        };
        if let Some(v2::partial_result_set::PartialRows::ProtoRowsBatch(batch)) =
            results.partial_rows
        {
            let rows = v2::ProtoRows::decode(batch.batch_data.as_slice())
                .map_err(|e| format!("a batch does not decode: {e}"))?;
            values.extend(rows.values);
        }
    }
    if columns.is_empty() || values.len() % columns.len() != 0 {
        return Err(format!(
            "{} values for {} columns",
            values.len(),
            columns.len()
        ));
    }
    let rows = values
        .chunks(columns.len())
        .map(|row| {
            row.iter()
                .zip(&columns)
                .map(|(v, (_, t))| value_from_proto("result", v, t).map_err(|e| e.to_string()))
                .collect::<Result<Vec<_>, String>>()
        })
        .collect::<Result<_, String>>()?;
    Ok((columns, rows))
}

async fn replay(server: &Server, v: &SqlVector) -> Result<(), String> {
    let mut clock = TestClockClient::new(server.channel().await);
    clock
        .set_time(SetTimeRequest {
            micros: v.clock_micros.unwrap_or(DEFAULT_CLOCK_MICROS),
        })
        .await
        .map_err(|e| e.to_string())?;
    let instance = format!("projects/sqlv/instances/{}", v.name.replace('_', "-"));
    let mut admin = server.admin().await;
    let mut aggregate = std::collections::BTreeMap::new();
    for (id, spec) in &v.tables {
        let config = table_config(spec).map_err(|e| e.to_string())?;
        let mut families = config.families.iter();
        let first = families.next();
        admin
            .create_table(admin_v2::CreateTableRequest {
                parent: instance.clone(),
                table_id: id.clone(),
                table: Some(admin_v2::Table {
                    column_families: first
                        .map(|(n, f)| (n.clone(), family_to_proto(f)))
                        .into_iter()
                        .collect(),
                    ..Default::default()
                }),
                initial_splits: vec![],
            })
            .await
            .map_err(|e| e.to_string())?;
        // The rest one by one, so they are created (and listed) in the vector's order.
        for (n, f) in families {
            admin
                .modify_column_families(admin_v2::ModifyColumnFamiliesRequest {
                    name: format!("{instance}/tables/{id}"),
                    modifications: vec![admin_v2::modify_column_families_request::Modification {
                        id: n.clone(),
                        r#mod: Some(
                            admin_v2::modify_column_families_request::modification::Mod::Create(
                                family_to_proto(f),
                            ),
                        ),
                        ..Default::default()
                    }],
                    ..Default::default()
                })
                .await
                .map_err(|e| e.to_string())?;
        }
        for (n, f) in &config.families {
            aggregate.insert((id.clone(), n.clone()), f.value_type.is_aggregate());
        }
    }
    let is_aggregate = |t: &str, f: &str| {
        aggregate
            .get(&(t.to_string(), f.to_string()))
            .copied()
            .unwrap_or(false)
    };
    let mut data = server.data().await;
    for row in &v.rows {
        let mutations = row_mutations(row, &is_aggregate)?;
        data.mutate_row(v2::MutateRowRequest {
            table_name: format!("{instance}/tables/{}", row.table),
            row_key: row.key.0.clone(),
            mutations: mutations.iter().map(mutation_to_proto).collect(),
            ..Default::default()
        })
        .await
        .map_err(|e| e.to_string())?;
    }
    if !v.logical_views.is_empty() {
        use admin_v2::bigtable_instance_admin_client::BigtableInstanceAdminClient;
        let mut instances = BigtableInstanceAdminClient::new(server.channel().await);
        for (id, query) in &v.logical_views {
            instances
                .create_logical_view(admin_v2::CreateLogicalViewRequest {
                    parent: instance.clone(),
                    logical_view_id: id.clone(),
                    logical_view: Some(admin_v2::LogicalView {
                        query: query.clone(),
                        ..Default::default()
                    }),
                })
                .await
                .map_err(|e| format!("logical view {id}: {e}"))?;
        }
    }
    let mut failures = Vec::new();
    for q in &v.queries {
        if let Err(e) = check_result(q, run(server, &instance, q).await) {
            failures.push(e);
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} of {} queries differ:\n{}",
            failures.len(),
            v.queries.len(),
            failures.join("\n")
        ))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_sql_vector_replays_through_grpc() {
    let mut vectors = load_sql();
    assert!(!vectors.is_empty(), "no SQL vectors found");
    let views = load_sql_views();
    assert!(!views.is_empty(), "no logical-view SQL vectors found");
    vectors.extend(views);
    let server = Server::start(&["--clock-micros", "0"]);
    let mut failures = Vec::new();
    let mut queries = 0;
    for v in &vectors {
        queries += v.queries.len();
        if let Err(e) = replay(&server, v).await {
            failures.push(format!("{}: {e}", v.name));
        }
    }
    println!(
        "replayed {} SQL vectors ({queries} queries) through PrepareQuery/ExecuteQuery",
        vectors.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
