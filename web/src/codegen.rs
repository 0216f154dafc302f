//! Code generation: a read or a write of the playground as the same operation written for
//! Google's clients (Python `google.cloud.bigtable.data`, Java, Go, Node.js), Sparsetable's
//! Python module and the `cbt` command.
//!
//! Pure functions of the engine's own request types ([`ReadRowsRequest`], [`Mutation`]), so
//! the snippet shows exactly what the playground ran. Where a client cannot express part of
//! a request (`cbt` has no filter language beyond a few flags; some clients have no reversed
//! scans), the snippet says so in a comment rather than silently dropping it. Bytes that are
//! not printable UTF-8 are written with each language's byte escapes.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write;
use core::ops::Bound;

use sparsetable::{GcRule, Mutation, ReadRowsRequest, RowFilter, RowRange};

extern crate alloc;

/// A language (or tool) a snippet is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Lang {
    /// Python, Google's `google.cloud.bigtable.data`.
    PythonGoogle,
    /// Python, Sparsetable's module (the same API in-process).
    PythonSparsetable,
    /// Java, `com.google.cloud.bigtable.data.v2`.
    Java,
    /// Go, `cloud.google.com/go/bigtable`.
    Go,
    /// Node.js, `@google-cloud/bigtable`.
    Node,
    /// The `cbt` command line.
    Cbt,
}

impl Lang {
    /// Every language, in the order the panel shows them.
    pub const ALL: [Lang; 6] = [
        Lang::PythonGoogle,
        Lang::PythonSparsetable,
        Lang::Java,
        Lang::Go,
        Lang::Node,
        Lang::Cbt,
    ];

    /// The tab label.
    pub fn label(self) -> &'static str {
        match self {
            Lang::PythonGoogle => "Python",
            Lang::PythonSparsetable => "Python (sparsetable)",
            Lang::Java => "Java",
            Lang::Go => "Go",
            Lang::Node => "Node.js",
            Lang::Cbt => "cbt",
        }
    }
}

/// A snippet of code.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Snippet {
    /// Its language.
    pub lang: Lang,
    /// The code.
    pub code: String,
}

/// A read of `table` in every language.
pub fn read_snippets(table: &str, request: &ReadRowsRequest) -> Vec<Snippet> {
    Lang::ALL
        .iter()
        .map(|&lang| Snippet {
            lang,
            code: match lang {
                Lang::PythonGoogle => python_read(table, request, true),
                Lang::PythonSparsetable => python_read(table, request, false),
                Lang::Java => java_read(table, request),
                Lang::Go => go_read(table, request),
                Lang::Node => node_read(table, request),
                Lang::Cbt => cbt_read(table, request),
            },
        })
        .collect()
}

/// A write of one row of `table` in every language.
pub fn write_snippets(table: &str, row_key: &[u8], mutations: &[Mutation]) -> Vec<Snippet> {
    Lang::ALL
        .iter()
        .map(|&lang| Snippet {
            lang,
            code: match lang {
                Lang::PythonGoogle => python_write(table, row_key, mutations, true),
                Lang::PythonSparsetable => python_write(table, row_key, mutations, false),
                Lang::Java => java_write(table, row_key, mutations),
                Lang::Go => go_write(table, row_key, mutations),
                Lang::Node => node_write(table, row_key, mutations),
                Lang::Cbt => cbt_write(table, row_key, mutations),
            },
        })
        .collect()
}

// ---- literals ----

/// A double-quoted literal in the C family's escapes (Python str, Java, Go, JS): printable
/// ASCII as is, `"` and `\` escaped, other characters as `\uXXXX` (or `\xNN` in `go`).
pub(crate) fn quoted(s: &str, go: bool) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            _ if go => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    let _ = write!(out, "\\x{b:02x}");
                }
            }
            _ if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
    out
}

/// Python bytes: `b"..."` with `\xNN` for anything but printable ASCII.
fn py_bytes(b: &[u8]) -> String {
    let mut out = String::from("b\"");
    for &x in b {
        match x {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b' '..=b'~' => out.push(char::from(x)),
            _ => {
                let _ = write!(out, "\\x{x:02x}");
            }
        }
    }
    out.push('"');
    out
}

