//! Java snippets: Google's `com.google.cloud.bigtable.data.v2` client, each a complete
//! program with its imports (the snippet tests compile them).

use super::*;

pub(super) fn java_filter(f: &RowFilter) -> String {
    let range = |head: String, start: &Bound<Vec<u8>>, end: &Bound<Vec<u8>>| {
        let mut s = head;
        match start {
            Bound::Included(k) => {
                let _ = write!(s, ".startClosed({})", java_bytes(k));
            }
            Bound::Excluded(k) => {
                let _ = write!(s, ".startOpen({})", java_bytes(k));
            }
            Bound::Unbounded => {}
        }
        match end {
            Bound::Included(k) => {
                let _ = write!(s, ".endClosed({})", java_bytes(k));
            }
            Bound::Excluded(k) => {
                let _ = write!(s, ".endOpen({})", java_bytes(k));
            }
            Bound::Unbounded => {}
        }
        s
    };
    let many = |head: &str, fs: &[RowFilter]| {
        let mut s = format!("FILTERS.{head}()");
        for f in fs {
            let _ = write!(s, ".filter({})", java_filter(f));
        }
        s
    };
    match f {
        RowFilter::PassAll => "FILTERS.pass()".into(),
        RowFilter::BlockAll => "FILTERS.block()".into(),
        RowFilter::Sink => "FILTERS.sink()".into(),
        RowFilter::Chain(fs) => many("chain", fs),
        RowFilter::Interleave(fs) => many("interleave", fs),
        RowFilter::Condition {
            predicate,
            true_filter,
            false_filter,
        } => {
            let mut s = format!("FILTERS.condition({})", java_filter(predicate));
            let _ = write!(
                s,
                ".then({})",
                true_filter
                    .as_ref()
                    .map_or("FILTERS.block()".into(), |f| java_filter(f))
            );
            if let Some(e) = false_filter {
                let _ = write!(s, ".otherwise({})", java_filter(e));
            }
            s
        }
        RowFilter::RowKeyRegex(r) => format!("FILTERS.key().regex({})", java_bytes(r)),
        RowFilter::RowSample(p) => format!("FILTERS.key().sample({p})"),
        RowFilter::FamilyNameRegex(r) => format!("FILTERS.family().regex({})", quoted(r, false)),
        RowFilter::ColumnQualifierRegex(r) => {
            format!("FILTERS.qualifier().regex({})", java_bytes(r))
        }
        RowFilter::ColumnRange { family, start, end } => range(
            format!(
                "FILTERS.qualifier().rangeWithinFamily({})",
                quoted(family, false)
            ),
            start,
            end,
        ),
        RowFilter::TimestampRange {
            start_micros,
            end_micros,
        } => {
            let mut s = format!("FILTERS.timestamp().range().startClosed({start_micros}L)");
            if *end_micros != 0 {
                let _ = write!(s, ".endOpen({end_micros}L)");
            }
            s
        }
        RowFilter::ValueRegex(r) => format!("FILTERS.value().regex({})", java_bytes(r)),
        RowFilter::ValueRange { start, end } => range("FILTERS.value().range()".into(), start, end),
        RowFilter::CellsPerRowOffset(n) => format!("FILTERS.offset().cellsPerRow({n})"),
        RowFilter::CellsPerRowLimit(n) => format!("FILTERS.limit().cellsPerRow({n})"),
        RowFilter::CellsPerColumnLimit(n) => format!("FILTERS.limit().cellsPerColumn({n})"),
        RowFilter::StripValue => "FILTERS.value().strip()".into(),
        RowFilter::ApplyLabel(l) => format!("FILTERS.label({})", quoted(l, false)),
        RowFilter::ValueBitmask(_) => {
            "FILTERS.pass() /* valueBitmaskFilter is a Sparsetable extension */".into()
        }
    }
}

