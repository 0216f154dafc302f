//! Node.js snippets: `@google-cloud/bigtable`, each inside an async main (the snippet tests
//! run them against the real server).

use super::*;

pub(super) fn node_filter(f: &RowFilter) -> String {
    let list = |fs: &[RowFilter]| fs.iter().map(node_filter).collect::<Vec<_>>().join(", ");
    let bound = |b: &Bound<Vec<u8>>| match b {
        Bound::Included(k) => Some(format!("{{value: {}, inclusive: true}}", js_bytes(k))),
        Bound::Excluded(k) => Some(format!("{{value: {}, inclusive: false}}", js_bytes(k))),
        Bound::Unbounded => None,
    };
    let range = |start: &Bound<Vec<u8>>, end: &Bound<Vec<u8>>| {
        let mut parts = Vec::new();
        if let Some(s) = bound(start) {
            parts.push(format!("start: {s}"));
        }
        if let Some(e) = bound(end) {
            parts.push(format!("end: {e}"));
        }
        parts
    };
    match f {
        RowFilter::PassAll => "{all: true}".into(),
        RowFilter::BlockAll => "{all: false}".into(),
        RowFilter::Sink => "{sink: true}".into(),
        RowFilter::Chain(fs) => format!("[{}]", list(fs)),
        RowFilter::Interleave(fs) => format!("{{interleave: [{}]}}", list(fs)),
        RowFilter::Condition {
            predicate,
            true_filter,
            false_filter,
        } => {
            let mut s = format!("{{condition: {{test: {}", node_filter(predicate));
            if let Some(t) = true_filter {
                let _ = write!(s, ", pass: {}", node_filter(t));
            }
            if let Some(e) = false_filter {
                let _ = write!(s, ", fail: {}", node_filter(e));
            }
            s + "}}"
        }
        RowFilter::RowKeyRegex(r) => format!("{{row: {}}}", js_bytes(r)),
        RowFilter::RowSample(p) => format!("{{row: {{sample: {p}}}}}"),
        RowFilter::FamilyNameRegex(r) => format!("{{family: {}}}", quoted(r, false)),
        RowFilter::ColumnQualifierRegex(r) => format!("{{column: {}}}", js_bytes(r)),
        RowFilter::ColumnRange { family, start, end } => {
            let mut parts = alloc::vec![format!("family: {}", quoted(family, false))];
            parts.extend(range(start, end));
            format!("{{column: {{{}}}}}", parts.join(", "))
        }
        RowFilter::TimestampRange {
            start_micros,
            end_micros,
        } => {
            let mut s = format!("{{time: {{start: new Date({})", start_micros / 1000);
            if *end_micros != 0 {
                let _ = write!(s, ", end: new Date({})", end_micros / 1000);
            }
            s + "}}"
        }
        RowFilter::ValueRegex(r) => format!("{{value: {}}}", js_bytes(r)),
        RowFilter::ValueRange { start, end } => {
            format!("{{value: {{{}}}}}", range(start, end).join(", "))
        }
        RowFilter::CellsPerRowOffset(n) => format!("{{row: {{cellOffset: {n}}}}}"),
        RowFilter::CellsPerRowLimit(n) => format!("{{row: {{cellLimit: {n}}}}}"),
        RowFilter::CellsPerColumnLimit(n) => format!("{{column: {{cellLimit: {n}}}}}"),
        RowFilter::StripValue => "{value: {strip: true}}".into(),
        RowFilter::ApplyLabel(l) => format!("{{label: {}}}", quoted(l, false)),
        RowFilter::ValueBitmask(_) => {
            "{all: true} /* valueBitmaskFilter is a Sparsetable extension */".into()
        }
    }
}

/// A Node.js program around `body` (statements using `bigtable` and `instance`, awaiting
/// freely): the client's import and an async `main`, since CommonJS has no top-level await.
pub(super) fn node_program(body: &str) -> String {
    // Filter (the shorthand's parser) is not exported from the package's index at run time.
    let filter = if body.contains("Filter.") {
        "const {Filter} = require(\"@google-cloud/bigtable/build/src/filter\");\n"
    } else {
        ""
    };
    let mut out = format!(
        "const {{Bigtable}} = require(\"@google-cloud/bigtable\");\n{filter}\nasync function main() {{\n  const bigtable = new Bigtable({{projectId: \"my-project\"}});\n  const instance = bigtable.instance(\"my-instance\");\n"
    );
    for line in body.lines() {
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "  {line}");
        }
    }
    out.push_str(
        "}\n\nmain().catch((err) => {\n  console.error(err);\n  process.exitCode = 1;\n});\n",
    );
    out
}

