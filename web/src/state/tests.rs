//! The reducer's unit tests, natively: actions against a real engine on a manual clock.

use super::*;

const START: i64 = 1_700_000_000_000_000;

fn create(p: &mut Playground, table: &str, families: &str, max_versions: &str) {
    p.apply(Action::CreateTable {
        table_id: table.into(),
        families: families.into(),
        max_versions: max_versions.into(),
    });
}

fn write(p: &mut Playground, row: &str, family: &str, qualifier: &str, value: &str) {
    p.apply(Action::WriteCell {
        row_key: row.into(),
        family: family.into(),
        qualifier: qualifier.into(),
        value: value.into(),
        value_type: Default::default(),
    });
}

fn columns(p: &Playground) -> Vec<(String, Vec<u8>)> {
    p.grid
        .borrow()
        .display_columns()
        .into_iter()
        .map(|(f, q)| (f.to_string(), q.to_vec()))
        .collect()
}

fn col(f: &str, q: &str) -> (String, Vec<u8>) {
    (f.to_string(), q.as_bytes().to_vec())
}

fn keys(p: &Playground) -> Vec<Vec<u8>> {
    p.grid.borrow().rows.iter().map(|r| r.key.clone()).collect()
}

/// Row `i`'s cells in display order.
fn cells(p: &Playground, i: usize) -> Vec<Option<CellSummary>> {
    let g = p.grid.borrow();
    g.families
        .iter()
        .flat_map(|f| f.columns.iter())
        .map(|&c| g.rows[i].cell(c).cloned())
        .collect()
}

fn summary(value: &str, timestamp_micros: i64, versions: usize) -> Option<CellSummary> {
    Some(CellSummary {
        value: value.as_bytes().to_vec(),
        timestamp_micros,
        versions,
        eligible: 0,
    })
}

#[test]
fn creating_a_table_selects_it_and_lists_its_families() {
    let mut p = Playground::new(START);
    create(&mut p, "users", " cf , meta,", "");
    assert_eq!(p.error, None);
    assert_eq!(p.selected.as_deref(), Some("users"));
    assert_eq!(
        p.tables,
        vec![TableSummary {
            name: "users".into(),
            families: vec!["cf".into(), "meta".into()],
            gc_rules: vec![GcRule::Never, GcRule::Never],
        }]
    );
    let families: Vec<_> = p
        .grid
        .borrow()
        .families
        .iter()
        .map(|f| f.family.clone())
        .collect();
    assert_eq!(families, ["cf", "meta"]);
    assert!(keys(&p).is_empty());
}

#[test]
fn family_columns_follow_creation_order_not_names() {
    let mut p = Playground::new(START);
    create(&mut p, "t", "stats, profile", "");
    write(&mut p, "r", "profile", "name", "Ada");
    write(&mut p, "r", "stats", "visits", "1");
    assert_eq!(p.error, None);
    assert_eq!(p.tables[0].families, ["stats", "profile"]);
    assert_eq!(
        columns(&p),
        [col("stats", "visits"), col("profile", "name")]
    );
}

#[test]
fn a_write_shows_its_cell_at_the_clock_time_and_ticks_the_clock() {
    let mut p = Playground::new(START);
    create(&mut p, "t", "cf,meta", "");
    write(&mut p, "user#1", "cf", "name", "Ada");
    assert_eq!(p.error, None);
    assert_eq!(p.now_micros, START + WRITE_TICK_MICROS);
    assert_eq!(columns(&p), [col("cf", "name")]);
    assert_eq!(keys(&p), [b"user#1".to_vec()]);
    assert_eq!(cells(&p, 0), [summary("Ada", START, 1)]);
}

#[test]
fn rewriting_a_column_shows_the_newest_value_and_counts_versions() {
    let mut p = Playground::new(START);
    create(&mut p, "t", "cf", "");
    write(&mut p, "r", "cf", "q", "one");
    write(&mut p, "r", "cf", "q", "two");
    write(&mut p, "r", "cf", "other", "x");
    write(&mut p, "a", "cf", "q", "first row");
    assert_eq!(columns(&p), [col("cf", "other"), col("cf", "q")]);
    assert_eq!(keys(&p), [b"a".to_vec(), b"r".to_vec()]);
    assert_eq!(cells(&p, 0), [None, summary("first row", START + 3000, 1)]);
    assert_eq!(
        cells(&p, 1),
        [
            summary("x", START + 2000, 1),
            summary("two", START + 1000, 2)
        ]
    );
}

