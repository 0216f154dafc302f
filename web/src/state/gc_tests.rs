//! The GC features' reducer tests, natively: Background mode by default, the mode switch and
//! its session round trip, Collect now, the rule-change preview and the mirroring filter.

use super::*;
use sparsetable::RowFilter;

const START: i64 = 1_700_000_000_000_000;
const HOUR: i64 = 3_600_000_000;

fn create(p: &mut Playground, table: &str, families: &str, max_versions: &str) {
    p.apply(Action::CreateTable {
        table_id: table.into(),
        families: families.into(),
        max_versions: max_versions.into(),
    });
    assert_eq!(p.error, None);
}

fn write(p: &mut Playground, row: &str, family: &str, value: &str) {
    p.apply(Action::WriteCell {
        row_key: row.into(),
        family: family.into(),
        qualifier: "q".into(),
        value: value.into(),
        value_type: Default::default(),
    });
    assert_eq!(p.error, None);
}

/// `(versions, eligible)` of row `i`'s first cell.
fn counts(p: &Playground, i: usize) -> (usize, usize) {
    let g = p.grid.borrow();
    let c = &g.rows[i].cells[0].1;
    (c.versions, c.eligible)
}

fn open(p: &mut Playground, row: &str, family: &str) {
    p.apply(Action::OpenCell {
        row_key: row.as_bytes().to_vec(),
        family: family.into(),
        qualifier: b"q".to_vec(),
    });
}

/// `(value, hidden_by, eligible_by)` of each drawer version.
fn drawer(p: &Playground) -> Vec<(String, Option<String>, Option<String>)> {
    p.drawer
        .as_ref()
        .unwrap()
        .versions
        .iter()
        .map(|v| {
            (
                String::from_utf8(v.value.clone()).unwrap(),
                v.hidden_by.clone(),
                v.eligible_by.clone(),
            )
        })
        .collect()
}

#[test]
fn background_is_the_default_eligible_cells_stay_readable_and_collect_now_removes_them() {
    let mut p = Playground::new(START);
    assert!(p.gc_background);
    assert_eq!(p.database().gc_mode(), sparsetable::GcMode::Background);
    create(&mut p, "t", "cf", "1");
    for v in ["a", "b", "c"] {
        write(&mut p, "r", "cf", v);
    }
    assert_eq!(counts(&p, 0), (3, 2));
    open(&mut p, "r", "cf");
    let why = Some("beyond max versions 1".to_string());
    assert_eq!(
        drawer(&p),
        [
            ("c".into(), None, None),
            ("b".into(), None, why.clone()),
            ("a".into(), None, why),
        ]
    );
    p.apply(Action::CollectGarbage);
    assert_eq!(p.error, None);
    assert_eq!(
        p.notice.as_deref(),
        Some("Collected garbage in t: 2 cells removed")
    );
    assert_eq!(counts(&p, 0), (1, 0));
    assert_eq!(drawer(&p), [("c".into(), None, None)]);
}

