//! The lab's unit tests: lessons, load, tablets and the console against a real engine.

use super::*;
use alloc::sync::Arc;

fn lab() -> (Lab, Database, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000_000));
    let db = Database::with_clock(clock.clone());
    (Lab::default(), db, clock)
}

fn run(lab: &mut Lab, db: &mut Database, clock: &Arc<ManualClock>, action: LabAction) {
    lab.apply(db, clock, action).unwrap();
    lab.observe(db, None, &[]);
}

#[test]
fn the_hotspot_scenario_splits_and_separates_the_designs() {
    let (mut lab, mut db, clock) = lab();
    run(
        &mut lab,
        &mut db,
        &clock,
        LabAction::RunScenario("hotspots".into()),
    );
    let lanes = &lab.view.lanes;
    assert_eq!(lanes.len(), 3);
    let (seq, salted, promoted) = (&lanes[0], &lanes[1], &lanes[2]);
    assert_eq!(seq.rows, 3000);
    for l in lanes {
        assert!(
            l.tablets.len() >= 3,
            "{}: {} tablets",
            l.table,
            l.tablets.len()
        );
        assert!(l.splits >= 2, "{}", l.table);
        assert_eq!(l.heatmap.total, 3000, "every write is in the heatmap");
    }
    assert!(
        seq.hotspot_permille.is_some_and(|p| p >= 900),
        "sequential: {:?}",
        seq.hotspot_permille
    );
    assert!(
        salted.hotspot_permille.is_some_and(|p| p <= 500),
        "salted: {:?}",
        salted.hotspot_permille
    );
    assert!(
        promoted.hotspot_permille.is_some_and(|p| p <= 500),
        "promoted: {:?}",
        promoted.hotspot_permille
    );
    // The sequential heatmap's writes sit in a narrow band per second, and that band is
    // hot; the promoted table writes many key ranges every second and has no hotspot.
    assert!(seq.heatmap.widest_time <= 2, "{}", seq.heatmap.widest_time);
    assert!(seq.heatmap.rows.iter().filter(|r| r.hot).count() >= 10);
    assert!(
        promoted.heatmap.widest_time >= 12,
        "{}",
        promoted.heatmap.widest_time
    );
    assert!(promoted.heatmap.rows.iter().all(|r| !r.hot));
    assert!(lab.events.iter().any(|e| e.kind == "split"));
    // More load, and thresholds adjustable at run time.
    let before = lab.view.lanes[0].tablets.len();
    let mut small = LAB_TABLET_OPTIONS;
    small.split_bytes = 16 * 1024;
    small.merge_bytes = 4 * 1024;
    run(&mut lab, &mut db, &clock, LabAction::SetThresholds(small));
    assert_eq!(lab.view.thresholds, small);
    run(&mut lab, &mut db, &clock, LabAction::Load(5));
    assert!(lab.view.lanes[0].tablets.len() > before);
    assert_eq!(lab.view.lanes[0].rows, 4000);
}

#[test]
fn compacting_merges_small_cold_neighbours() {
    let (mut lab, mut db, clock) = lab();
    run(
        &mut lab,
        &mut db,
        &clock,
        LabAction::RunScenario("hotspots".into()),
    );
    let before = lab.view.lanes[0].tablets.len();
    assert!(before >= 3);
    // A merge threshold above every tablet's size: the sequential table's tablets behind
    // the moving hotspot are small and cold, so compaction merges them.
    let merging = TabletOptions {
        merge_bytes: 64 << 20,
        split_bytes: 128 << 20,
        ..LAB_TABLET_OPTIONS
    };
    run(&mut lab, &mut db, &clock, LabAction::SetThresholds(merging));
    run(&mut lab, &mut db, &clock, LabAction::Compact);
    let seq = &lab.view.lanes[0];
    assert!(seq.merges >= 1, "{} merges", seq.merges);
    assert!(
        seq.tablets.len() < before,
        "{} tablets, {before} before",
        seq.tablets.len()
    );
    assert!(lab.events.iter().any(|e| e.kind == "merge"));
    assert_eq!(seq.rows, 3000, "merging loses no row");
}