#[test]
fn the_gc_rule_of_the_form_limits_versions() {
    let mut p = Playground::new(START);
    // Immediate mode (the switch's other side): reads hide what the rule collects.
    p.apply(Action::SetGcMode { background: false });
    create(&mut p, "t", "cf", "1");
    write(&mut p, "r", "cf", "q", "one");
    write(&mut p, "r", "cf", "q", "two");
    assert_eq!(cells(&p, 0), [summary("two", START + 1000, 1)]);
}

#[test]
fn engine_errors_are_shown_and_change_nothing() {
    let mut p = Playground::new(START);
    write(&mut p, "r", "cf", "q", "v");
    assert_eq!(
        p.error.as_ref().map(|e| e.code.as_str()),
        Some("FAILED_PRECONDITION")
    );
    create(&mut p, "t", "cf", "");
    write(&mut p, "r", "nope", "q", "v");
    assert_eq!(p.error.as_ref().map(|e| e.code.as_str()), Some("NOT_FOUND"));
    assert!(p.error.as_ref().unwrap().message.contains("nope"));
    assert_eq!(
        p.now_micros, START,
        "a failed write does not tick the clock"
    );
    write(&mut p, "", "cf", "q", "v");
    assert_eq!(
        p.error.as_ref().map(|e| e.code.as_str()),
        Some("INVALID_ARGUMENT")
    );
    create(&mut p, "t", "cf", "");
    assert_eq!(
        p.error.as_ref().map(|e| e.code.as_str()),
        Some("ALREADY_EXISTS")
    );
    create(&mut p, "u", "cf", "0");
    assert_eq!(
        p.error.as_ref().map(|e| e.code.as_str()),
        Some("INVALID_ARGUMENT")
    );
    create(&mut p, "u", "cf", "many");
    assert_eq!(
        p.error.as_ref().map(|e| e.code.as_str()),
        Some("INVALID_ARGUMENT")
    );
    assert_eq!(p.tables.len(), 1);
    assert!(keys(&p).is_empty());
    p.apply(Action::DismissError);
    assert_eq!(p.error, None);
}

#[test]
fn deleting_a_row_removes_it_from_the_grid() {
    let mut p = Playground::new(START);
    create(&mut p, "t", "cf", "");
    write(&mut p, "a", "cf", "q", "1");
    write(&mut p, "b", "cf", "q", "2");
    p.apply(Action::DeleteRow(b"a".to_vec()));
    assert_eq!(keys(&p), [b"b".to_vec()]);
}

#[test]
fn selecting_a_table_shows_its_rows() {
    let mut p = Playground::new(START);
    create(&mut p, "one", "cf", "");
    write(&mut p, "r1", "cf", "q", "in one");
    create(&mut p, "two", "f", "");
    assert!(keys(&p).is_empty());
    p.apply(Action::SelectTable("one".into()));
    assert_eq!(cells(&p, 0), [summary("in one", START, 1)]);
}

#[test]
fn the_clock_control_moves_the_time_writes_use() {
    let mut p = Playground::new(START);
    create(&mut p, "t", "cf", "");
    p.apply(Action::AdvanceClock(60_000_000));
    write(&mut p, "r", "cf", "q", "v");
    assert_eq!(cells(&p, 0), [summary("v", START + 60_000_000, 1)]);
}

