//! The snippets' unit tests: every language for reads, writes and admin operations.

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
fn a_value_past_the_literal_limit_is_a_placeholder_in_every_language() {
    let big = vec![b'x'; MAX_LITERAL_BYTES + 1];
    let ms = [Mutation::set_cell("cf", b"q".to_vec(), 1_000, big)];
    let s = write_snippets("t", b"r1", &ms);
    let wanted = format!(
        "<the {}-byte value: read it from a file>",
        MAX_LITERAL_BYTES + 1
    );
    for snippet in &s {
        assert!(
            snippet.code.len() < 4096,
            "{:?} embeds the value",
            snippet.lang
        );
        assert!(
            snippet.code.contains(&wanted) || snippet.code.contains(&hex(wanted.as_bytes())),
            "{:?} lacks the placeholder: {}",
            snippet.lang,
            snippet.code
        );
    }
    // At the limit the value is still written out.
    let ms = [Mutation::set_cell(
        "cf",
        b"q".to_vec(),
        1_000,
        vec![b'y'; MAX_LITERAL_BYTES],
    )];
    let s = write_snippets("t", b"r1", &ms);
    assert!(code(&s, Lang::Go).contains(&"y".repeat(MAX_LITERAL_BYTES)));
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
    assert!(
        java.contains("FILTERS.condition(FILTERS.interleave().filter(FILTERS.key().sample(0.5))")
    );
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
            } else if line[line.char_indices().nth(i).map_or(0, |(b, _)| b)..].starts_with(comment)
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
                || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_' || chars[i - 1] == '.'))
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
        let used =
            body[main..].contains(&format!("{n}.")) || body[main..].contains(&format!("new {n}("));
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
            Lang::PythonSparsetable => assert!(c.contains("reversed=True)") && !c.contains("raise")),
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
    assert!(
        read(RowFilter::Chain(alloc::vec![fam(), qual("q")])).ends_with("read t columns=cf:q\n")
    );
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