/// Java: a String where the bytes are UTF-8, else `ByteString.copyFrom(new byte[] {...})`.
fn java_bytes(b: &[u8]) -> String {
    match core::str::from_utf8(b) {
        Ok(s) => quoted(s, false),
        Err(_) => format!(
            "ByteString.copyFrom(new byte[] {{{}}})",
            b.iter()
                .map(|&x| format!("(byte) {x}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Java: a `ByteString` of any bytes.
fn java_byte_string(b: &[u8]) -> String {
    match core::str::from_utf8(b) {
        Ok(s) => format!("ByteString.copyFromUtf8({})", quoted(s, false)),
        Err(_) => java_bytes(b),
    }
}

/// Go: a string literal holds any bytes.
fn go_bytes(b: &[u8]) -> String {
    let mut out = String::from("\"");
    for &x in b {
        match x {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b' '..=b'~' => out.push(char::from(x)),
            _ => {
                let _ = write!(out, "\\x{x:02x}");
            }
        }
    }
    out.push('"');
    out
}

/// JS: a string where the bytes are UTF-8, else `Buffer.from("<hex>", "hex")`.
fn js_bytes(b: &[u8]) -> String {
    match core::str::from_utf8(b) {
        Ok(s) => quoted(s, false),
        Err(_) => format!("Buffer.from(\"{}\", \"hex\")", hex(b)),
    }
}

/// Lower-case hex.
pub fn hex(b: &[u8]) -> String {
    b.iter().fold(String::new(), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}

/// A shell word: single-quoted unless it is plain.
fn sh(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"#_-.:/=@,+".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn utf8(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn py_time(micros: i64) -> String {
    format!(
        "datetime.fromtimestamp({}.{:06}, timezone.utc)",
        micros.div_euclid(1_000_000),
        micros.rem_euclid(1_000_000)
    )
}

// ---- Python ----

/// Python names used by a snippet, for its import line.
struct Py {
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

fn py_range(py: &mut Py, r: &RowRange) -> String {
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

fn python_read(table: &str, r: &ReadRowsRequest, google: bool) -> String {
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
    let mut body = format!(
        "table = client.get_table(\"my-instance\", {})\nquery = {q}({})\n",
        quoted(table, false),
        args.join(", ")
    );
    if r.reversed {
        return if google {
            python_reversed(table, r)
        } else {
            // Reading forward and reversing would return other rows than a reversed scan
            // with a limit, so the snippet says so instead.
            "# sparsetable's Python API has no reversed scan yet (nor has Google's\n# google.cloud.bigtable.data: python-bigtable issue #1063); reading forward and\n# reversing would return other rows when a limit applies. Use Java, Go or cbt.\nraise NotImplementedError(\"reversed scans\")\n".into()
        };
    }
    body.push_str("for row in table.read_rows(query):\n    print(row.row_key, [(c.family, c.qualifier, c.value) for c in row.cells])\n");
    py.header(&body)
}

/// A reversed scan in Python: Google's data client has no reversed flag (python-bigtable
/// issue #1063), so the request goes through the generated `bigtable_v2` client, which has
/// the proto's `reversed` field; the data client's filter classes give the filter's proto.
fn python_reversed(table: &str, r: &ReadRowsRequest) -> String {
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

fn python_write(table: &str, key: &[u8], ms: &[Mutation], google: bool) -> String {
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

// ---- Java ----

fn java_filter(f: &RowFilter) -> String {
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
fn java_program(body: &str) -> String {
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
const JAVA_IMPORTS: &[(&str, &str)] = &[
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

fn java_read(table: &str, r: &ReadRowsRequest) -> String {
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

fn java_write(table: &str, key: &[u8], ms: &[Mutation]) -> String {
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

// ---- Go ----

fn go_filter(f: &RowFilter) -> String {
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

fn go_range(r: &RowRange) -> String {
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
fn go_program(body: &str) -> String {
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
const GO_CHECK: &str = "if err != nil {\n\tpanic(err)\n}\n";

fn go_read(table: &str, r: &ReadRowsRequest) -> String {
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

fn go_write(table: &str, key: &[u8], ms: &[Mutation]) -> String {
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

// ---- Node.js ----

fn node_filter(f: &RowFilter) -> String {
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
fn node_program(body: &str) -> String {
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
fn js_buffer(b: &[u8]) -> String {
    match core::str::from_utf8(b) {
        Ok(s) => format!("Buffer.from({})", quoted(s, false)),
        Err(_) => format!("Buffer.from(\"{}\", \"hex\")", hex(b)),
    }
}

/// A `RowRange` message's four key fields as one language spells them (start closed, start
/// open, end closed, end open).
type RangeFields = [&'static str; 4];
const PY_RANGE_FIELDS: RangeFields = [
    "start_key_closed",
    "start_key_open",
    "end_key_closed",
    "end_key_open",
];
const JS_RANGE_FIELDS: RangeFields = [
    "startKeyClosed",
    "startKeyOpen",
    "endKeyClosed",
    "endKeyOpen",
];

/// The set fields of a range as `name{sep}{literal}` items, an unbounded side left out: the
/// one rendering of a range the generated requests of every language share.
fn range_fields(
    range: &sparsetable::RowRange,
    names: RangeFields,
    sep: &str,
    literal: impl Fn(&[u8]) -> String,
) -> Vec<String> {
    let mut out = Vec::new();
    match &range.start {
        Bound::Included(k) => out.push(format!("{}{sep}{}", names[0], literal(k))),
        Bound::Excluded(k) => out.push(format!("{}{sep}{}", names[1], literal(k))),
        Bound::Unbounded => {}
    }
    match &range.end {
        Bound::Included(k) => out.push(format!("{}{sep}{}", names[2], literal(k))),
        Bound::Excluded(k) => out.push(format!("{}{sep}{}", names[3], literal(k))),
        Bound::Unbounded => {}
    }
    out
}

/// A reversed scan in Node.js: `getRows` has no reversed option (@google-cloud/bigtable
/// 6.x), so the ReadRows request goes through the client's `request`, which has the proto's
/// `reversed` field; `Filter.parse` turns the filter shorthand into its proto.
fn node_reversed(table: &str, r: &ReadRowsRequest) -> String {
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

fn node_read(table: &str, r: &ReadRowsRequest) -> String {
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

fn node_write(table: &str, key: &[u8], ms: &[Mutation]) -> String {
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

// ---- cbt ----

const CBT: &str = "cbt -project my-project -instance my-instance";

/// A regex cbt's `columns=` can carry: text without its separators `,` and `:`.
fn cbt_column_part(r: &[u8]) -> Option<String> {
    let s = core::str::from_utf8(r).ok()?;
    (!s.is_empty() && !s.contains([',', ':'])).then(|| s.to_string())
}

/// One entry of cbt's `columns=` (`family:qualifier`, `family:` or `:qualifier`, each part a
/// regex; cbt chains a family and a qualifier filter for the first), or `None`.
fn cbt_column(f: &RowFilter) -> Option<String> {
    match f {
        RowFilter::FamilyNameRegex(r) => Some(format!("{}:", cbt_column_part(r.as_bytes())?)),
        RowFilter::ColumnQualifierRegex(q) => Some(format!(":{}", cbt_column_part(q)?)),
        RowFilter::Chain(fs) => {
            match fs.as_slice() {
                [RowFilter::FamilyNameRegex(f), RowFilter::ColumnQualifierRegex(q)]
                | [RowFilter::ColumnQualifierRegex(q), RowFilter::FamilyNameRegex(f)] => Some(
                    format!("{}:{}", cbt_column_part(f.as_bytes())?, cbt_column_part(q)?),
                ),
                _ => None,
            }
        }
        _ => None,
    }
}

/// cbt's `columns=` for a filter: one column entry, or an interleave of them (cbt
/// interleaves its entries).
fn cbt_columns(f: &RowFilter) -> Option<String> {
    match f {
        RowFilter::Interleave(fs) if !fs.is_empty() => {
            let cols: Option<Vec<String>> = fs.iter().map(cbt_column).collect();
            Some(cols?.join(","))
        }
        _ => cbt_column(f),
    }
}

/// The `read` flags a filter maps to, or `None` when `cbt` cannot express it.
fn cbt_filter_flags(f: &RowFilter, flags: &mut Vec<String>) -> bool {
    if let Some(cols) = cbt_columns(f) {
        // cbt takes one columns= flag.
        if flags.iter().any(|f| f.starts_with("columns=")) {
            return false;
        }
        flags.push(format!("columns={}", sh(&cols)));
        return true;
    }
    match f {
        RowFilter::PassAll => true,
        // Every member of a chain applies: map all that can be, report if any cannot. A
        // family and a qualifier filter in one chain are one `columns=family:qualifier`.
        RowFilter::Chain(fs) => {
            let family = fs
                .iter()
                .position(|f| matches!(f, RowFilter::FamilyNameRegex(_)));
            let qualifier = fs
                .iter()
                .position(|f| matches!(f, RowFilter::ColumnQualifierRegex(_)));
            let mut rest: Vec<&RowFilter> = fs.iter().collect();
            if let (Some(a), Some(b)) = (family, qualifier) {
                let pair = RowFilter::Chain(alloc::vec![fs[a].clone(), fs[b].clone()]);
                if !cbt_filter_flags(&pair, flags) {
                    return false;
                }
                rest = fs
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != a && *i != b)
                    .map(|(_, f)| f)
                    .collect();
            }
            // Not `all`: it would stop at the first unmapped member and drop later flags.
            let mapped: Vec<bool> = rest.iter().map(|f| cbt_filter_flags(f, flags)).collect();
            mapped.into_iter().all(|ok| ok)
        }
        RowFilter::RowKeyRegex(r) => {
            flags.push(format!("regex={}", sh(&utf8(r))));
            true
        }
        RowFilter::CellsPerColumnLimit(n) => {
            flags.push(format!("cells-per-column={n}"));
            true
        }
        _ => false,
    }
}

fn cbt_read(table: &str, r: &ReadRowsRequest) -> String {
    let mut notes = Vec::new();
    let set = &r.row_set;
    let mut flags = Vec::new();
    if set.row_keys.len() == 1 && set.row_ranges.is_empty() && r.filter == RowFilter::PassAll {
        return format!(
            "{CBT} lookup {} {}\n",
            sh(table),
            sh(&utf8(&set.row_keys[0]))
        );
    }
    if !set.row_keys.is_empty() {
        notes.push("cbt read takes no list of row keys: use one lookup per key");
    }
    match set.row_ranges.as_slice() {
        [] => {}
        [range] => {
            let prefix_of = |start: &[u8]| {
                sparsetable::RowRange::prefix(start.to_vec()) == *range && !start.is_empty()
            };
            match (&range.start, &range.end) {
                (Bound::Included(s), _) if prefix_of(s) => {
                    flags.push(format!("prefix={}", sh(&utf8(s))));
                }
                (start, end) => {
                    match start {
                        Bound::Included(s) => flags.push(format!("start={}", sh(&utf8(s)))),
                        Bound::Excluded(_) => notes.push("cbt's start= is inclusive"),
                        Bound::Unbounded => {}
                    }
                    match end {
                        Bound::Excluded(e) => flags.push(format!("end={}", sh(&utf8(e)))),
                        Bound::Included(_) => notes.push("cbt's end= is exclusive"),
                        Bound::Unbounded => {}
                    }
                }
            }
        }
        _ => notes.push("cbt read takes one range: run one read per range"),
    }
    if !cbt_filter_flags(&r.filter, &mut flags) {
        notes.push("cbt cannot express this filter (only regex=, columns= and cells-per-column=)");
    }
    if r.rows_limit > 0 {
        flags.push(format!("count={}", r.rows_limit));
    }
    if r.reversed {
        flags.push("reversed=true".into());
    }
    let mut out = String::new();
    for n in notes {
        let _ = writeln!(out, "# {n}");
    }
    let _ = write!(out, "{CBT} read {}", sh(table));
    for f in flags {
        let _ = write!(out, " {f}");
    }
    out.push('\n');
    out
}

fn cbt_write(table: &str, key: &[u8], ms: &[Mutation]) -> String {
    let (t, k) = (sh(table), sh(&utf8(key)));
    let mut out = String::new();
    for m in ms {
        let _ = match m {
            Mutation::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } => writeln!(
                out,
                "{CBT} set {t} {k} {}",
                sh(&format!(
                    "{family}:{}={}@{timestamp_micros}",
                    utf8(qualifier),
                    utf8(value)
                ))
            ),
            Mutation::DeleteFromColumn {
                family,
                qualifier,
                time_range,
            } => {
                if time_range.start_micros != 0 || time_range.end_micros.is_some() {
                    writeln!(
                        out,
                        "# cbt deletes whole columns; it cannot delete one version"
                    )
                } else {
                    writeln!(
                        out,
                        "{CBT} deletecolumn {t} {k} {} {}",
                        sh(family),
                        sh(&utf8(qualifier))
                    )
                }
            }
            Mutation::DeleteFromFamily { family } => writeln!(
                out,
                "# cbt cannot delete one family of a row (its deletefamily drops {} from the table)",
                sh(family)
            ),
            Mutation::DeleteFromRow => writeln!(out, "{CBT} deleterow {t} {k}"),
            other => writeln!(out, "# {other:?}"),
        };
    }
    out
}

// ---- admin operations ----

/// A table-admin operation the playground ran.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AdminOp<'a> {
    /// Create a table with these families and their GC rules.
    CreateTable {
        /// The table.
        table: &'a str,
        /// Its families, each with its rule.
        families: &'a [(String, GcRule)],
    },
    /// Replace one family's GC rule.
    SetGcRule {
        /// The table.
        table: &'a str,
        /// The family.
        family: &'a str,
        /// The new rule.
        rule: &'a GcRule,
    },
    /// Delete a table.
    DeleteTable {
        /// The table.
        table: &'a str,
    },
}

/// An admin operation in every language: the table-admin clients of Google's libraries
/// (Python's classic `google.cloud.bigtable` admin API, which Sparsetable's module mirrors),
/// and cbt's `createtable`, `setgcpolicy` and `deletetable`.
pub fn admin_snippets(op: &AdminOp<'_>) -> Vec<Snippet> {
    Lang::ALL
        .iter()
        .map(|&lang| Snippet {
            lang,
            code: match lang {
                Lang::PythonGoogle => python_admin(op, true),
                Lang::PythonSparsetable => python_admin(op, false),
                Lang::Java => java_admin(op),
                Lang::Go => go_admin(op),
                Lang::Node => node_admin(op),
                Lang::Cbt => cbt_admin(op),
            },
        })
        .collect()
}

fn py_gc(rule: &GcRule) -> String {
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

fn python_admin(op: &AdminOp<'_>, google: bool) -> String {
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

fn java_gc(rule: &GcRule) -> String {
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

fn java_admin(op: &AdminOp<'_>) -> String {
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

fn go_gc(rule: &GcRule) -> String {
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

fn go_admin(op: &AdminOp<'_>) -> String {
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

/// The Node client's rule object (`versions`, `age`, one nested `rule`, joined by `union`
/// or `intersection`), or `None` where that shape cannot hold the rule.
fn node_gc(rule: &GcRule) -> Option<String> {
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

fn node_admin(op: &AdminOp<'_>) -> String {
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

/// cbt's duration: the largest unit that divides it (cbt's smallest is ms).
fn cbt_duration(micros: i64) -> Option<String> {
    if micros <= 0 || micros % 1000 != 0 {
        return None;
    }
    let ms = micros / 1000;
    Some(
        [
            ("d", 86_400_000),
            ("h", 3_600_000),
            ("m", 60_000),
            ("s", 1000),
        ]
        .iter()
        .find(|(_, unit)| ms % unit == 0)
        .map_or(format!("{ms}ms"), |(name, unit)| {
            format!("{}{name}", ms / unit)
        }),
    )
}

/// cbt's policy expression: leaves joined by `and` / `or`, read left to right, so only the
/// first member of a group may be a group itself; `None` when the rule needs more.
fn cbt_gc(rule: &GcRule) -> Option<String> {
    match rule {
        GcRule::Never => Some("never".into()),
        GcRule::MaxNumVersions(n) => Some(format!("maxversions={n}")),
        GcRule::MaxAge { micros } => Some(format!("maxage={}", cbt_duration(*micros)?)),
        GcRule::Union(rs) | GcRule::Intersection(rs) => {
            let op = if matches!(rule, GcRule::Union(_)) {
                " or "
            } else {
                " and "
            };
            let (first, rest) = rs.split_first()?;
            let mut out = match first {
                GcRule::Never => return None,
                other => cbt_gc(other)?,
            };
            for r in rest {
                match r {
                    GcRule::MaxNumVersions(_) | GcRule::MaxAge { .. } => {
                        out.push_str(op);
                        out.push_str(&cbt_gc(r)?);
                    }
                    _ => return None,
                }
            }
            Some(out)
        }
    }
}

fn cbt_admin(op: &AdminOp<'_>) -> String {
    match op {
        AdminOp::CreateTable { table, families } => {
            let mut notes = String::new();
            let fams: Vec<String> = families
                .iter()
                .map(|(f, r)| match (r, cbt_gc(r)) {
                    (GcRule::Never, _) => f.clone(),
                    (_, Some(p)) => format!("{f}:{p}"),
                    (_, None) => {
                        notes.push_str("# cbt's policy syntax cannot hold this GC rule (left to right, no groups after the first)\n");
                        f.clone()
                    }
                })
                .collect();
            let mut out = format!("{notes}{CBT} createtable {}", sh(table));
            if !fams.is_empty() {
                let _ = write!(out, " {}", sh(&format!("families={}", fams.join(","))));
            }
            out + "\n"
        }
        AdminOp::SetGcRule {
            table,
            family,
            rule,
        } => match cbt_gc(rule) {
            Some(p) => format!("{CBT} setgcpolicy {} {} {p}\n", sh(table), sh(family)),
            None => "# cbt's policy syntax cannot hold this GC rule (left to right, no groups after the first)\n".into(),
        },
        AdminOp::DeleteTable { table } => format!("{CBT} deletetable {}\n", sh(table)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparsetable::{RowSet, TimestampRange};

    fn code(snippets: &[Snippet], lang: Lang) -> &str {
        &snippets.iter().find(|s| s.lang == lang).unwrap().code
    }

    /// Whether `expected`'s lines appear in `code`, consecutively, ignoring indentation.
    fn has_lines(code: &str, expected: &str) -> bool {
        let code: Vec<&str> = code.lines().map(str::trim).collect();
        let want: Vec<&str> = expected.lines().map(str::trim).collect();
        code.windows(want.len()).any(|w| w == want.as_slice())
    }

    fn prefix_read() -> ReadRowsRequest {
        ReadRowsRequest {
            row_set: RowSet {
                row_keys: Vec::new(),
                row_ranges: alloc::vec![RowRange::prefix(b"user#".to_vec())],
            },
            filter: RowFilter::Chain(alloc::vec![
                RowFilter::FamilyNameRegex("cf".into()),
                RowFilter::CellsPerColumnLimit(1),
            ]),
            rows_limit: 10,
            reversed: false,
        }
    }

    #[test]
    fn a_prefix_read_with_a_chain_in_every_language() {
        let s = read_snippets("users", &prefix_read());
        assert_eq!(s.len(), Lang::ALL.len());
        let py = code(&s, Lang::PythonGoogle);
        assert!(py.starts_with("from google.cloud.bigtable.data import BigtableDataClient, ReadRowsQuery, RowRange, row_filters\n"), "{py}");
        assert!(py.contains("query = ReadRowsQuery(row_ranges=[RowRange(start_key=b\"user#\", end_key=b\"user$\")], limit=10, row_filter=row_filters.RowFilterChain(filters=[row_filters.FamilyNameRegexFilter(\"cf\"), row_filters.CellsColumnLimitFilter(1)]))"), "{py}");
        let st = code(&s, Lang::PythonSparsetable);
        assert!(st.starts_with("from sparsetable import BigtableDataClient, CellsColumnLimitFilter, FamilyNameRegexFilter, ReadRowsQuery, RowFilterChain, RowRange\n"), "{st}");
        assert!(has_lines(code(&s, Lang::Java), ".range(ByteStringRange.unbounded().startClosed(\"user#\").endOpen(\"user$\"))\n    .limit(10)\n    .filter(FILTERS.chain().filter(FILTERS.family().regex(\"cf\")).filter(FILTERS.limit().cellsPerColumn(1)));"));
        assert!(code(&s, Lang::Go).contains("tbl.ReadRows(ctx, bigtable.RowRangeList{bigtable.NewClosedOpenRange(\"user#\", \"user$\")}"));
        assert!(code(&s, Lang::Go).contains("bigtable.RowFilter(bigtable.ChainFilters(bigtable.FamilyFilter(\"cf\"), bigtable.LatestNFilter(1)))"));
        assert!(code(&s, Lang::Node).contains("await table.getRows({ranges: [{start: {value: \"user#\", inclusive: true}, end: {value: \"user$\", inclusive: false}}], limit: 10, filter: [{family: \"cf\"}, {column: {cellLimit: 1}}]})"));
        // cbt's columns= carries the family filter.
        assert_eq!(
            code(&s, Lang::Cbt),
            "cbt -project my-project -instance my-instance read users prefix=user# columns=cf: cells-per-column=1 count=10\n"
        );
    }

    #[test]
    fn cbt_reads_map_to_its_flags_and_lookup() {
        let r = ReadRowsRequest {
            row_set: RowSet {
                row_keys: Vec::new(),
                row_ranges: alloc::vec![RowRange {
                    start: Bound::Included(b"a".to_vec()),
                    end: Bound::Excluded(b"m".to_vec()),
                }],
            },
            filter: RowFilter::RowKeyRegex(b"a.*".to_vec()),
            ..ReadRowsRequest::default()
        };
        assert_eq!(
            cbt_read("t", &r),
            "cbt -project my-project -instance my-instance read t start=a end=m regex='a.*'\n"
        );
        let one = ReadRowsRequest {
            row_set: RowSet::single(b"k 1".to_vec()),
            ..ReadRowsRequest::default()
        };
        assert_eq!(
            cbt_read("t", &one),
            "cbt -project my-project -instance my-instance lookup t 'k 1'\n"
        );
    }

    #[test]
    fn writes_and_deletes_in_every_language() {
        let ms = [
            Mutation::set_cell("cf", b"q".to_vec(), 1_000, b"v\xff".to_vec()),
            Mutation::DeleteFromColumn {
                family: "cf".into(),
                qualifier: b"q".to_vec(),
                time_range: TimestampRange {
                    start_micros: 1_000,
                    end_micros: Some(2_000),
                },
            },
            Mutation::DeleteFromFamily {
                family: "meta".into(),
            },
            Mutation::DeleteFromRow,
        ];
        let s = write_snippets("t", b"r1", &ms);
        assert!(code(&s, Lang::PythonGoogle).contains("table.mutate_row(b\"r1\", [mutations.SetCell(\"cf\", b\"q\", b\"v\\xff\", timestamp_micros=1000), mutations.DeleteRangeFromColumn(\"cf\", b\"q\", start_timestamp_micros=1000, end_timestamp_micros=2000), mutations.DeleteAllFromFamily(\"meta\"), mutations.DeleteAllFromRow()])"));
        // A value that is not UTF-8 makes both qualifier and value ByteStrings (the overload
        // setCell(String, ByteString, long, ByteString)).
        assert!(has_lines(code(&s, Lang::Java), ".setCell(\"cf\", ByteString.copyFromUtf8(\"q\"), 1000L, ByteString.copyFrom(new byte[] {(byte) 118, (byte) 255}))\n    .deleteCells(\"cf\", ByteString.copyFromUtf8(\"q\"), TimestampRange.create(1000L, 2000L))\n    .deleteFamily(\"meta\")\n    .deleteRow();"), "{}", code(&s, Lang::Java));
        assert!(has_lines(code(&s, Lang::Go), "mut.Set(\"cf\", \"q\", bigtable.Timestamp(1000), []byte(\"v\\xff\"))\nmut.DeleteTimestampRange(\"cf\", \"q\", bigtable.Timestamp(1000), bigtable.Timestamp(2000))\nmut.DeleteCellsInFamily(\"meta\")\nmut.DeleteRow()\nerr = tbl.Apply(ctx, \"r1\", mut)"), "{}", code(&s, Lang::Go));
        assert!(code(&s, Lang::Node).contains("await table.row(\"r1\").save({\"cf\": {\"q\": {value: Buffer.from(\"76ff\", \"hex\"), timestamp: \"1000\"}}});"));
        assert!(code(&s, Lang::Node).contains("await table.row(\"r1\").delete();"));
        let cbt = code(&s, Lang::Cbt);
        assert!(cbt.contains("# cbt deletes whole columns; it cannot delete one version\n"));
        assert!(cbt.ends_with("cbt -project my-project -instance my-instance deleterow t r1\n"));
    }

    #[test]
    fn literals_escape_what_each_language_needs() {
        assert_eq!(py_bytes(b"a\"\\\x00\xff"), "b\"a\\\"\\\\\\x00\\xff\"");
        assert_eq!(quoted("é\"", false), "\"\\u00e9\\\"\"");
        assert_eq!(quoted("é", true), "\"\\xc3\\xa9\"");
        assert_eq!(sh("a b'c"), "'a b'\\''c'");
        assert_eq!(sh("cf:q=v@1"), "cf:q=v@1");
    }

    #[test]
    fn every_filter_kind_has_a_form_in_every_client_language() {
        let every = RowFilter::Condition {
            predicate: alloc::boxed::Box::new(RowFilter::Interleave(alloc::vec![
                RowFilter::RowSample(0.5),
                RowFilter::ColumnQualifierRegex(b"q".to_vec()),
                RowFilter::ValueRegex(b"v".to_vec()),
            ])),
            true_filter: Some(alloc::boxed::Box::new(RowFilter::Chain(alloc::vec![
                RowFilter::ColumnRange {
                    family: "cf".into(),
                    start: Bound::Included(b"a".to_vec()),
                    end: Bound::Excluded(b"b".to_vec()),
                },
                RowFilter::TimestampRange {
                    start_micros: 1_000,
                    end_micros: 2_000,
                },
                RowFilter::ValueRange {
                    start: Bound::Unbounded,
                    end: Bound::Included(b"z".to_vec()),
                },
                RowFilter::CellsPerRowOffset(1),
                RowFilter::CellsPerRowLimit(2),
                RowFilter::StripValue,
                RowFilter::ApplyLabel("l".into()),
            ]))),
            false_filter: Some(alloc::boxed::Box::new(RowFilter::BlockAll)),
        };
        let r = ReadRowsRequest {
            filter: every,
            ..ReadRowsRequest::default()
        };
        let s = read_snippets("t", &r);
        let py = code(&s, Lang::PythonGoogle);
        for name in [
            "ConditionalRowFilter(",
            "RowFilterUnion(",
            "RowSampleFilter(0.5)",
            "ColumnRangeFilter(\"cf\", start_qualifier=b\"a\", end_qualifier=b\"b\", inclusive_start=True, inclusive_end=False)",
            "TimestampRangeFilter(start=datetime.fromtimestamp(0.001000, timezone.utc), end=datetime.fromtimestamp(0.002000, timezone.utc))",
            "ValueRangeFilter(start_value=None, end_value=b\"z\", inclusive_start=True, inclusive_end=True)",
            "CellsRowOffsetFilter(1)",
            "CellsRowLimitFilter(2)",
            "StripValueTransformerFilter(True)",
            "ApplyLabelFilter(\"l\")",
            "false_filter=row_filters.BlockAllFilter(True)",
        ] {
            assert!(py.contains(name), "{name} in {py}");
        }
        assert!(py.starts_with("from datetime import datetime, timezone\n"));
        let java = code(&s, Lang::Java);
        assert!(java
            .contains("FILTERS.condition(FILTERS.interleave().filter(FILTERS.key().sample(0.5))"));
        assert!(java.contains(".otherwise(FILTERS.block())"));
        assert!(code(&s, Lang::Go).contains("bigtable.ConditionFilter(bigtable.InterleaveFilters("));
        assert!(code(&s, Lang::Node).contains("{condition: {test: {interleave: [{row: {sample: 0.5}}, {column: \"q\"}, {value: \"v\"}]}, pass: [{column: {family: \"cf\", start: {value: \"a\", inclusive: true}, end: {value: \"b\", inclusive: false}}}, {time: {start: new Date(1), end: new Date(2)}}"));
    }

    // ---- every snippet compiles as shown: a corpus and checks per language ----

    /// A corpus of operations: reads (prefix with a chain, keys, a reversed range with a
    /// filter, every filter kind), writes (text, bytes, deletes) and admin operations.
    pub(crate) fn corpus() -> Vec<(&'static str, Vec<Snippet>)> {
        let reversed = ReadRowsRequest {
            row_set: RowSet {
                row_keys: Vec::new(),
                row_ranges: alloc::vec![RowRange {
                    start: Bound::Included(b"user#000000".to_vec()),
                    end: Bound::Excluded(b"user#000099".to_vec()),
                }],
            },
            filter: RowFilter::Chain(alloc::vec![
                RowFilter::FamilyNameRegex("cf".into()),
                RowFilter::ColumnQualifierRegex(b"name|visits".to_vec()),
            ]),
            rows_limit: 3,
            reversed: true,
        };
        let keys = ReadRowsRequest {
            row_set: RowSet {
                row_keys: alloc::vec![b"user#000001".to_vec(), b"user#000002".to_vec()],
                row_ranges: Vec::new(),
            },
            ..ReadRowsRequest::default()
        };
        let families = [
            ("cf".to_string(), GcRule::MaxNumVersions(3)),
            (
                "m".to_string(),
                GcRule::Union(alloc::vec![
                    GcRule::MaxAge {
                        micros: 86_400_000_000
                    },
                    GcRule::MaxNumVersions(1)
                ]),
            ),
        ];
        let every_filter = every_filter_request();
        alloc::vec![
            ("read_prefix", read_snippets("snippets", &prefix_read())),
            ("read_keys", read_snippets("snippets", &keys)),
            ("read_reversed", read_snippets("snippets", &reversed)),
            (
                "read_every_filter",
                read_snippets("snippets", &every_filter)
            ),
            (
                "write_text",
                write_snippets(
                    "snippets",
                    b"user#000001",
                    &[
                        Mutation::set_cell("cf", b"name".to_vec(), 1_000, b"Ada".to_vec()),
                        Mutation::set_cell("m", b"city".to_vec(), 1_000, b"London".to_vec()),
                    ],
                ),
            ),
            (
                "write_bytes_and_deletes",
                write_snippets(
                    "snippets",
                    b"user#000002",
                    &[
                        Mutation::set_cell(
                            "cf",
                            b"visits".to_vec(),
                            2_000,
                            7i64.to_be_bytes().to_vec()
                        ),
                        Mutation::DeleteFromColumn {
                            family: "cf".into(),
                            qualifier: b"old".to_vec(),
                            time_range: TimestampRange {
                                start_micros: 1_000,
                                end_micros: None,
                            },
                        },
                        Mutation::DeleteFromFamily { family: "m".into() },
                    ],
                ),
            ),
            (
                "admin_create",
                admin_snippets(&AdminOp::CreateTable {
                    table: "snippets",
                    families: &families,
                }),
            ),
            (
                "admin_gc",
                admin_snippets(&AdminOp::SetGcRule {
                    table: "snippets",
                    family: "cf",
                    rule: &GcRule::Intersection(alloc::vec![
                        GcRule::MaxAge {
                            micros: 3_600_000_000
                        },
                        GcRule::MaxNumVersions(2)
                    ]),
                }),
            ),
            (
                "admin_delete",
                admin_snippets(&AdminOp::DeleteTable { table: "snippets" }),
            ),
        ]
    }

    fn every_filter_request() -> ReadRowsRequest {
        ReadRowsRequest {
            filter: RowFilter::Condition {
                predicate: alloc::boxed::Box::new(RowFilter::Interleave(alloc::vec![
                    RowFilter::RowSample(0.5),
                    RowFilter::ColumnQualifierRegex(b"q".to_vec()),
                ])),
                true_filter: Some(alloc::boxed::Box::new(RowFilter::Chain(alloc::vec![
                    RowFilter::TimestampRange {
                        start_micros: 1000,
                        end_micros: 2000
                    },
                    RowFilter::CellsPerRowLimit(2),
                    RowFilter::StripValue,
                ]))),
                false_filter: Some(alloc::boxed::Box::new(RowFilter::BlockAll)),
            },
            ..ReadRowsRequest::default()
        }
    }

    /// The code with string literals and comments blanked (so names inside them do not
    /// count as uses).
    fn code_only(code: &str, comment: &str) -> String {
        let mut out = String::new();
        for line in code.lines() {
            let mut in_str = false;
            let mut escaped = false;
            let mut kept = String::new();
            let chars: Vec<char> = line.chars().collect();
            let mut i = 0;
            while i < chars.len() {
                let c = chars[i];
                if in_str {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        in_str = false;
                        kept.push('"');
                    }
                } else if c == '"' {
                    in_str = true;
                    kept.push('"');
                } else if line[line.char_indices().nth(i).map_or(0, |(b, _)| b)..]
                    .starts_with(comment)
                {
                    break;
                } else {
                    kept.push(c);
                }
                i += 1;
            }
            out.push_str(&kept);
            out.push('\n');
        }
        out
    }

    fn balanced(code: &str) -> bool {
        let mut stack = Vec::new();
        for c in code.chars() {
            match c {
                '(' | '[' | '{' => stack.push(c),
                ')' | ']' | '}' => {
                    let open = match c {
                        ')' => '(',
                        ']' => '[',
                        _ => '{',
                    };
                    if stack.pop() != Some(open) {
                        return false;
                    }
                }
                _ => {}
            }
        }
        stack.is_empty()
    }

    /// Capitalised names a Java snippet uses as types or classes (not after a `.`).
    fn java_type_names(code: &str) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        let chars: Vec<char> = code.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            if chars[i].is_ascii_uppercase()
                && (i == 0
                    || !(chars[i - 1].is_alphanumeric()
                        || chars[i - 1] == '_'
                        || chars[i - 1] == '.'))
            {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                names.insert(chars[start..i].iter().collect());
            } else {
                i += 1;
            }
        }
        names
    }

    fn check_java(name: &str, code: &str) {
        let (imports, body): (Vec<&str>, Vec<&str>) =
            code.lines().partition(|l| l.starts_with("import "));
        let body = code_only(&body.join("\n"), "//");
        assert!(
            body.contains("public static void main(String[] args) throws Exception {"),
            "{name}: no main\n{code}"
        );
        assert!(balanced(&body), "{name}: unbalanced\n{code}");
        let imported: BTreeSet<String> = imports
            .iter()
            .map(|i| {
                i.trim_end_matches(';')
                    .rsplit(['.', ' '])
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .collect();
        let java_lang = ["String", "System", "Exception", "Example"];
        for used in java_type_names(&body) {
            assert!(
                imported.contains(&used) || java_lang.contains(&used.as_str()),
                "{name}: {used} is used but not imported\n{code}"
            );
        }
        for i in &imported {
            assert!(
                java_type_names(&body).contains(i),
                "{name}: {i} is imported but not used\n{code}"
            );
        }
    }

    fn check_go(name: &str, code: &str) {
        assert!(
            code.starts_with("package main\n\nimport (\n"),
            "{name}\n{code}"
        );
        let end = code.find("\n)\n").expect("import block");
        let imports: Vec<&str> = code[..end]
            .lines()
            .filter_map(|l| l.trim().strip_prefix('"')?.strip_suffix('"'))
            .collect();
        let body = code_only(&code[end + 3..], "//");
        assert!(body.contains("func main() {"), "{name}: no main\n{code}");
        assert!(balanced(&body), "{name}: unbalanced\n{code}");
        for i in &imports {
            let pkg = i.rsplit('/').next().unwrap_or(i);
            assert!(
                body.contains(&format!("{pkg}.")),
                "{name}: {i} imported and not used (a Go compile error)\n{code}"
            );
        }
        for pkg in ["fmt", "time", "context", "bigtable", "strings", "log"] {
            if body.contains(&format!("{pkg}.")) {
                assert!(
                    imports.iter().any(|i| i.ends_with(pkg)),
                    "{name}: {pkg} used, not imported\n{code}"
                );
            }
        }
        // Every declared variable is used (Go refuses unused locals).
        for decl in body
            .lines()
            .filter_map(|l| l.trim().split_once(" := ").map(|(v, _)| v))
        {
            for v in decl.split(", ").filter(|v| *v != "_") {
                assert!(
                    body.matches(v).count() >= 2,
                    "{name}: {v} declared and not used\n{code}"
                );
            }
        }
    }

    fn check_node(name: &str, code: &str) {
        let body = code_only(code, "//");
        assert!(balanced(&body), "{name}: unbalanced\n{code}");
        let main = body.find("async function main() {").expect("an async main");
        let close = body.find("\n}\n\nmain()").expect("main's end and its call");
        for (i, _) in body.match_indices("await ") {
            assert!(
                i > main && i < close,
                "{name}: await outside the async main\n{code}"
            );
        }
        let head = &body[..main];
        for n in ["Bigtable", "Filter"] {
            let imported = head.contains(&format!("{{{n}}} = require("));
            let used = body[main..].contains(&format!("{n}."))
                || body[main..].contains(&format!("new {n}("));
            assert_eq!(
                imported, used,
                "{name}: {n} imported {imported}, used {used}\n{code}"
            );
        }
    }

    fn check_python(name: &str, code: &str) {
        let body = code_only(code, "#");
        assert!(balanced(&body), "{name}: unbalanced\n{code}");
        let mut names = Vec::new();
        for l in code.lines() {
            if let Some(rest) = l.strip_prefix("from ") {
                let (_, list) = rest.split_once(" import ").expect("from x import y");
                names.extend(list.split(", ").map(str::to_string));
            } else if let Some(m) = l.strip_prefix("import ") {
                names.push(m.to_string());
            }
        }
        let rest: String = body
            .lines()
            .filter(|l| !l.starts_with("from ") && !l.starts_with("import "))
            .collect::<Vec<_>>()
            .join("\n");
        for n in &names {
            assert!(
                rest.contains(n.as_str()),
                "{name}: {n} imported and not used\n{code}"
            );
        }
        for module in [
            "row_filters",
            "mutations",
            "column_family",
            "datetime",
            "bigtable_v2",
            "bigtable",
        ] {
            if rest.contains(&format!("{module}.")) {
                assert!(
                    names.iter().any(|n| n == module),
                    "{name}: {module} used, not imported\n{code}"
                );
            }
        }
    }

    #[test]
    fn every_snippet_imports_what_it_uses_and_has_its_entry_point() {
        for (name, snippets) in corpus() {
            for s in &snippets {
                match s.lang {
                    Lang::Java => check_java(name, &s.code),
                    Lang::Go => check_go(name, &s.code),
                    Lang::Node => check_node(name, &s.code),
                    Lang::PythonGoogle | Lang::PythonSparsetable => check_python(name, &s.code),
                    Lang::Cbt => {
                        for line in s.code.lines().filter(|l| !l.starts_with('#')) {
                            assert!(line.starts_with(CBT), "{name}: {line}");
                            let words = sparsetable_console::split_args(&line[CBT.len()..])
                                .expect("shell words");
                            assert!(
                                sparsetable_console::COMMANDS
                                    .contains(&String::from_utf8_lossy(&words[0]).as_ref()),
                                "{name}: {line}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn reversed_reads_are_reversed_requests_never_forward_reads_turned_round() {
        let (_, s) = corpus()
            .into_iter()
            .find(|(n, _)| *n == "read_reversed")
            .unwrap();
        for snippet in &s {
            let c = snippet.code.as_str();
            assert!(!c.contains("[::-1]") && !c.contains(".reverse()"), "{c}");
            match snippet.lang {
                Lang::Java => assert!(c.contains(".reversed(true)")),
                Lang::Go => assert!(c.contains("bigtable.ReverseScan()")),
                Lang::Node => assert!(c.contains("reversed: true") && c.contains("Filter.parse(")),
                Lang::PythonGoogle => assert!(c.contains("reversed=True") && c.contains("._to_pb()")),
                Lang::PythonSparsetable => assert!(c.contains("raise NotImplementedError")),
                Lang::Cbt => assert_eq!(
                    c,
                    "cbt -project my-project -instance my-instance read snippets start=user#000000 end=user#000099 columns='cf:name|visits' count=3 reversed=true\n"
                ),
            }
        }
    }

    #[test]
    fn cbt_columns_carries_family_and_qualifier_filters() {
        let read = |f: RowFilter| {
            cbt_read(
                "t",
                &ReadRowsRequest {
                    filter: f,
                    ..ReadRowsRequest::default()
                },
            )
        };
        let fam = || RowFilter::FamilyNameRegex("cf".into());
        let qual = |q: &str| RowFilter::ColumnQualifierRegex(q.as_bytes().to_vec());
        assert!(read(fam()).ends_with("read t columns=cf:\n"));
        assert!(read(qual("q")).ends_with("read t columns=:q\n"));
        assert!(read(RowFilter::Chain(alloc::vec![fam(), qual("q")]))
            .ends_with("read t columns=cf:q\n"));
        assert!(read(RowFilter::Interleave(alloc::vec![
            RowFilter::Chain(alloc::vec![fam(), qual("a")]),
            qual("b")
        ]))
        .ends_with("read t columns=cf:a,:b\n"));
        // A qualifier regex with cbt's separators cannot ride in columns=.
        assert!(read(qual("a,b")).starts_with("# cbt cannot express this filter"));
        // Each form means what the console (cbt's parser) reads back.
        let mut db =
            sparsetable::Database::with_clock(sparsetable::ManualClock::new(1_700_000_000_000_000));
        let mut console = sparsetable_console::Console::new();
        for line in [
            "createtable t families=cf,m",
            "set t r cf:q=1@1000 cf:z=2@1000 m:q=3@1000",
        ] {
            assert!(!console.run_line(&mut db, line).failed);
        }
        let out = console.run_line(&mut db, "read t columns=cf:q");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("cf:q") && !text.contains("cf:z") && !text.contains("m:q"),
            "{text}"
        );
    }

    #[test]
    fn admin_operations_in_every_language() {
        let all = corpus();
        let get = |n: &str, l: Lang| {
            all.iter()
                .find(|(name, _)| *name == n)
                .and_then(|(_, s)| s.iter().find(|s| s.lang == l))
                .map(|s| s.code.clone())
                .unwrap()
        };
        assert!(get("admin_create", Lang::PythonGoogle).contains("table.create(column_families={\"cf\": column_family.MaxVersionsGCRule(3), \"m\": column_family.GCRuleUnion(rules=[column_family.MaxAgeGCRule(datetime.timedelta(microseconds=86400000000)), column_family.MaxVersionsGCRule(1)])})"));
        assert!(get("admin_create", Lang::PythonSparsetable)
            .starts_with("import datetime\n\nfrom sparsetable import Client, column_family\n"));
        assert!(has_lines(&get("admin_create", Lang::Java), "admin.createTable(CreateTableRequest.of(\"snippets\")\n.addFamily(\"cf\", GCRULES.maxVersions(3))\n.addFamily(\"m\", GCRULES.union().rule(GCRULES.maxAge(Duration.ofSeconds(86400, 0))).rule(GCRULES.maxVersions(1))));"));
        assert!(get("admin_create", Lang::Go).contains("\"m\": bigtable.UnionPolicy(bigtable.MaxAgePolicy(86400000000 * time.Microsecond), bigtable.MaxVersionsPolicy(1)),"));
        assert!(get("admin_create", Lang::Node).contains("await table.create({families: [{name: \"cf\", rule: {versions: 3}}, {name: \"m\", rule: {age: {seconds: 86400, nanos: 0}, versions: 1, union: true}}]});"));
        assert_eq!(get("admin_create", Lang::Cbt), "cbt -project my-project -instance my-instance createtable snippets 'families=cf:maxversions=3,m:maxage=1d or maxversions=1'\n");
        assert_eq!(get("admin_gc", Lang::Cbt), "cbt -project my-project -instance my-instance setgcpolicy snippets cf maxage=1h and maxversions=2\n");
        assert!(get("admin_gc", Lang::Go).contains("err = admin.SetGCPolicy(ctx, \"snippets\", \"cf\", bigtable.IntersectionPolicy(bigtable.MaxAgePolicy(3600000000 * time.Microsecond), bigtable.MaxVersionsPolicy(2)))"));
        assert!(get("admin_delete", Lang::Java).contains("admin.deleteTable(\"snippets\");"));
        assert!(get("admin_delete", Lang::PythonGoogle).ends_with("table.delete()\n"));
        // cbt's createtable and setgcpolicy read the policies back as the same rules.
        let mut db =
            sparsetable::Database::with_clock(sparsetable::ManualClock::new(1_700_000_000_000_000));
        let mut console = sparsetable_console::Console::new();
        let line = get("admin_create", Lang::Cbt);
        let out = console.run_line(&mut db, &line[CBT.len() + 1..]);
        assert!(!out.failed, "{}", out.stderr);
        let info = db.get_table("snippets").unwrap();
        let rules: Vec<(String, GcRule)> = info
            .config
            .families
            .iter()
            .map(|(n, f)| (n.clone(), f.gc_rule.clone()))
            .collect();
        assert_eq!(rules[0], ("cf".to_string(), GcRule::MaxNumVersions(3)));
        assert_eq!(
            rules[1],
            (
                "m".to_string(),
                GcRule::Union(alloc::vec![
                    GcRule::MaxAge {
                        micros: 86_400_000_000
                    },
                    GcRule::MaxNumVersions(1)
                ])
            )
        );
    }

    /// Writes the corpus to `$SPARSETABLE_SNIPPETS_DIR` (one file per snippet) for
    /// web/test/snippets.test.mjs, which runs and compiles them; without the variable it
    /// only checks the corpus builds.
    #[test]
    fn write_the_snippet_corpus_for_the_runner() {
        let mut corpus = corpus();
        // The replication lesson's snippets are compiled and parsed with the rest.
        corpus.extend(crate::lab::replication_code::corpus());
        let Some(dir) = std::env::var_os("SPARSETABLE_SNIPPETS_DIR") else {
            return;
        };
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, snippets) in corpus {
            for s in snippets {
                let file = match s.lang {
                    Lang::PythonGoogle => format!("{name}.google.py"),
                    Lang::PythonSparsetable => format!("{name}.sparsetable.py"),
                    Lang::Java => format!("{name}.java"),
                    Lang::Go => format!("{name}.go"),
                    Lang::Node => format!("{name}.js"),
                    Lang::Cbt => format!("{name}.cbt.sh"),
                };
                std::fs::write(dir.join(file), s.code).unwrap();
            }
        }
    }
}