/// Bytes for a field of a generated (proto) request: a `Buffer`, never a string (protobuf.js
/// would read a string as base64).
pub(super) fn js_buffer(b: &[u8]) -> String {
    match core::str::from_utf8(b) {
        Ok(s) => format!("Buffer.from({})", quoted(s, false)),
        Err(_) => format!("Buffer.from(\"{}\", \"hex\")", hex(b)),
    }
}

/// A reversed scan in Node.js: `getRows` has no reversed option (@google-cloud/bigtable
/// 6.x), so the ReadRows request goes through the client's `request`, which has the proto's
/// `reversed` field; `Filter.parse` turns the filter shorthand into its proto.
pub(super) fn node_reversed(table: &str, r: &ReadRowsRequest) -> String {
    let mut req = alloc::vec![format!(
        "tableName: instance.table({}).name",
        quoted(table, false)
    )];
    if !r.row_set.is_all() {
        let keys: Vec<_> = r.row_set.row_keys.iter().map(|k| js_buffer(k)).collect();
        let ranges: Vec<_> = r
            .row_set
            .row_ranges
            .iter()
            .map(|x| {
                let a = range_fields(x, JS_RANGE_FIELDS, ": ", js_buffer);
                format!("{{{}}}", a.join(", "))
            })
            .collect();
        req.push(format!(
            "rows: {{rowKeys: [{}], rowRanges: [{}]}}",
            keys.join(", "),
            ranges.join(", ")
        ));
    }
    if r.filter != RowFilter::PassAll {
        req.push(format!("filter: Filter.parse({})", node_filter(&r.filter)));
    }
    if r.rows_limit > 0 {
        req.push(format!("rowsLimit: {}", r.rows_limit));
    }
    req.push("reversed: true".into());
    node_program(&format!(
        "// getRows has no reversed option; the ReadRows request itself has.\nconst stream = bigtable.request({{\n  client: \"BigtableClient\",\n  method: \"readRows\",\n  reqOpts: {{\n    {},\n  }},\n}});\nfor await (const response of stream) {{\n  for (const chunk of response.chunks) {{\n    // cells, newest row first; a row's key comes with its first cell\n    console.log(chunk.rowKey.toString(), chunk.familyName?.value, chunk.qualifier?.value?.toString(), chunk.value.toString());\n  }}\n}}\n",
        req.join(",\n    ")
    ))
}

pub(super) fn node_read(table: &str, r: &ReadRowsRequest) -> String {
    let mut opts = Vec::new();
    if !r.row_set.row_keys.is_empty() {
        let keys: Vec<_> = r.row_set.row_keys.iter().map(|k| js_bytes(k)).collect();
        opts.push(format!("keys: [{}]", keys.join(", ")));
    }
    if !r.row_set.row_ranges.is_empty() {
        let ranges: Vec<_> = r
            .row_set
            .row_ranges
            .iter()
            .map(|x| {
                let b = |b: &Bound<Vec<u8>>| match b {
                    Bound::Included(k) => {
                        Some(format!("{{value: {}, inclusive: true}}", js_bytes(k)))
                    }
                    Bound::Excluded(k) => {
                        Some(format!("{{value: {}, inclusive: false}}", js_bytes(k)))
                    }
                    Bound::Unbounded => None,
                };
                let mut parts = Vec::new();
                if let Some(s) = b(&x.start) {
                    parts.push(format!("start: {s}"));
                }
                if let Some(e) = b(&x.end) {
                    parts.push(format!("end: {e}"));
                }
                format!("{{{}}}", parts.join(", "))
            })
            .collect();
        opts.push(format!("ranges: [{}]", ranges.join(", ")));
    }
    if r.rows_limit > 0 {
        opts.push(format!("limit: {}", r.rows_limit));
    }
    if r.filter != RowFilter::PassAll {
        opts.push(format!("filter: {}", node_filter(&r.filter)));
    }
    if r.reversed {
        return node_reversed(table, r);
    }
    node_program(&format!(
        "const table = instance.table({});\nconst [rows] = await table.getRows({{{}}});\nfor (const row of rows) console.log(row.id, JSON.stringify(row.data));\n",
        quoted(table, false),
        opts.join(", ")
    ))
}