#[test]
fn the_drawer_shows_versions_a_max_versions_rule_hides_and_why() {
    let mut p = Playground::new(START);
    // Immediate mode (the switch's other side): reads hide what the rule collects.
    p.apply(Action::SetGcMode { background: false });
    create(&mut p, "t", "cf", "2");
    for v in ["one", "two", "three"] {
        write(&mut p, "r", "cf", "q", v);
    }
    p.apply(Action::OpenCell {
        row_key: b"r".to_vec(),
        family: "cf".into(),
        qualifier: b"q".to_vec(),
    });
    let d = p.drawer.clone().unwrap();
    assert_eq!(d.rule, "beyond max versions 2");
    let shown: Vec<_> = d
        .versions
        .iter()
        .map(|v| {
            (
                v.value.as_slice(),
                v.timestamp_micros,
                v.hidden_by.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            (&b"three"[..], START + 2000, None),
            (b"two", START + 1000, None),
            (b"one", START, Some("beyond max versions 2")),
        ]
    );
    // The grid counts what reads return.
    assert_eq!(cells(&p, 0), [summary("three", START + 2000, 2)]);
}

#[test]
fn a_looser_gc_rule_shows_at_once_and_an_age_rule_hides_old_versions() {
    let mut p = Playground::new(START);
    // Immediate mode (the switch's other side): reads hide what the rule collects.
    p.apply(Action::SetGcMode { background: false });
    create(&mut p, "t", "cf", "");
    write(&mut p, "r", "cf", "q", "old");
    p.apply(Action::AdvanceClock(8 * 86_400_000_000));
    write(&mut p, "r", "cf", "q", "new");
    let week = GcRule::MaxAge {
        micros: 7 * 86_400_000_000,
    };
    p.apply(Action::OpenCell {
        row_key: b"r".to_vec(),
        family: "cf".into(),
        qualifier: b"q".to_vec(),
    });
    assert_eq!(p.drawer.as_ref().unwrap().versions.len(), 2);
    assert_eq!(cells(&p, 0)[0].as_ref().unwrap().versions, 2);
    p.apply(Action::SetGcRule {
        family: "cf".into(),
        rule: GcRule::Union(vec![GcRule::MaxNumVersions(5), week.clone()]),
    });
    assert_eq!(p.error, None);
    assert_eq!(
        p.tables[0].gc_rules,
        [GcRule::Union(vec![GcRule::MaxNumVersions(5), week])]
    );
    assert_eq!(cells(&p, 0)[0].as_ref().unwrap().versions, 1);
    let d = p.drawer.as_ref().unwrap();
    assert_eq!(d.rule, "beyond max versions 5 or older than 7 days");
    // The new rule hides the old version (storage still holds it until a compaction).
    let hidden: Vec<_> = d.versions.iter().map(|v| v.hidden_by.as_deref()).collect();
    assert_eq!(hidden, [None, Some("older than 7 days")]);
    p.apply(Action::SetGcRule {
        family: "cf".into(),
        rule: GcRule::MaxNumVersions(0),
    });
    assert_eq!(
        p.error.as_ref().map(|e| e.code.as_str()),
        Some("INVALID_ARGUMENT")
    );
}

#[test]
fn deletes_of_a_version_a_column_a_family_and_a_row() {
    let mut p = Playground::new(START);
    create(&mut p, "t", "cf, meta", "");
    write(&mut p, "r", "cf", "q", "v1");
    write(&mut p, "r", "cf", "q", "v2");
    write(&mut p, "r", "cf", "other", "x");
    write(&mut p, "r", "meta", "m", "y");
    p.apply(Action::DeleteCellVersion {
        row_key: b"r".to_vec(),
        family: "cf".into(),
        qualifier: b"q".to_vec(),
        timestamp_micros: START + 1000,
    });
    assert_eq!(p.error, None);
    assert_eq!(cells(&p, 0)[1], summary("v1", START, 1));
    p.apply(Action::DeleteColumn {
        row_key: b"r".to_vec(),
        family: "cf".into(),
        qualifier: b"q".to_vec(),
    });
    assert_eq!(cells(&p, 0)[1], None);
    p.apply(Action::DeleteFamilyFromRow {
        row_key: b"r".to_vec(),
        family: "meta".into(),
    });
    assert_eq!(cells(&p, 0), [summary("x", START + 2000, 1), None, None]);
    let code = p.last_write.as_ref().unwrap();
    assert!(code[0].code.contains("DeleteAllFromFamily(\"meta\")"));
    p.apply(Action::DeleteRow(b"r".to_vec()));
    assert!(keys(&p).is_empty());
}

/// What the grid shows: each row's key and its cells as (family, qualifier, newest cell),
/// independent of the order in which columns got their ids.
#[allow(clippy::type_complexity)]
fn shown_grid(p: &Playground) -> Vec<(Vec<u8>, Vec<(String, Vec<u8>, CellSummary)>)> {
    let grid = p.grid.borrow();
    grid.rows
        .iter()
        .map(|r| {
            let mut cells: Vec<_> = r
                .cells
                .iter()
                .map(|(c, s)| {
                    (
                        grid.columns[*c].0.clone(),
                        grid.columns[*c].1.clone(),
                        s.clone(),
                    )
                })
                .collect();
            cells.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
            (r.key.clone(), cells)
        })
        .collect()
}

#[test]
fn lab_actions_reread_the_grid_only_when_they_may_change_it() {
    use crate::lab::LabAction;
    let mut p = Playground::new(START);
    create(&mut p, "mine", "cf", "");
    p.apply(Action::LoadSample(100));
    p.apply(Action::Lab(LabAction::RunScenario("hotspots".into())));
    // The scenario created tables: the list changed, the grid was re-read. Select ours.
    p.apply(Action::SelectTable("mine".into()));
    let full = p.full_reads;
    for action in [
        LabAction::SetMetric(crate::lab::heatmap::Metric::Bytes),
        LabAction::Compact,
        LabAction::ClearConsole,
        // The load generator writes the lanes' tables, not the one selected.
        LabAction::Load(1),
    ] {
        p.apply(Action::Lab(action));
    }
    assert_eq!(
        p.full_reads, full,
        "no re-read for actions that leave the grid as it is"
    );
    assert_eq!(keys(&p).len(), 100);
    // Selecting a lane's table, the load generator's writes are re-read: just the rows
    // written, in one batch, and the grid ends as a whole re-read would build it.
    for lane in ["hot_sequential", "hot_salted", "hot_promoted"] {
        p.apply(Action::SelectTable(lane.into()));
        let full = p.full_reads;
        let rows_before = keys(&p).len();
        let batch = p.batch_row_reads;
        p.apply(Action::Lab(LabAction::Load(2)));
        assert_eq!(p.full_reads, full, "{lane}: no whole-table read");
        let written = p.batch_row_reads - batch;
        assert!(
            written > 0 && written <= 2 * 200,
            "{lane}: {written} rows re-read"
        );
        assert!(
            keys(&p).len() > rows_before,
            "{lane}: new rows are in the grid"
        );
        let incremental = shown_grid(&p);
        p.apply(Action::SelectTable("mine".into()));
        p.apply(Action::SelectTable(lane.into()));
        assert_eq!(
            incremental,
            shown_grid(&p),
            "{lane}: as a full read shows it"
        );
    }
    // The console may change anything: re-read.
    let full = p.full_reads;
    p.apply(Action::Lab(LabAction::Console("ls".into())));
    assert_eq!(p.full_reads, full + 1);
}

#[test]
fn writes_redraw_one_row_and_never_count_in_access_stats() {
    let mut p = Playground::new(START);
    create(&mut p, "t", "cf", "");
    p.apply(Action::LoadSample(500));
    assert_eq!(keys(&p).len(), 500);
    let full = p.full_reads;
    let reads = |p: &Playground| -> u64 {
        p.database()
            .access_stats("t")
            .unwrap()
            .iter()
            .map(|s| s.counters.reads)
            .sum()
    };
    for i in 0..20 {
        write(&mut p, &format!("user#{i:06}"), "cf", "name", "changed");
    }
    p.apply(Action::OpenCell {
        row_key: b"user#000001".to_vec(),
        family: "cf".into(),
        qualifier: b"name".to_vec(),
    });
    assert_eq!(
        p.full_reads, full,
        "a write re-reads its row, not the table"
    );
    assert_eq!(reads(&p), 0, "the playground's own reads are not traffic");
    assert_eq!(cells(&p, 1)[0].as_ref().unwrap().value, b"changed");
    assert_eq!(cells(&p, 1)[0].as_ref().unwrap().versions, 2);
    // A person's query is traffic.
    p.apply(Action::RunQuery(QuerySpec::default()));
    assert!(reads(&p) >= 500);
}

#[test]
fn a_query_returns_what_the_engine_returns_with_its_explain_and_code() {
    let mut p = Playground::new(START);
    create(&mut p, "t", "cf", "");
    p.apply(Action::LoadSample(300));
    let spec = QuerySpec {
        prefix: "user#0001".into(),
        reversed: true,
        limit: 5,
        filter: sparsetable::RowFilter::Chain(vec![
            sparsetable::RowFilter::RowKeyRegex(b".*[02468]$".to_vec()),
            sparsetable::RowFilter::ColumnQualifierRegex(b"name".to_vec()),
        ]),
        ..QuerySpec::default()
    };
    p.apply(Action::RunQuery(spec.clone()));
    assert_eq!(p.error, None);
    let q = p.query.clone().unwrap();
    let engine: Vec<Row> = p
        .database()
        .read_rows("t", &spec.to_request())
        .unwrap()
        .collect();
    assert_eq!(q.rows, engine);
    let got: Vec<_> = q.rows.iter().map(|r| display_bytes(&r.key)).collect();
    assert_eq!(
        got,
        [
            "user#000198",
            "user#000196",
            "user#000194",
            "user#000192",
            "user#000190"
        ]
    );
    assert_eq!(q.explain.rows_returned, 5);
    assert_eq!(q.explain.cells_returned, 5);
    assert!(q.explain.rows_scanned >= 9, "{:?}", q.explain);
    assert_eq!(q.explain.tablets_touched, 1);
    assert_eq!(p.hits.len(), 5);
    assert!(q.code.iter().any(|s| s.code.contains("ReverseScan()")));
    // A bad filter is the engine's error, and the last answer stays.
    p.apply(Action::RunQuery(QuerySpec {
        filter: sparsetable::RowFilter::RowKeyRegex(b"(".to_vec()),
        ..QuerySpec::default()
    }));
    assert_eq!(
        p.error.as_ref().map(|e| e.code.as_str()),
        Some("INVALID_ARGUMENT")
    );
    assert_eq!(p.query.as_ref().unwrap().rows.len(), 5);
}

#[test]
fn an_export_imports_into_a_fresh_playground_with_the_same_grid() {
    let mut p = Playground::new(START);
    create(&mut p, "t", "cf, meta", "3");
    write(&mut p, "a", "cf", "q", "1");
    write(&mut p, "a", "cf", "q", "2");
    write(&mut p, "b", "meta", "m", "x");
    let json = p.export_json().unwrap();
    let mut fresh = Playground::new(START);
    fresh.apply(Action::ImportJson(json.clone()));
    assert_eq!(fresh.error, None);
    assert_eq!(fresh.tables, p.tables);
    assert_eq!(columns(&fresh), columns(&p));
    assert_eq!(cells(&fresh, 0), cells(&p, 0));
    assert_eq!(cells(&fresh, 1), cells(&p, 1));
    assert!(
        fresh.now_micros >= p.now_micros,
        "the clock moves to the session's time"
    );
    fresh.apply(Action::ImportJson(json));
    assert_eq!(
        fresh.error.as_ref().map(|e| e.code.as_str()),
        Some("ALREADY_EXISTS")
    );
    let mut from_csv = Playground::new(START);
    from_csv.apply(Action::ImportCsv(p.export_csv().unwrap()));
    assert_eq!(from_csv.error, None);
    assert_eq!(cells(&from_csv, 0), cells(&p, 0));
}

#[test]
fn gc_rules_and_values_in_words() {
    assert_eq!(
        describe_gc(&GcRule::MaxAge {
            micros: 604_800_000_000
        }),
        "older than 7 days"
    );
    assert_eq!(
        describe_gc(&GcRule::MaxAge { micros: 90_000_000 }),
        "older than 90 s"
    );
    assert_eq!(
        describe_gc(&GcRule::Intersection(vec![
            GcRule::MaxNumVersions(2),
            GcRule::MaxAge {
                micros: 3_600_000_000
            }
        ])),
        "beyond max versions 2 and older than 1 hour"
    );
    assert_eq!(as_int64(&42i64.to_be_bytes()), Some(42));
    assert_eq!(as_int64(b"short"), None);
}

#[test]
fn bytes_display_as_text_or_escapes() {
    assert_eq!(display_bytes(b"user#1"), "user#1");
    assert_eq!(display_bytes("ключ".as_bytes()), "ключ");
    assert_eq!(display_bytes(&[b'a', 0, 0xff]), "a\\x00\\xff");
}

#[test]
fn the_grid_decodes_counters_and_keeps_text_and_other_bytes() {
    use crate::display::{count_of, grid_value};
    assert_eq!(grid_value(&5i64.to_be_bytes()), "5");
    assert_eq!(grid_value(&(-2i64).to_be_bytes()), "-2");
    assert_eq!(
        grid_value(b"abcdefgh"),
        "abcdefgh",
        "printable 8 bytes stay text"
    );
    assert_eq!(grid_value(b"\x00\x01"), "\\x00\\x01");
    assert_eq!(count_of(1, "table", "tables"), "1 table");
    assert_eq!(count_of(2, "table", "tables"), "2 tables");
}

#[test]
fn long_values_are_cut_for_the_grid_at_a_character_boundary() {
    use crate::display::{grid_preview, preview_len, size_of, PREVIEW_BYTES};
    assert_eq!(preview_len(b"short", 4), 4);
    assert_eq!(preview_len(b"abc", 4), 3);
    // "é" is two bytes: a cut inside it moves before it.
    assert_eq!(preview_len("aé".as_bytes(), 2), 1);
    assert_eq!(
        preview_len(&[0xff; 10], 4),
        4,
        "bytes that are not text cut anywhere"
    );
    let big = "é".repeat(PREVIEW_BYTES);
    let shown = grid_preview(big.as_bytes(), false);
    assert!(shown.starts_with(&"é".repeat(PREVIEW_BYTES / 2)));
    assert!(
        shown.ends_with("… (8.0 KB in all)"),
        "{}",
        &shown[shown.len() - 40..]
    );
    assert_eq!(grid_preview(&5i64.to_be_bytes(), false), "5");
    assert_eq!(grid_preview(b"\x00", true), "\\x00");
    assert_eq!(size_of(10 * 1024 * 1024), "10.0 MB");
    assert_eq!(size_of(1), "1 byte");
}

#[test]
fn typed_values_delete_table_and_reset_session() {
    use crate::value_input::ValueType;
    let mut p = Playground::new(1_000_000);
    create(&mut p, "a", "cf", "");
    let typed = |p: &mut Playground, value: &str, value_type: ValueType| {
        p.apply(Action::WriteCell {
            row_key: "r".into(),
            family: "cf".into(),
            qualifier: "q".into(),
            value: value.into(),
            value_type,
        })
    };
    typed(&mut p, "-2", ValueType::Int64);
    assert_eq!(p.error, None);
    let newest = |p: &Playground| p.grid.borrow().rows[0].cell(0).map(|c| c.value.clone());
    assert_eq!(newest(&p), Some((-2i64).to_be_bytes().to_vec()));
    typed(&mut p, "0a0b", ValueType::Hex);
    assert_eq!(newest(&p), Some(vec![10, 11]));
    let revision = p.revision;
    typed(&mut p, "{oops", ValueType::Json);
    assert_eq!(
        p.error.as_ref().map(|e| e.code.as_str()),
        Some("INVALID_ARGUMENT")
    );
    assert_eq!(
        (p.revision, newest(&p)),
        (revision, Some(vec![10, 11])),
        "a bad value writes nothing"
    );

    create(&mut p, "b", "cf", "");
    assert_eq!(p.selected.as_deref(), Some("b"));
    p.apply(Action::DeleteTable("b".into()));
    assert_eq!(p.error, None);
    assert_eq!(
        p.tables.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["a"]
    );
    assert_eq!(p.selected.as_deref(), Some("a"), "another table is shown");
    assert!(p
        .last_write
        .as_ref()
        .is_some_and(|s| s.iter().any(|s| s.code.contains("deletetable b"))));
    p.apply(Action::DeleteTable("b".into()));
    assert_eq!(p.error.as_ref().map(|e| e.code.as_str()), Some("NOT_FOUND"));

    let revision = p.revision;
    p.apply(Action::ResetSession);
    assert_eq!(p.error, None);
    assert!(p.tables.is_empty() && p.selected.is_none() && p.drawer.is_none());
    assert!(p.revision > revision, "a reset is saved like any change");
}

#[test]
fn the_drawer_carries_a_long_value_cut_until_it_is_asked_for_whole() {
    use crate::display::PREVIEW_BYTES;
    let mut p = Playground::new(1_000_000);
    create(&mut p, "t", "cf", "");
    let big = "v".repeat(PREVIEW_BYTES * 3);
    write(&mut p, "r", "cf", "q", &big);
    write(&mut p, "r", "cf", "q", "short");
    p.apply(Action::OpenCell {
        row_key: b"r".to_vec(),
        family: "cf".into(),
        qualifier: b"q".to_vec(),
    });
    let versions = |p: &Playground| p.drawer.as_ref().unwrap().versions.clone();
    let old = versions(&p)[1].clone();
    assert_eq!((old.value.len(), old.len), (PREVIEW_BYTES, big.len()));
    assert_eq!(
        (versions(&p)[0].value.clone(), versions(&p)[0].len),
        (b"short".to_vec(), 5)
    );
    p.apply(Action::ShowWholeVersion(old.timestamp_micros));
    assert_eq!(versions(&p)[1].value, big.as_bytes());
    assert_eq!(p.error, None);
}