/// A Java program around `body` (statements using `client`, a `BigtableDataClient`, or
/// `admin`, a `BigtableTableAdminClient`): the imports of exactly the names the body uses,
/// and a `main` that opens the client and closes it.
pub(super) fn java_program(body: &str) -> String {
    let mut imports: Vec<&str> = Vec::new();
    let uses = |name: &str| {
        body.match_indices(name).any(|(i, _)| {
            let before = body[..i].chars().next_back();
            let after = body[i + name.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
                && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    };
    let admin = uses("admin");
    for (name, import) in JAVA_IMPORTS {
        if uses(name) {
            imports.push(import);
        }
    }
    imports.push(if admin {
        "import com.google.cloud.bigtable.admin.v2.BigtableTableAdminClient;"
    } else {
        "import com.google.cloud.bigtable.data.v2.BigtableDataClient;"
    });
    imports.sort_unstable();
    imports.dedup();
    let (statics, plain): (Vec<&str>, Vec<&str>) = imports
        .into_iter()
        .partition(|i| i.starts_with("import static"));
    let mut out = String::new();
    for i in &statics {
        let _ = writeln!(out, "{i}");
    }
    if !statics.is_empty() {
        out.push('\n');
    }
    for i in &plain {
        let _ = writeln!(out, "{i}");
    }
    let open = if admin {
        "BigtableTableAdminClient admin = BigtableTableAdminClient.create(\"my-project\", \"my-instance\")"
    } else {
        "BigtableDataClient client = BigtableDataClient.create(\"my-project\", \"my-instance\")"
    };
    let _ = write!(
        out,
        "\npublic class Example {{\n  public static void main(String[] args) throws Exception {{\n    try ({open}) {{\n"
    );
    for line in body.lines() {
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "      {line}");
        }
    }
    out.push_str("    }\n  }\n}\n");
    out
}

/// Names a Java snippet may use, and the import each needs.
pub(super) const JAVA_IMPORTS: &[(&str, &str)] = &[
    (
        "FILTERS",
        "import static com.google.cloud.bigtable.data.v2.models.Filters.FILTERS;",
    ),
    (
        "GCRULES",
        "import static com.google.cloud.bigtable.admin.v2.models.GCRules.GCRULES;",
    ),
    ("ByteString", "import com.google.protobuf.ByteString;"),
    (
        "ByteStringRange",
        "import com.google.cloud.bigtable.data.v2.models.Range.ByteStringRange;",
    ),
    (
        "TimestampRange",
        "import com.google.cloud.bigtable.data.v2.models.Range.TimestampRange;",
    ),
    (
        "Query",
        "import com.google.cloud.bigtable.data.v2.models.Query;",
    ),
    (
        "Row",
        "import com.google.cloud.bigtable.data.v2.models.Row;",
    ),
    (
        "RowMutation",
        "import com.google.cloud.bigtable.data.v2.models.RowMutation;",
    ),
    (
        "TableId",
        "import com.google.cloud.bigtable.data.v2.models.TableId;",
    ),
    (
        "CreateTableRequest",
        "import com.google.cloud.bigtable.admin.v2.models.CreateTableRequest;",
    ),
    (
        "ModifyColumnFamiliesRequest",
        "import com.google.cloud.bigtable.admin.v2.models.ModifyColumnFamiliesRequest;",
    ),
    ("Duration", "import java.time.Duration;"),
];

pub(super) fn java_read(table: &str, r: &ReadRowsRequest) -> String {
    let mut q = format!(
        "Query query = Query.create(TableId.of({}))",
        quoted(table, false)
    );
    for k in &r.row_set.row_keys {
        let _ = write!(q, "\n    .rowKey({})", java_bytes(k));
    }
    for range in &r.row_set.row_ranges {
        let mut s = "ByteStringRange.unbounded()".to_string();
        match &range.start {
            Bound::Included(k) => {
                let _ = write!(s, ".startClosed({})", java_bytes(k));
            }
            Bound::Excluded(k) => {
                let _ = write!(s, ".startOpen({})", java_bytes(k));
            }
            Bound::Unbounded => {}
        }
        match &range.end {
            Bound::Included(k) => {
                let _ = write!(s, ".endClosed({})", java_bytes(k));
            }
            Bound::Excluded(k) => {
                let _ = write!(s, ".endOpen({})", java_bytes(k));
            }
            Bound::Unbounded => {}
        }
        let _ = write!(q, "\n    .range({s})");
    }
    if r.rows_limit > 0 {
        let _ = write!(q, "\n    .limit({})", r.rows_limit);
    }
    if r.reversed {
        q.push_str("\n    .reversed(true)");
    }
    if r.filter != RowFilter::PassAll {
        let _ = write!(q, "\n    .filter({})", java_filter(&r.filter));
    }
    java_program(&format!(
        "{q};\nfor (Row row : client.readRows(query)) {{\n  System.out.println(row.getKey().toStringUtf8() + \" \" + row.getCells());\n}}\n"
    ))
}

pub(super) fn java_write(table: &str, key: &[u8], ms: &[Mutation]) -> String {
    let mut m = format!(
        "RowMutation mutation = RowMutation.create(TableId.of({}), {})",
        quoted(table, false),
        java_bytes(key)
    );
    for x in ms {
        let _ = match x {
            Mutation::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } => {
                // RowMutation.setCell takes (String, String, long, String) or
                // (String, ByteString, long, ByteString): both ByteString when either must be.
                let (q, v) = if core::str::from_utf8(qualifier).is_ok()
                    && core::str::from_utf8(value).is_ok()
                {
                    (java_bytes(qualifier), java_bytes(value))
                } else {
                    (java_byte_string(qualifier), java_byte_string(value))
                };
                write!(
                    m,
                    "\n    .setCell({}, {q}, {timestamp_micros}L, {v})",
                    quoted(family, false)
                )
            }
            Mutation::DeleteFromColumn {
                family,
                qualifier,
                time_range,
            } => {
                let q = java_byte_string(qualifier);
                if time_range.start_micros == 0 && time_range.end_micros.is_none() {
                    write!(m, "\n    .deleteCells({}, {q})", quoted(family, false))
                } else {
                    let range = match time_range.end_micros {
                        Some(e) => {
                            format!("TimestampRange.create({}L, {e}L)", time_range.start_micros)
                        }
                        None => format!(
                            "TimestampRange.unbounded().startClosed({}L)",
                            time_range.start_micros
                        ),
                    };
                    write!(
                        m,
                        "\n    .deleteCells({}, {q}, {range})",
                        quoted(family, false)
                    )
                }
            }
            Mutation::DeleteFromFamily { family } => {
                write!(m, "\n    .deleteFamily({})", quoted(family, false))
            }
            Mutation::DeleteFromRow => write!(m, "\n    .deleteRow()"),
            other => write!(m, "\n    /* {other:?} */"),
        };
    }
    java_program(&format!("{m};\nclient.mutateRow(mutation);\n"))
}

