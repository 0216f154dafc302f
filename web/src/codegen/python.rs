//! Python snippets: Google's `google.cloud.bigtable.data` client and Sparsetable's module
//! (the same calls, another import), for reads, writes and admin operations.

use super::*;

/// Python names used by a snippet, for its import line.
pub(super) struct Py {
    google: bool,
    names: BTreeSet<&'static str>,
    datetime: bool,
}

impl Py {
    fn name(&mut self, n: &'static str) -> String {
        self.names.insert(n);
        n.to_string()
    }

    /// A filter class: `row_filters.X` for Google's client (the module holds them), `X`
    /// imported from `sparsetable`.
    fn filter(&mut self, n: &'static str) -> String {
        if self.google {
            self.names.insert("row_filters");
            format!("row_filters.{n}")
        } else {
            self.name(n)
        }
    }

    fn header(&self, body: &str) -> String {
        let mut out = String::new();
        if self.datetime {
            out.push_str("from datetime import datetime, timezone\n");
        }
        let names: Vec<&str> = self.names.iter().copied().collect();
        if self.google {
            let _ = writeln!(
                out,
                "from google.cloud.bigtable.data import {}\n\nclient = BigtableDataClient(project=\"my-project\")",
                names.join(", ")
            );
        } else {
            let _ = writeln!(
                out,
                "from sparsetable import {}\n\nclient = BigtableDataClient()  # in-process engine",
                names.join(", ")
            );
        }
        out.push_str(body);
        out
    }