#[test]
fn a_low_load_threshold_splits_the_hot_tablet_by_load() {
    let (mut lab, mut db, clock) = lab();
    run(
        &mut lab,
        &mut db,
        &clock,
        LabAction::RunScenario("hotspots".into()),
    );
    // Sizes too large to split by bytes; a load threshold below the writes per second.
    let by_load = TabletOptions {
        split_bytes: 64 << 20,
        merge_bytes: 1024,
        split_load_ops: 100,
        ..LAB_TABLET_OPTIONS
    };
    run(&mut lab, &mut db, &clock, LabAction::SetThresholds(by_load));
    let before = lab.view.lanes[0].splits;
    run(&mut lab, &mut db, &clock, LabAction::Load(3));
    assert!(
        lab.view.lanes[0].splits > before,
        "200 writes a second into one tablet pass 100 ops: it splits by load"
    );
}

#[test]
fn the_console_runs_commands_and_keeps_row_counts() {
    let (mut lab, mut db, clock) = lab();
    for line in [
        "createtable t families=cf,m",
        "set t r1 cf:q=v@1000",
        "set t r2 cf:q=v@1000",
        "deleterow t r1",
        "count t",
    ] {
        run(&mut lab, &mut db, &clock, LabAction::Console(line.into()));
    }
    // The selected table's lane counts the grid's rows (what the table holds).
    let grid: Vec<GridRow> = db
        .read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .map(|r| GridRow {
            key: r.key,
            cells: Vec::new(),
        })
        .collect();
    lab.observe(&mut db, Some("t"), &grid);
    assert_eq!(
        lab.view.console.last().map(|e| e.stdout.as_str()),
        Some("1\n")
    );
    assert_eq!(lab.view.lanes[0].rows, 1);
    assert_eq!(lab.view.lanes[0].tablets[0].rows, 1);
    run(
        &mut lab,
        &mut db,
        &clock,
        LabAction::Console("import t sample.csv column-family=m".into()),
    );
    let last = lab.view.console.last().unwrap();
    assert!(
        !last.failed && last.stderr.contains("Done importing 3 rows."),
        "{last:?}"
    );
    run(
        &mut lab,
        &mut db,
        &clock,
        LabAction::Console("read nosuch".into()),
    );
    assert!(lab.view.console.last().unwrap().failed);
}

#[test]
fn the_comments_pager_resumes_where_the_last_page_stopped() {
    let (mut lab, mut db, clock) = lab();
    run(
        &mut lab,
        &mut db,
        &clock,
        LabAction::RunScenario("comments".into()),
    );
    let p1 = lab.view.pager.clone().unwrap();
    assert_eq!((p1.page, p1.rows.len()), (1, 20));
    run(
        &mut lab,
        &mut db,
        &clock,
        LabAction::Page {
            next: true,
            regex: String::new(),
        },
    );
    let p2 = lab.view.pager.clone().unwrap();
    assert_eq!(p2.page, 2);
    assert_eq!(p2.rows[0].0.as_bytes(), p1.resume.as_deref().unwrap());
    assert!(
        p1.rows.last().unwrap().0 < p2.rows[0].0,
        "pages follow key order"
    );
    run(
        &mut lab,
        &mut db,
        &clock,
        LabAction::Page {
            next: false,
            regex: ".*/en/5/.*".into(),
        },
    );
    let f = lab.view.pager.clone().unwrap();
    assert!(!f.rows.is_empty() && f.rows.iter().all(|(k, _)| k.contains("/en/5/")));
    assert!(f.command.contains("regex=.*/en/5/.*"));
}

#[test]
fn other_scenarios_build_their_tables() {
    let (mut lab, mut db, clock) = lab();
    for slug in ["time-series", "bus", "tall-wide", "ab"] {
        run(
            &mut lab,
            &mut db,
            &clock,
            LabAction::RunScenario(slug.into()),
        );
        assert!(!lab.view.lanes.is_empty(), "{slug}");
    }
    let tall_wide = |lab: &mut Lab, db: &mut Database| {
        lab.apply(db, &clock, LabAction::RunScenario("tall-wide".into()))
            .unwrap();
        lab.observe(db, None, &[]);
        (lab.view.lanes[0].rows, lab.view.lanes[1].rows)
    };
    let (tall, wide) = tall_wide(&mut lab, &mut db);
    assert_eq!(tall, 2000);
    assert!(wide <= 40, "one row per sensor: {wide}");
    assert!(lab
        .apply(&mut db, &clock, LabAction::RunScenario("nope".into()))
        .is_err());
}

