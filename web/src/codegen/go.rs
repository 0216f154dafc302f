//! Go snippets: `cloud.google.com/go/bigtable`, each a `package main` program without unused
//! imports (the snippet tests check them as text).

use super::*;

pub(super) fn go_filter(f: &RowFilter) -> String {
    let list = |fs: &[RowFilter]| fs.iter().map(go_filter).collect::<Vec<_>>().join(", ");
    let key = |b: &Bound<Vec<u8>>| match b {
        Bound::Included(k) | Bound::Excluded(k) => go_bytes(k),
        Bound::Unbounded => "\"\"".into(),
    };
    match f {
        RowFilter::PassAll => "bigtable.PassAllFilter()".into(),
        RowFilter::BlockAll => "bigtable.BlockAllFilter()".into(),
        RowFilter::Sink => "bigtable.PassAllFilter() /* sink: not in the Go client */".into(),
        RowFilter::Chain(fs) => format!("bigtable.ChainFilters({})", list(fs)),
        RowFilter::Interleave(fs) => format!("bigtable.InterleaveFilters({})", list(fs)),
        RowFilter::Condition {
            predicate,
            true_filter,
            false_filter,
        } => format!(
            "bigtable.ConditionFilter({}, {}, {})",
            go_filter(predicate),
            true_filter.as_ref().map_or("nil".into(), |f| go_filter(f)),
            false_filter.as_ref().map_or("nil".into(), |f| go_filter(f))
        ),
        RowFilter::RowKeyRegex(r) => format!("bigtable.RowKeyFilter({})", go_bytes(r)),
        RowFilter::RowSample(p) => format!("bigtable.RowSampleFilter({p})"),
        RowFilter::FamilyNameRegex(r) => format!("bigtable.FamilyFilter({})", quoted(r, true)),
        RowFilter::ColumnQualifierRegex(r) => format!("bigtable.ColumnFilter({})", go_bytes(r)),
        RowFilter::ColumnRange { family, start, end } => {
            let note = if matches!(start, Bound::Excluded(_)) || matches!(end, Bound::Included(_)) {
                " /* the Go client's range is [start, end) */"
            } else {
                ""
            };
            format!(
                "bigtable.ColumnRangeFilter({}, {}, {}){note}",
                quoted(family, true),
                key(start),
                key(end)
            )
        }
        RowFilter::TimestampRange {
            start_micros,
            end_micros,
        } => format!("bigtable.TimestampRangeFilterMicros({start_micros}, {end_micros})"),
        RowFilter::ValueRegex(r) => format!("bigtable.ValueFilter({})", go_bytes(r)),
        RowFilter::ValueRange { start, end } => {
            let b = |x: &Bound<Vec<u8>>| match x {
                Bound::Included(k) | Bound::Excluded(k) => format!("[]byte({})", go_bytes(k)),
                Bound::Unbounded => "nil".into(),
            };
            format!("bigtable.ValueRangeFilter({}, {})", b(start), b(end))
        }
        RowFilter::CellsPerRowOffset(n) => format!("bigtable.CellsPerRowOffsetFilter({n})"),
        RowFilter::CellsPerRowLimit(n) => format!("bigtable.CellsPerRowLimitFilter({n})"),
        RowFilter::CellsPerColumnLimit(n) => format!("bigtable.LatestNFilter({n})"),
        RowFilter::StripValue => "bigtable.StripValueFilter()".into(),
        RowFilter::ApplyLabel(l) => format!("bigtable.LabelFilter({})", quoted(l, true)),
        RowFilter::ValueBitmask(_) => {
            "bigtable.PassAllFilter() /* valueBitmaskFilter is a Sparsetable extension */".into()
        }
    }
}

pub(super) fn go_range(r: &RowRange) -> String {
    let (s, sc) = match &r.start {
        Bound::Included(k) => (go_bytes(k), true),
        Bound::Excluded(k) => (go_bytes(k), false),
        Bound::Unbounded => ("\"\"".into(), true),
    };
    let (e, ec) = match &r.end {
        Bound::Included(k) => (go_bytes(k), true),
        Bound::Excluded(k) => (go_bytes(k), false),
        Bound::Unbounded => ("\"\"".into(), false),
    };
    let f = match (sc, ec) {
        (true, false) => "NewClosedOpenRange",
        (true, true) => "NewClosedRange",
        (false, false) => "NewOpenRange",
        (false, true) => "NewOpenClosedRange",
    };
    format!("bigtable.{f}({s}, {e})")
}

/// A Go program around `body` (statements using `ctx` and `client`, a `*bigtable.Client`, or
/// `admin`, a `*bigtable.AdminClient`): `package main`, the imports the body uses (Go refuses
/// an unused one), and a `main` that opens the client and closes it.
pub(super) fn go_program(body: &str) -> String {
    let admin = body.contains("admin.");
    let mut out = String::from("package main\n\nimport (\n\t\"context\"\n");
    if body.contains("fmt.") {
        out.push_str("\t\"fmt\"\n");
    }
    if body.contains("time.") {
        out.push_str("\t\"time\"\n");
    }
    out.push_str(
        "\n\t\"cloud.google.com/go/bigtable\"\n)\n\nfunc main() {\n\tctx := context.Background()\n",
    );
    if admin {
        out.push_str("\tadmin, err := bigtable.NewAdminClient(ctx, \"my-project\", \"my-instance\")\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\tdefer admin.Close()\n");
    } else {
        out.push_str("\tclient, err := bigtable.NewClient(ctx, \"my-project\", \"my-instance\")\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\tdefer client.Close()\n");
    }
    for line in body.lines() {
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "\t{line}");
        }
    }
    out.push_str("}\n");
    out
}