    fn filter_expr(&mut self, f: &RowFilter) -> String {
        let list = |py: &mut Py, fs: &[RowFilter]| {
            fs.iter()
                .map(|f| py.filter_expr(f))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let bound = |b: &Bound<Vec<u8>>| match b {
            Bound::Included(k) => (py_bytes(k), "True"),
            Bound::Excluded(k) => (py_bytes(k), "False"),
            Bound::Unbounded => ("None".to_string(), "True"),
        };
        match f {
            RowFilter::PassAll => format!("{}(True)", self.filter("PassAllFilter")),
            RowFilter::BlockAll => format!("{}(True)", self.filter("BlockAllFilter")),
            RowFilter::Sink => format!("{}(True)", self.filter("SinkFilter")),
            RowFilter::Chain(fs) => {
                let n = self.filter("RowFilterChain");
                format!("{n}(filters=[{}])", list(self, fs))
            }
            RowFilter::Interleave(fs) => {
                let n = self.filter("RowFilterUnion");
                format!("{n}(filters=[{}])", list(self, fs))
            }
            RowFilter::Condition {
                predicate,
                true_filter,
                false_filter,
            } => {
                let n = self.filter("ConditionalRowFilter");
                let p = self.filter_expr(predicate);
                let t = true_filter
                    .as_ref()
                    .map_or("None".into(), |f| self.filter_expr(f));
                let e = false_filter
                    .as_ref()
                    .map_or("None".into(), |f| self.filter_expr(f));
                format!("{n}({p}, true_filter={t}, false_filter={e})")
            }
            RowFilter::RowKeyRegex(r) => {
                format!("{}({})", self.filter("RowKeyRegexFilter"), py_bytes(r))
            }
            RowFilter::RowSample(p) => format!("{}({p})", self.filter("RowSampleFilter")),
            RowFilter::FamilyNameRegex(r) => format!(
                "{}({})",
                self.filter("FamilyNameRegexFilter"),
                quoted(r, false)
            ),
            RowFilter::ColumnQualifierRegex(r) => format!(
                "{}({})",
                self.filter("ColumnQualifierRegexFilter"),
                py_bytes(r)
            ),
            RowFilter::ColumnRange { family, start, end } => {
                let (s, si) = bound(start);
                let (e, ei) = bound(end);
                format!(
                    "{}({}, start_qualifier={s}, end_qualifier={e}, inclusive_start={si}, inclusive_end={ei})",
                    self.filter("ColumnRangeFilter"),
                    quoted(family, false)
                )
            }
            RowFilter::TimestampRange {
                start_micros,
                end_micros,
            } => {
                self.datetime = true;
                let end = if *end_micros == 0 {
                    "None".into()
                } else {
                    py_time(*end_micros)
                };
                format!(
                    "{}(start={}, end={end})",
                    self.filter("TimestampRangeFilter"),
                    py_time(*start_micros)
                )
            }
            RowFilter::ValueRegex(r) => {
                format!("{}({})", self.filter("ValueRegexFilter"), py_bytes(r))
            }
            RowFilter::ValueRange { start, end } => {
                let (s, si) = bound(start);
                let (e, ei) = bound(end);
                format!(
                    "{}(start_value={s}, end_value={e}, inclusive_start={si}, inclusive_end={ei})",
                    self.filter("ValueRangeFilter")
                )
            }
            RowFilter::CellsPerRowOffset(n) => {
                format!("{}({n})", self.filter("CellsRowOffsetFilter"))
            }
            RowFilter::CellsPerRowLimit(n) => {
                format!("{}({n})", self.filter("CellsRowLimitFilter"))
            }
            RowFilter::CellsPerColumnLimit(n) => {
                format!("{}({n})", self.filter("CellsColumnLimitFilter"))
            }
            RowFilter::StripValue => {
                format!("{}(True)", self.filter("StripValueTransformerFilter"))
            }
            RowFilter::ApplyLabel(l) => {
                format!("{}({})", self.filter("ApplyLabelFilter"), quoted(l, false))
            }
            RowFilter::ValueBitmask(_) => {
                "None  # valueBitmaskFilter is a Sparsetable extension, not in this client".into()
            }
        }
    }
}

pub(super) fn py_range(py: &mut Py, r: &RowRange) -> String {
    let n = py.name("RowRange");
    let mut args = Vec::new();
    match &r.start {
        Bound::Included(k) => args.push(format!("start_key={}", py_bytes(k))),
        Bound::Excluded(k) => {
            args.push(format!("start_key={}", py_bytes(k)));
            args.push("start_is_inclusive=False".into());
        }
        Bound::Unbounded => {}
    }
    match &r.end {
        Bound::Included(k) => {
            args.push(format!("end_key={}", py_bytes(k)));
            args.push("end_is_inclusive=True".into());
        }
        Bound::Excluded(k) => args.push(format!("end_key={}", py_bytes(k))),
        Bound::Unbounded => {}
    }
    format!("{n}({})", args.join(", "))
}

pub(super) fn python_read(table: &str, r: &ReadRowsRequest, google: bool) -> String {
    let mut py = Py {
        google,
        names: BTreeSet::new(),
        datetime: false,
    };
    py.name("BigtableDataClient");
    let q = py.name("ReadRowsQuery");
    let mut args = Vec::new();
    if !r.row_set.row_keys.is_empty() {
        let keys: Vec<_> = r.row_set.row_keys.iter().map(|k| py_bytes(k)).collect();
        args.push(format!("row_keys=[{}]", keys.join(", ")));
    }
    if !r.row_set.row_ranges.is_empty() {
        let ranges: Vec<_> = r
            .row_set
            .row_ranges
            .iter()
            .map(|x| py_range(&mut py, x))
            .collect();
        args.push(format!("row_ranges=[{}]", ranges.join(", ")));
    }
    if r.rows_limit > 0 {
        args.push(format!("limit={}", r.rows_limit));
    }
    if r.filter != RowFilter::PassAll {
        args.push(format!("row_filter={}", py.filter_expr(&r.filter)));
    }
    if r.reversed {
        if google {
            return python_reversed(table, r);
        }
        // Sparsetable's query takes the Data API's reversed flag (Google's data client does
        // not), so the scan is a true reversed one: with a limit it keeps the last rows.
        args.push("reversed=True".into());
    }
    let mut body = format!(
        "table = client.get_table(\"my-instance\", {})\nquery = {q}({})\n",
        quoted(table, false),
        args.join(", ")
    );
    body.push_str("for row in table.read_rows(query):\n    print(row.row_key, [(c.family, c.qualifier, c.value) for c in row.cells])\n");
    py.header(&body)
}

/// A reversed scan in Python: Google's data client has no reversed flag (python-bigtable
/// issue #1063), so the request goes through the generated `bigtable_v2` client, which has
/// the proto's `reversed` field; the data client's filter classes give the filter's proto.
pub(super) fn python_reversed(table: &str, r: &ReadRowsRequest) -> String {
    let mut py = Py {
        google: true,
        names: BTreeSet::new(),
        datetime: false,
    };
    let mut args = alloc::vec![format!(
        "table_name=\"projects/my-project/instances/my-instance/tables/{}\"",
        table.replace(['"', '\\'], "")
    )];
    if !r.row_set.is_all() {
        let keys: Vec<_> = r.row_set.row_keys.iter().map(|k| py_bytes(k)).collect();
        let ranges: Vec<_> = r
            .row_set
            .row_ranges
            .iter()
            .map(|x| {
                let a = range_fields(x, PY_RANGE_FIELDS, "=", py_bytes);
                format!("bigtable_v2.RowRange({})", a.join(", "))
            })
            .collect();
        args.push(format!(
            "rows=bigtable_v2.RowSet(row_keys=[{}], row_ranges=[{}])",
            keys.join(", "),
            ranges.join(", ")
        ));
    }
    if r.filter != RowFilter::PassAll {
        args.push(format!("filter={}._to_pb()", py.filter_expr(&r.filter)));
    }
    if r.rows_limit > 0 {
        args.push(format!("rows_limit={}", r.rows_limit));
    }
    args.push("reversed=True".into());
    let mut out = String::new();
    if py.datetime {
        out.push_str("from datetime import datetime, timezone\n");
    }
    out.push_str("from google.cloud import bigtable_v2\n");
    if !py.names.is_empty() {
        out.push_str("from google.cloud.bigtable.data import row_filters\n");
    }
    out.push_str("\n# google.cloud.bigtable.data's ReadRowsQuery has no reversed scan (python-bigtable\n# issue #1063); the generated bigtable_v2 client sends the request's reversed flag.\nclient = bigtable_v2.BigtableClient()\n");
    let _ = write!(
        out,
        "request = bigtable_v2.ReadRowsRequest(\n    {},\n)\nfor response in client.read_rows(request=request):\n    for chunk in response.chunks:  # cells, newest row first\n        print(chunk.row_key, chunk.family_name, chunk.qualifier, chunk.value)\n",
        args.join(",\n    ")
    );
    out
}

pub(super) fn python_write(table: &str, key: &[u8], ms: &[Mutation], google: bool) -> String {
    let mut py = Py {
        google,
        names: BTreeSet::new(),
        datetime: false,
    };
    py.name("BigtableDataClient");
    let list: Vec<String> = ms
        .iter()
        .map(|m| match m {
            Mutation::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } => {
                let n = py.mutation("SetCell");
                format!(
                    "{n}({}, {}, {}, timestamp_micros={timestamp_micros})",
                    quoted(family, false),
                    py_bytes(qualifier),
                    py_bytes(value)
                )
            }
            Mutation::DeleteFromColumn {
                family,
                qualifier,
                time_range,
            } => {
                let n = py.mutation("DeleteRangeFromColumn");
                let mut s = format!("{n}({}, {}", quoted(family, false), py_bytes(qualifier));
                if time_range.start_micros > 0 {
                    let _ = write!(s, ", start_timestamp_micros={}", time_range.start_micros);
                }
                if let Some(e) = time_range.end_micros {
                    let _ = write!(s, ", end_timestamp_micros={e}");
                }
                s + ")"
            }
            Mutation::DeleteFromFamily { family } => {
                let n = py.mutation("DeleteAllFromFamily");
                format!("{n}({})", quoted(family, false))
            }
            Mutation::DeleteFromRow => format!("{}()", py.mutation("DeleteAllFromRow")),
            other => format!("None  # {other:?}"),
        })
        .collect();
    let body = format!(
        "table = client.get_table(\"my-instance\", {})\ntable.mutate_row({}, [{}])\n",
        quoted(table, false),
        py_bytes(key),
        list.join(", ")
    );
    py.header(&body)
}