#[test]
fn immediate_mode_hides_and_greys_and_the_mode_travels_with_the_session() {
    let mut p = Playground::new(START);
    create(&mut p, "t", "cf", "1");
    write(&mut p, "r", "cf", "a");
    write(&mut p, "r", "cf", "b");
    open(&mut p, "r", "cf");
    let revision = p.revision;
    p.apply(Action::SetGcMode { background: false });
    assert!(!p.gc_background);
    assert!(p.revision > revision, "a mode change is saved");
    assert_eq!(counts(&p, 0), (1, 0));
    assert_eq!(
        drawer(&p),
        [
            ("b".into(), None, None),
            ("a".into(), Some("beyond max versions 1".into()), None),
        ]
    );
    let json = p.export_json().unwrap();
    assert!(json.contains(r#""gcMode":"immediate""#), "{json}");
    let mut fresh = Playground::new(START);
    assert!(fresh.gc_background);
    fresh.apply(Action::ImportJson(json));
    assert_eq!(fresh.error, None);
    assert!(!fresh.gc_background);
    assert_eq!(fresh.database().gc_mode(), sparsetable::GcMode::Immediate);
    // Back to Background: nothing was collected, so the older version is readable again.
    p.apply(Action::SetGcMode { background: true });
    assert_eq!(counts(&p, 0), (2, 1));
    // A document without gcMode (older exports) leaves the mode as it is.
    let old = p
        .export_json()
        .unwrap()
        .replace(r#""gcMode":"background","#, "");
    assert!(!old.contains("gcMode"));
    let mut fresh = Playground::new(START);
    fresh.apply(Action::SetGcMode { background: false });
    fresh.apply(Action::ImportJson(old));
    assert_eq!(fresh.error, None);
    assert!(!fresh.gc_background);
    let mut bad = Playground::new(START);
    bad.apply(Action::ImportJson(
        r#"{"format":"sparsetable-playground/1","nowMicros":"0","gcMode":"later","tables":[]}"#
            .into(),
    ));
    assert_eq!(
        bad.error.as_ref().map(|e| e.code.as_str()),
        Some("INVALID_ARGUMENT")
    );
}

#[test]
fn an_age_rule_makes_cells_eligible_as_the_clock_moves_and_collect_now_drops_them() {
    let mut p = Playground::new(START);
    create(&mut p, "ts", "cf", "");
    p.apply(Action::SetGcRule {
        family: "cf".into(),
        rule: GcRule::MaxAge { micros: HOUR },
    });
    for r in ["a", "b"] {
        write(&mut p, r, "cf", "v");
    }
    assert_eq!(counts(&p, 0), (1, 0));
    p.apply(Action::AdvanceClock(HOUR));
    // As Bigtable: expired but not collected, so still read (and badged).
    assert_eq!(p.grid.borrow().rows.len(), 2);
    assert_eq!(counts(&p, 0), (1, 1));
    p.apply(Action::CollectGarbage);
    assert_eq!(
        p.notice.as_deref(),
        Some("Collected garbage in ts: 2 cells removed")
    );
    assert!(p.grid.borrow().rows.is_empty());
}

fn preview(p: &mut Playground, rule: GcRule) -> GcPreview {
    p.apply(Action::PreviewGcRule {
        family: "cf".into(),
        rule,
    });
    assert_eq!(p.error, None);
    p.gc_preview.clone().unwrap()
}

#[test]
fn a_rule_change_is_previewed_in_both_modes_without_changing_anything() {
    let mut p = Playground::new(START);
    create(&mut p, "t", "cf", "1");
    for v in ["a", "b", "c"] {
        write(&mut p, "r", "cf", v);
    }
    let grid = p.grid.borrow().clone();
    // Background, 1 -> 3: two uncollected versions are kept for good.
    let up = preview(&mut p, GcRule::MaxNumVersions(3));
    assert_eq!(
        (up.eligible_now, up.eligible_after, up.kept_again, up.newly),
        (2, 0, 2, 0)
    );
    assert!(up.describe().contains("kept for good by the new rule"));
    // Nothing changed: the preview only counts.
    assert_eq!(*p.grid.borrow(), grid);
    assert_eq!(p.tables[0].gc_rules, [GcRule::MaxNumVersions(1)]);
    assert!(p.gc_background);
    // Immediate, 1 -> 3: the hidden versions are removed first and stay gone.
    p.apply(Action::SetGcMode { background: false });
    let up = preview(&mut p, GcRule::MaxNumVersions(3));
    assert_eq!((up.eligible_now, up.newly), (2, 0));
    assert_eq!(
        up.describe(),
        "No readable cell disappears. Hidden by the current rule and removed for good first (a looser rule does not bring them back): 2 cells."
    );
    p.apply(Action::SetGcRule {
        family: "cf".into(),
        rule: GcRule::MaxNumVersions(3),
    });
    assert_eq!(p.gc_preview, None, "applying clears the preview");
    assert_eq!(counts(&p, 0), (1, 0));
    write(&mut p, "r", "cf", "d");
    write(&mut p, "r", "cf", "e");
    // Immediate, 3 -> 1: two readable versions disappear.
    let down = preview(&mut p, GcRule::MaxNumVersions(1));
    assert_eq!((down.eligible_now, down.newly), (0, 2));
    assert_eq!(down.describe(), "Disappearing from reads at once: 2 cells.");
    // Background, 3 -> 1: the same two become eligible, still readable.
    p.apply(Action::SetGcMode { background: true });
    let down = preview(&mut p, GcRule::MaxNumVersions(1));
    assert_eq!(
        (down.eligible_now, down.eligible_after, down.newly),
        (0, 2, 2)
    );
    assert_eq!(
        down.describe(),
        "Eligible for GC now: 0 cells; after the change: 2 cells. Newly eligible, still readable until a collection: 2 cells."
    );
    p.apply(Action::PreviewGcRule {
        family: "nope".into(),
        rule: GcRule::Never,
    });
    assert_eq!(p.error.as_ref().map(|e| e.code.as_str()), Some("NOT_FOUND"));
}

#[test]
fn the_mirroring_filter_has_the_rules_shape() {
    let fams = |f: &[&str]| f.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let family = |f: &str| RowFilter::FamilyNameRegex(f.into());
    assert_eq!(
        mirror_filter(&fams(&["cf"]), &[GcRule::MaxNumVersions(2)], START),
        Some(RowFilter::Chain(vec![
            family("cf"),
            RowFilter::CellsPerColumnLimit(2)
        ]))
    );
    // A union keeps what every member keeps: the version limit first, then the age bound
    // (rounded up to the millisecond, the filter's granularity).
    let union = GcRule::Union(vec![
        GcRule::MaxAge { micros: 1500 },
        GcRule::MaxNumVersions(3),
    ]);
    assert_eq!(
        mirror_filter(
            &fams(&["a.b", "keep"]),
            &[union, GcRule::Never],
            START + 1000
        ),
        Some(RowFilter::Interleave(vec![
            RowFilter::Chain(vec![
                family("a\\.b"),
                RowFilter::CellsPerColumnLimit(3),
                RowFilter::TimestampRange {
                    start_micros: START,
                    end_micros: 0
                },
            ]),
            family("keep"),
        ]))
    );
    // Nothing to mirror, or no filter can.
    assert_eq!(mirror_filter(&fams(&["cf"]), &[GcRule::Never], START), None);
    let both = GcRule::Intersection(vec![
        GcRule::MaxNumVersions(1),
        GcRule::MaxAge { micros: HOUR },
    ]);
    assert_eq!(mirror_filter(&fams(&["cf"]), &[both], START), None);
}

#[test]
fn reading_with_the_mirroring_filter_returns_what_immediate_mode_reads() {
    let mut p = Playground::new(START);
    create(&mut p, "t", "cf,other", "");
    p.apply(Action::SetGcRule {
        family: "cf".into(),
        rule: GcRule::Union(vec![
            GcRule::MaxNumVersions(2),
            GcRule::MaxAge { micros: HOUR },
        ]),
    });
    for v in ["a", "b"] {
        write(&mut p, "old", "cf", v);
    }
    p.apply(Action::AdvanceClock(HOUR - 5000));
    for v in ["c", "d", "e"] {
        write(&mut p, "new", "cf", v);
        write(&mut p, "new", "other", v);
    }
    p.apply(Action::AdvanceClock(3000));
    p.apply(Action::ReadWithGcFilter);
    assert_eq!(p.error, None);
    assert_eq!(p.view, View::Query);
    assert!(p.query_preset.is_some());
    let filtered = p.query.clone().unwrap().rows;
    p.apply(Action::SetGcMode { background: false });
    let (immediate, _) = query::run(p.database(), "t", &ReadRowsRequest::default(), false).unwrap();
    assert_eq!(filtered, immediate);
    assert_eq!(
        filtered.iter().map(|r| r.cells.len()).collect::<Vec<_>>(),
        [5],
        "the old row expired; the new row keeps 2 cf and 3 other versions"
    );
    // A table whose rules collect nothing has nothing to mirror.
    create(&mut p, "plain", "cf", "");
    p.apply(Action::ReadWithGcFilter);
    assert_eq!(
        p.error.as_ref().map(|e| e.code.as_str()),
        Some("FAILED_PRECONDITION")
    );
}