fn console_out(
    lab: &mut Lab,
    db: &mut Database,
    clock: &Arc<ManualClock>,
    line: &str,
) -> ConsoleEntry {
    run(lab, db, clock, LabAction::Console(line.into()));
    lab.view.console.last().cloned().unwrap()
}

#[test]
fn every_lesson_command_runs_and_finds_something() {
    for s in scenarios::SCENARIOS {
        let (mut lab, mut db, clock) = lab();
        run(
            &mut lab,
            &mut db,
            &clock,
            LabAction::RunScenario(s.slug.into()),
        );
        for c in s.commands {
            let e = console_out(&mut lab, &mut db, &clock, c);
            assert!(!e.failed, "{}: {c}: {}", s.slug, e.stderr);
            assert!(!e.stdout.is_empty(), "{}: {c} printed nothing", s.slug);
        }
    }
    // The bus lesson's own lookup shows the bus's trail: three versions of each cell.
    let (mut lab, mut db, clock) = lab();
    run(
        &mut lab,
        &mut db,
        &clock,
        LabAction::RunScenario("bus".into()),
    );
    let e = console_out(&mut lab, &mut db, &clock, "lookup vehicles STC#22#173");
    assert!(
        e.stdout
            .starts_with("----------------------------------------\nSTC#22#173\n"),
        "{}",
        e.stdout
    );
    assert_eq!(e.stdout.matches("  loc:lat").count(), 3, "{}", e.stdout);
}

#[test]
fn three_console_sets_give_three_versions_and_move_the_clock() {
    let (mut lab, mut db, clock) = lab();
    let before = db.now_micros();
    console_out(&mut lab, &mut db, &clock, "createtable t families=cf");
    for v in ["a", "b", "c"] {
        console_out(&mut lab, &mut db, &clock, &format!("set t r cf:q={v}"));
    }
    let e = console_out(&mut lab, &mut db, &clock, "lookup t r");
    assert_eq!(e.stdout.matches("  cf:q").count(), 3, "{}", e.stdout);
    assert!(db.now_micros() > before, "the clock moves as commands run");
}

#[test]
fn load_works_in_every_lesson() {
    for s in scenarios::SCENARIOS {
        let (mut lab, mut db, clock) = lab();
        run(
            &mut lab,
            &mut db,
            &clock,
            LabAction::RunScenario(s.slug.into()),
        );
        let (ticks, rows, now) = (lab.view.ticks, lab.view.lanes[0].rows, db.now_micros());
        run(&mut lab, &mut db, &clock, LabAction::Load(5));
        assert_eq!(lab.view.ticks, ticks + 5, "{}", s.slug);
        assert!(
            db.now_micros() >= now + 5_000_000,
            "{}: the clock moves",
            s.slug
        );
        let table = lab.view.lanes[0].table.clone();
        assert!(
            lab.written_rows(&table).is_some_and(|w| !w.is_empty()),
            "{}: +5 s of load wrote nothing",
            s.slug
        );
        if s.slug == "comments" {
            assert_eq!(
                lab.view.lanes[0].rows,
                rows + 20,
                "four new comments a second"
            );
        }
    }
    // The bus's new positions are its newest versions (3 kept).
    let (mut lab, mut db, clock) = lab();
    run(
        &mut lab,
        &mut db,
        &clock,
        LabAction::RunScenario("bus".into()),
    );
    let old = console_out(
        &mut lab,
        &mut db,
        &clock,
        "lookup vehicles STC#22#173 cells-per-column=1",
    );
    run(&mut lab, &mut db, &clock, LabAction::Load(1));
    let new = console_out(
        &mut lab,
        &mut db,
        &clock,
        "lookup vehicles STC#22#173 cells-per-column=1",
    );
    assert_ne!(old.stdout, new.stdout);
}

#[test]
fn a_single_tablet_has_no_hotspot_score() {
    let (mut lab, mut db, clock) = lab();
    run(
        &mut lab,
        &mut db,
        &clock,
        LabAction::RunScenario("bus".into()),
    );
    assert_eq!(lab.view.lanes[0].tablets.len(), 1);
    assert_eq!(lab.view.lanes[0].hotspot_permille, None);
    run(
        &mut lab,
        &mut db,
        &clock,
        LabAction::RunScenario("hotspots".into()),
    );
    assert!(lab.view.lanes[0].hotspot_permille.is_some_and(|p| p >= 900));
}

