//! A vector's table spec as the gRPC runner sends it: the families, options and splits read
//! with the core's model, but each family's GC rule read from the vector's JSON field by field
//! into the admin proto, as a client would build it. The model refuses a GC rule past the
//! core's tree limits while it parses, and a rule the runner cannot read could not be sent: a
//! vector whose rule is too deep or too big must reach the server, whose answer (code and the
//! core's words) is what the vector checks. Also the model's families and GC rules as the
//! admin proto, for this runner and the SQL vectors' (a leaf both import, no file circle).

use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;
use serde_json::Value;
use sparsetable::{ColumnFamily, GcRule, TableConfig, ValueType};
use sparsetable_test_vectors::table_config;

/// The spec's configuration with every family's GC rule left out (see [`spec_family`]).
///
/// # Errors
/// The model's error, for a spec that is not a table.
pub(crate) fn spec_config(spec: &Value) -> Result<TableConfig, String> {
    let mut stripped = spec.clone();
    if let Some(families) = stripped
        .get_mut("columnFamilies")
        .and_then(Value::as_object_mut)
    {
        for family in families.values_mut() {
            if let Some(f) = family.as_object_mut() {
                f.remove("gcRule");
            }
        }
    }
    table_config(&stripped).map_err(|e| format!("table spec: {e}"))
}

/// Family `name` of the spec as the admin proto: `family`'s value type, and the spec's GC rule
/// read from its JSON.
///
/// # Errors
/// A GC rule the runner cannot read.
pub(crate) fn spec_family(
    spec: &Value,
    name: &str,
    family: &ColumnFamily,
) -> Result<admin_v2::ColumnFamily, String> {
    let mut proto = family_to_proto(family);
    proto.gc_rule = match spec.pointer(&format!("/columnFamilies/{}/gcRule", pointer(name))) {
        None => None,
        Some(rule) => Some(gc_rule(rule)?),
    };
    Ok(proto)
}

/// `name` escaped for a JSON pointer.
fn pointer(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// A proto3 JSON `GcRule` as the admin message, field by field, without limits of its own.
fn gc_rule(v: &Value) -> Result<admin_v2::GcRule, String> {
    use admin_v2::gc_rule::{Intersection, Rule, Union};
    let o = v
        .as_object()
        .ok_or_else(|| format!("gc rule {v} is not an object"))?;
    let list = |body: &Value| -> Result<Vec<admin_v2::GcRule>, String> {
        body.get("rules")
            .and_then(Value::as_array)
            .map_or(Ok(Vec::new()), |rules| rules.iter().map(gc_rule).collect())
    };
    let rule = match o.iter().next() {
        None => return Ok(admin_v2::GcRule::default()),
        Some((k, body)) => match k.as_str() {
            "maxNumVersions" => Rule::MaxNumVersions(int(body)? as i32),
            "maxAge" => Rule::MaxAge(duration(body)?),
            "intersection" => Rule::Intersection(Intersection { rules: list(body)? }),
            "union" => Rule::Union(Union { rules: list(body)? }),
            other => return Err(format!("gc rule field {other} unknown to the runner")),
        },
    };
    Ok(admin_v2::GcRule { rule: Some(rule) })
}

fn int(v: &Value) -> Result<i64, String> {
    v.as_i64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .ok_or_else(|| format!("{v} is not an integer"))
}

/// A proto3 JSON Duration (`"86400s"`, `"0.0005s"`).
fn duration(v: &Value) -> Result<prost_types::Duration, String> {
    let text = v
        .as_str()
        .and_then(|s| s.strip_suffix('s'))
        .ok_or_else(|| format!("{v} is not a duration"))?;
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    let seconds: i64 = whole
        .parse()
        .map_err(|_| format!("{v} is not a duration"))?;
    let nanos = if frac.is_empty() {
        0
    } else {
        let digits = format!("{frac:0<9}");
        digits[..9]
            .parse::<i32>()
            .map_err(|_| format!("{v} is not a duration"))?
    };
    let nanos = if whole.starts_with('-') {
        -nanos
    } else {
        nanos
    };
    Ok(prost_types::Duration { seconds, nanos })
}

fn gc_rule_to_proto(rule: &GcRule) -> Option<admin_v2::GcRule> {
    use admin_v2::gc_rule::{Intersection, Rule, Union};
    let list = |r: &[GcRule]| {
        r.iter()
            .map(|r| gc_rule_to_proto(r).unwrap_or_default())
            .collect()
    };
    let rule = match rule {
        GcRule::Never => return None,
        GcRule::MaxNumVersions(n) => Rule::MaxNumVersions(*n as i32),
        GcRule::MaxAge { micros: m } => Rule::MaxAge(prost_types::Duration {
            seconds: m / 1_000_000,
            nanos: (m % 1_000_000) as i32 * 1000,
        }),
        GcRule::Intersection(r) => Rule::Intersection(Intersection { rules: list(r) }),
        GcRule::Union(r) => Rule::Union(Union { rules: list(r) }),
    };
    Some(admin_v2::GcRule { rule: Some(rule) })
}

/// A family of the core's model as the admin proto (the vectors' and the SQL vectors' runners).
pub(crate) fn family_to_proto(f: &ColumnFamily) -> admin_v2::ColumnFamily {
    use admin_v2::r#type::{aggregate::Aggregator, Aggregate, Int64, Kind};
    let aggregator = match f.value_type {
        ValueType::Bytes => None,
        ValueType::Int64Sum => Some(Aggregator::Sum(Default::default())),
        ValueType::Int64Min => Some(Aggregator::Min(Default::default())),
        ValueType::Int64Max => Some(Aggregator::Max(Default::default())),
        ValueType::HllUniqueCount => Some(Aggregator::HllppUniqueCount(Default::default())),
    };
    let value_type = aggregator.map(|aggregator| admin_v2::Type {
        kind: Some(Kind::AggregateType(Box::new(Aggregate {
            input_type: Some(Box::new(admin_v2::Type {
                kind: Some(Kind::Int64Type(Int64::default())),
            })),
            state_type: None,
            aggregator: Some(aggregator),
        }))),
    });
    admin_v2::ColumnFamily {
        gc_rule: gc_rule_to_proto(&f.gc_rule),
        value_type,
    }
}