/// Go's check of the error `err` holds.
pub(super) const GO_CHECK: &str = "if err != nil {\n\tpanic(err)\n}\n";

pub(super) fn go_read(table: &str, r: &ReadRowsRequest) -> String {
    let set = if r.row_set.is_all() {
        "bigtable.InfiniteRange(\"\")".to_string()
    } else if r.row_set.row_ranges.is_empty() {
        let keys: Vec<_> = r.row_set.row_keys.iter().map(|k| go_bytes(k)).collect();
        format!("bigtable.RowList{{{}}}", keys.join(", "))
    } else {
        let ranges: Vec<_> = r
            .row_set
            .row_keys
            .iter()
            .map(|k| format!("bigtable.NewClosedRange({0}, {0})", go_bytes(k)))
            .chain(r.row_set.row_ranges.iter().map(go_range))
            .collect();
        format!("bigtable.RowRangeList{{{}}}", ranges.join(", "))
    };
    let mut opts = String::new();
    if r.rows_limit > 0 {
        let _ = write!(opts, ",\n\tbigtable.LimitRows({})", r.rows_limit);
    }
    if r.filter != RowFilter::PassAll {
        let _ = write!(opts, ",\n\tbigtable.RowFilter({})", go_filter(&r.filter));
    }
    if r.reversed {
        opts.push_str(",\n\tbigtable.ReverseScan()");
    }
    go_program(&format!(
        "tbl := client.Open({})\nerr = tbl.ReadRows(ctx, {set}, func(row bigtable.Row) bool {{\n\tfmt.Println(row.Key(), row)\n\treturn true\n}}{opts})\n{GO_CHECK}",
        quoted(table, true)
    ))
}

pub(super) fn go_write(table: &str, key: &[u8], ms: &[Mutation]) -> String {
    let mut m = "mut := bigtable.NewMutation()\n".to_string();
    for x in ms {
        let _ = match x {
            Mutation::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } => writeln!(
                m,
                "mut.Set({}, {}, bigtable.Timestamp({timestamp_micros}), []byte({}))",
                quoted(family, true),
                go_bytes(qualifier),
                go_bytes(value)
            ),
            Mutation::DeleteFromColumn {
                family,
                qualifier,
                time_range,
            } => {
                if time_range.start_micros == 0 && time_range.end_micros.is_none() {
                    writeln!(
                        m,
                        "mut.DeleteCellsInColumn({}, {})",
                        quoted(family, true),
                        go_bytes(qualifier)
                    )
                } else {
                    writeln!(
                        m,
                        "mut.DeleteTimestampRange({}, {}, bigtable.Timestamp({}), bigtable.Timestamp({}))",
                        quoted(family, true),
                        go_bytes(qualifier),
                        time_range.start_micros,
                        time_range.end_micros.unwrap_or(0)
                    )
                }
            }
            Mutation::DeleteFromFamily { family } => {
                writeln!(m, "mut.DeleteCellsInFamily({})", quoted(family, true))
            }
            Mutation::DeleteFromRow => writeln!(m, "mut.DeleteRow()"),
            other => writeln!(m, "// {other:?}"),
        };
    }
    go_program(&format!(
        "tbl := client.Open({})\n{m}err = tbl.Apply(ctx, {}, mut)\n{GO_CHECK}",
        quoted(table, true),
        go_bytes(key)
    ))
}

pub(super) fn go_gc(rule: &GcRule) -> String {
    let list = |rs: &[GcRule]| rs.iter().map(go_gc).collect::<Vec<_>>().join(", ");
    match rule {
        GcRule::Never => "bigtable.NoGcPolicy()".into(),
        GcRule::MaxNumVersions(n) => format!("bigtable.MaxVersionsPolicy({n})"),
        GcRule::MaxAge { micros } => {
            format!("bigtable.MaxAgePolicy({micros} * time.Microsecond)")
        }
        GcRule::Union(rs) => format!("bigtable.UnionPolicy({})", list(rs)),
        GcRule::Intersection(rs) => format!("bigtable.IntersectionPolicy({})", list(rs)),
    }
}

pub(super) fn go_admin(op: &AdminOp<'_>) -> String {
    let body = match op {
        AdminOp::CreateTable { table, families } => {
            let mut s = format!(
                "err = admin.CreateTableFromConf(ctx, &bigtable.TableConf{{\n\tTableID: {},\n\tFamilies: map[string]bigtable.GCPolicy{{\n",
                quoted(table, true)
            );
            for (f, r) in *families {
                let _ = writeln!(s, "\t\t{}: {},", quoted(f, true), go_gc(r));
            }
            s + "\t},\n})\n"
        }
        AdminOp::SetGcRule {
            table,
            family,
            rule,
        } => format!(
            "err = admin.SetGCPolicy(ctx, {}, {}, {})\n",
            quoted(table, true),
            quoted(family, true),
            go_gc(rule)
        ),
        AdminOp::DeleteTable { table } => {
            format!("err = admin.DeleteTable(ctx, {})\n", quoted(table, true))
        }
    };
    go_program(&format!("{body}{GO_CHECK}"))
}