#[test]
fn tall_and_wide_rows_show_their_sizes() {
    let (mut lab, mut db, clock) = lab();
    run(
        &mut lab,
        &mut db,
        &clock,
        LabAction::RunScenario("tall-wide".into()),
    );
    let (tall, wide) = (lab.view.lanes[0].row_sizes, lab.view.lanes[1].row_sizes);
    assert_eq!(tall.largest_cells, 1, "one reading per tall row");
    assert_eq!(tall.total_cells, 2000);
    assert_eq!(wide.total_cells, 2000, "the same readings");
    assert!(wide.largest_cells >= 2000 / 40, "{wide:?}");
    assert!(
        wide.largest_bytes > 20 * tall.largest_bytes,
        "{wide:?} vs {tall:?}"
    );
    run(&mut lab, &mut db, &clock, LabAction::Load(5));
    assert!(
        lab.view.lanes[1].row_sizes.largest_bytes > wide.largest_bytes,
        "wide rows grow"
    );
    assert_eq!(
        lab.view.lanes[0].row_sizes.largest_cells, 1,
        "tall rows do not"
    );
}

#[test]
fn a_users_own_table_gets_the_lab_thresholds_and_its_row_counts() {
    let (mut lab, mut db, _clock) = lab();
    db.create_table(
        "mine",
        TableConfig {
            families: [("cf".to_string(), ColumnFamily::default())]
                .into_iter()
                .collect(),
            ..TableConfig::default()
        },
    )
    .unwrap();
    let mut rows = Vec::new();
    for i in 0..5000u32 {
        let key = format!("user#{i:06}").into_bytes();
        db.mutate_row(
            "mine",
            &key,
            &[Mutation::set_cell(
                "cf",
                b"name".to_vec(),
                1000,
                alloc::vec![b'x'; 40],
            )],
        )
        .unwrap();
        rows.push(GridRow {
            key,
            cells: Vec::new(),
        });
    }
    lab.observe(&mut db, Some("mine"), &rows);
    let lane = &lab.view.lanes[0];
    assert_eq!(
        db.get_table("mine").unwrap().config.tablet_options,
        LAB_TABLET_OPTIONS
    );
    assert!(lane.tablets.len() > 1, "{} tablets", lane.tablets.len());
    assert_eq!(lane.rows, 5000);
    assert_eq!(lane.tablets.iter().map(|t| t.rows).sum::<usize>(), 5000);
    assert!(lane.tablets.iter().all(|t| t.rows > 0));
}

#[test]
fn the_lessons_hold_in_background_gc_mode_the_playgrounds_default() {
    // The bus lesson's trail: the family keeps 3 versions, and `lookup` shows 3.
    let (mut l, mut db, clock) = lab();
    db.set_gc_mode(sparsetable::GcMode::Background);
    run(
        &mut l,
        &mut db,
        &clock,
        LabAction::RunScenario("bus".into()),
    );
    let e = console_out(&mut l, &mut db, &clock, "lookup vehicles STC#22#173");
    assert_eq!(e.stdout.matches("  loc:lat").count(), 3, "{}", e.stdout);
    // The time-series lesson: after "+1 h" the expired cells are eligible but still read,
    // as in Bigtable, until a collection removes them.
    let (mut l, mut db, clock) = lab();
    db.set_gc_mode(sparsetable::GcMode::Background);
    run(
        &mut l,
        &mut db,
        &clock,
        LabAction::RunScenario("time-series".into()),
    );
    let count = |lab: &mut Lab, db: &mut Database| -> u64 {
        let e = console_out(lab, db, &clock, "count sensor_ts");
        e.stdout.trim().rsplit(' ').next().unwrap().parse().unwrap()
    };
    let before = count(&mut l, &mut db);
    assert!(before > 0);
    clock.advance_micros(3_600_000_000);
    assert_eq!(count(&mut l, &mut db), before);
    db.collect_garbage("sensor_ts").unwrap();
    assert_eq!(count(&mut l, &mut db), 0);
}