pub(super) fn java_gc(rule: &GcRule) -> String {
    let chain = |kind: &str, rs: &[GcRule]| {
        rs.iter().fold(format!("GCRULES.{kind}()"), |acc, r| {
            format!("{acc}.rule({})", java_gc(r))
        })
    };
    match rule {
        GcRule::Never => "GCRULES.defaultRule()".into(),
        GcRule::MaxNumVersions(n) => format!("GCRULES.maxVersions({n})"),
        GcRule::MaxAge { micros } => format!(
            "GCRULES.maxAge(Duration.ofSeconds({}, {}))",
            micros.div_euclid(1_000_000),
            micros.rem_euclid(1_000_000) * 1000
        ),
        GcRule::Union(rs) => chain("union", rs),
        GcRule::Intersection(rs) => chain("intersection", rs),
    }
}

pub(super) fn java_admin(op: &AdminOp<'_>) -> String {
    let body = match op {
        AdminOp::CreateTable { table, families } => {
            let mut s = format!("admin.createTable(CreateTableRequest.of({})", quoted(table, false));
            for (f, r) in *families {
                if *r == GcRule::Never {
                    let _ = write!(s, "\n    .addFamily({})", quoted(f, false));
                } else {
                    let _ = write!(s, "\n    .addFamily({}, {})", quoted(f, false), java_gc(r));
                }
            }
            s + ");\n"
        }
        AdminOp::SetGcRule {
            table,
            family,
            rule,
        } => format!(
            "admin.modifyFamilies(ModifyColumnFamiliesRequest.of({})\n    .updateFamily({}, {}));\n",
            quoted(table, false),
            quoted(family, false),
            java_gc(rule)
        ),
        AdminOp::DeleteTable { table } => {
            format!("admin.deleteTable({});\n", quoted(table, false))
        }
    };
    java_program(&body)
}