pub(super) fn node_write(table: &str, key: &[u8], ms: &[Mutation]) -> String {
    let k = js_bytes(key);
    let mut body = String::new();
    for m in ms {
        let _ = match m {
            Mutation::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } => writeln!(
                body,
                "await table.row({k}).save({{{}: {{{}: {{value: {}, timestamp: \"{timestamp_micros}\"}}}}}});",
                quoted(family, false),
                quoted(&utf8(qualifier), false),
                js_bytes(value)
            ),
            Mutation::DeleteFromColumn {
                family,
                qualifier,
                time_range,
            } => {
                let column = quoted(&format!("{family}:{}", utf8(qualifier)), false);
                if time_range.start_micros == 0 && time_range.end_micros.is_none() {
                    writeln!(body, "await table.row({k}).deleteCells([{column}]);")
                } else {
                    writeln!(
                        body,
                        "await table.mutate({{key: {k}, method: \"delete\", data: {{column: {column}, time: {{start: new Date({}), end: new Date({})}}}}}});",
                        time_range.start_micros / 1000,
                        time_range.end_micros.unwrap_or(0) / 1000
                    )
                }
            }
            Mutation::DeleteFromFamily { family } => writeln!(
                body,
                "await table.row({k}).deleteCells([{}]);",
                quoted(family, false)
            ),
            Mutation::DeleteFromRow => writeln!(body, "await table.row({k}).delete();"),
            other => writeln!(body, "// {other:?}"),
        };
    }
    node_program(&format!(
        "const table = instance.table({});\n{body}",
        quoted(table, false)
    ))
}

/// The Node client's rule object (`versions`, `age`, one nested `rule`, joined by `union`
/// or `intersection`), or `None` where that shape cannot hold the rule.
pub(super) fn node_gc(rule: &GcRule) -> Option<String> {
    let age = |micros: i64| {
        format!(
            "age: {{seconds: {}, nanos: {}}}",
            micros.div_euclid(1_000_000),
            micros.rem_euclid(1_000_000) * 1000
        )
    };
    match rule {
        GcRule::Never => None,
        GcRule::MaxNumVersions(n) => Some(format!("{{versions: {n}}}")),
        GcRule::MaxAge { micros } => Some(format!("{{{}}}", age(*micros))),
        GcRule::Union(rs) | GcRule::Intersection(rs) => {
            let mut parts = Vec::new();
            let (mut versions, mut ages, mut nested) = (0, 0, 0);
            for r in rs {
                match r {
                    GcRule::MaxNumVersions(n) => {
                        versions += 1;
                        parts.push(format!("versions: {n}"));
                    }
                    GcRule::MaxAge { micros } => {
                        ages += 1;
                        parts.push(age(*micros));
                    }
                    other => {
                        nested += 1;
                        parts.push(format!("rule: {}", node_gc(other)?));
                    }
                }
            }
            if versions > 1 || ages > 1 || nested > 1 || parts.len() < 2 {
                return None;
            }
            parts.push(if matches!(rule, GcRule::Union(_)) {
                "union: true".into()
            } else {
                "intersection: true".into()
            });
            Some(format!("{{{}}}", parts.join(", ")))
        }
    }
}

pub(super) fn node_admin(op: &AdminOp<'_>) -> String {
    let mut notes = String::new();
    let body = match op {
        AdminOp::CreateTable { table, families } => {
            let fams: Vec<String> = families
                .iter()
                .map(|(f, r)| match (r, node_gc(r)) {
                    (GcRule::Never, _) => quoted(f, false),
                    (_, Some(rule)) => format!("{{name: {}, rule: {rule}}}", quoted(f, false)),
                    (_, None) => {
                        notes.push_str("// the Node client's rule object cannot hold this GC rule: set it with another client\n");
                        quoted(f, false)
                    }
                })
                .collect();
            format!(
                "const table = instance.table({});\nawait table.create({{families: [{}]}});\n",
                quoted(table, false),
                fams.join(", ")
            )
        }
        AdminOp::SetGcRule {
            table,
            family,
            rule,
        } => match node_gc(rule) {
            Some(r) => format!(
                "const table = instance.table({});\nawait table.family({}).setMetadata({{rule: {r}}});\n",
                quoted(table, false),
                quoted(family, false)
            ),
            None => {
                notes.push_str("// the Node client's rule object cannot hold this GC rule (\"never\" or nested rules): set it with another client\n");
                String::new()
            }
        },
        AdminOp::DeleteTable { table } => format!(
            "const table = instance.table({});\nawait table.delete();\n",
            quoted(table, false)
        ),
    };
    node_program(&format!("{notes}{body}"))
}