impl Py {
    /// A mutation class: in `google.cloud.bigtable.data.mutations` for Google's client.
    fn mutation(&mut self, n: &'static str) -> String {
        if self.google {
            self.names.insert("mutations");
            format!("mutations.{n}")
        } else {
            self.name(n)
        }
    }
}

pub(super) fn py_gc(rule: &GcRule) -> String {
    let list = |rs: &[GcRule]| rs.iter().map(py_gc).collect::<Vec<_>>().join(", ");
    match rule {
        GcRule::Never => "None".into(),
        GcRule::MaxNumVersions(n) => format!("column_family.MaxVersionsGCRule({n})"),
        GcRule::MaxAge { micros } => {
            format!("column_family.MaxAgeGCRule(datetime.timedelta(microseconds={micros}))")
        }
        GcRule::Union(rs) => format!("column_family.GCRuleUnion(rules=[{}])", list(rs)),
        GcRule::Intersection(rs) => {
            format!("column_family.GCRuleIntersection(rules=[{}])", list(rs))
        }
    }
}

pub(super) fn python_admin(op: &AdminOp<'_>, google: bool) -> String {
    let (table, body) = match op {
        AdminOp::CreateTable { table, families } => {
            let fams: Vec<String> = families
                .iter()
                .map(|(f, r)| format!("{}: {}", quoted(f, false), py_gc(r)))
                .collect();
            (
                table,
                format!("table.create(column_families={{{}}})\n", fams.join(", ")),
            )
        }
        AdminOp::SetGcRule {
            table,
            family,
            rule,
        } => (
            table,
            format!(
                "table.column_family({}, gc_rule={}).update()\n",
                quoted(family, false),
                py_gc(rule)
            ),
        ),
        AdminOp::DeleteTable { table } => (table, "table.delete()\n".into()),
    };
    let mut out = String::new();
    if body.contains("datetime.") {
        out.push_str("import datetime\n\n");
    }
    if google {
        out.push_str(if body.contains("column_family.") {
            "from google.cloud import bigtable\nfrom google.cloud.bigtable import column_family\n\nclient = bigtable.Client(project=\"my-project\", admin=True)\n"
        } else {
            "from google.cloud import bigtable\n\nclient = bigtable.Client(project=\"my-project\", admin=True)\n"
        });
    } else {
        out.push_str(if body.contains("column_family.") {
            "from sparsetable import Client, column_family\n\nclient = Client(admin=True)  # in-process engine\n"
        } else {
            "from sparsetable import Client\n\nclient = Client(admin=True)  # in-process engine\n"
        });
    }
    let _ = write!(
        out,
        "table = client.instance(\"my-instance\").table({})\n{body}",
        quoted(table, false)
    );
    out
}
