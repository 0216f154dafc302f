//! The main console on the replication lesson's instance: `-instance lesson` lines run on the
//! lesson's clusters (routing, control words, faults), lines without it on the playground's
//! database exactly as before, and an unknown instance is refused.

use super::*;
use alloc::sync::Arc;
use sparsetable::Clock;

fn lab() -> (Lab, Database, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000_000));
    let db = Database::with_clock(clock.clone());
    (Lab::default(), db, clock)
}

/// Runs `line` on the main console; returns its entry.
fn run(lab: &mut Lab, db: &mut Database, clock: &Arc<ManualClock>, line: &str) -> ConsoleEntry {
    lab.apply(db, clock, LabAction::Console(line.into()))
        .expect("console");
    let e = lab.view.console.last().cloned().expect("an entry");
    assert_eq!(e.command, line);
    e
}

fn start_lesson(lab: &mut Lab, db: &mut Database, clock: &Arc<ManualClock>) {
    lab.apply(
        db,
        clock,
        LabAction::Replication(replication::ReplAction::Start { clusters: 2 }),
    )
    .expect("start");
}

#[test]
fn lesson_lines_need_the_lesson_and_unknown_instances_are_not_found() {
    let (mut lab, mut db, clock) = lab();
    let e = run(&mut lab, &mut db, &clock, "-instance lesson status");
    assert!(
        e.failed && e.stderr.starts_with("FAILED_PRECONDITION"),
        "{e:?}"
    );
    let e = run(&mut lab, &mut db, &clock, "-instance nosuch ls");
    assert!(e.failed && e.stderr.starts_with("NOT_FOUND"), "{e:?}");
    let e = run(&mut lab, &mut db, &clock, "-creds x ls");
    assert!(
        e.failed && e.stderr.contains("flag provided but not defined"),
        "{e:?}"
    );
    // The control words belong to a replicated instance; the database says where they run.
    let e = run(&mut lab, &mut db, &clock, "down c2");
    assert!(
        e.failed && e.stderr.contains("-instance lesson down"),
        "{e:?}"
    );
    let e = run(&mut lab, &mut db, &clock, "listinstances");
    assert!(
        e.stdout.contains("my-instance") && !e.stdout.contains("lesson"),
        "{e:?}"
    );
    start_lesson(&mut lab, &mut db, &clock);
    let e = run(&mut lab, &mut db, &clock, "cbt listinstances");
    assert!(
        e.stdout.contains("lesson") && e.stdout.contains("2 clusters"),
        "{e:?}"
    );
}

#[test]
fn the_main_console_routes_lines_on_the_lessons_instance_and_the_lesson_shows_them() {
    let (mut lab, mut db, clock) = lab();
    start_lesson(&mut lab, &mut db, &clock);
    let e = run(
        &mut lab,
        &mut db,
        &clock,
        "-instance lesson -app-profile to-c1 set users user#1 cf:name=Ada",
    );
    assert!(!e.failed, "{e:?}");
    // The lesson draws the main console's write: at c1, not yet at c2.
    let v = lab.view.replication.clone().expect("lesson view");
    assert_eq!(v.clusters[0].cells[0].value, "Ada");
    assert_eq!(
        v.clusters[1].cells[0].state,
        replication::CellState::Missing
    );
    // The playground's database has no table users: the line ran on the lesson's instance.
    assert!(db.get_table("users").is_err());
    let e = run(
        &mut lab,
        &mut db,
        &clock,
        "cbt -project playground -instance=lesson lookup users user#1 app-profile=to-c2",
    );
    assert!(!e.failed && !e.stdout.contains("Ada"), "stale at c2: {e:?}");
    // The control words act on the lesson's clusters.
    let e = run(&mut lab, &mut db, &clock, "-instance lesson down c2");
    assert!(e.stdout.contains("cluster c2: unavailable"), "{e:?}");
    assert!(!lab.view.replication.as_ref().expect("view").clusters[1].available);
    let e = run(
        &mut lab,
        &mut db,
        &clock,
        "-instance lesson set users r cf:q=v app-profile=to-c2",
    );
    assert!(e.failed && e.stderr.contains("code = Unavailable"), "{e:?}");
    run(&mut lab, &mut db, &clock, "-instance lesson up c2");
    // A fault injected from the main console acts on the lesson's buttons too.
    run(
        &mut lab,
        &mut db,
        &clock,
        "-instance lesson fault code=DEADLINE_EXCEEDED rpc=MutateRow count=1",
    );
    lab.apply(
        &mut db,
        &clock,
        LabAction::Replication(replication::ReplAction::Write {
            profile: "multi".into(),
            row: "user#2".into(),
            qualifier: "name".into(),
            value: "Grace".into(),
        }),
    )
    .expect("write");
    let o = lab
        .view
        .replication
        .clone()
        .expect("view")
        .outcome
        .expect("outcome");
    assert_eq!(o.code, "DEADLINE_EXCEEDED", "{o:?}");
    let e = run(
        &mut lab,
        &mut db,
        &clock,
        "-instance lesson listappprofile lesson",
    );
    assert!(e.stdout.contains("appProfiles/to-c2\t"), "{e:?}");
}

#[test]
fn plain_lines_and_the_default_instance_run_on_the_playgrounds_database() {
    let (mut lab, mut db, clock) = lab();
    start_lesson(&mut lab, &mut db, &clock);
    for line in [
        "createtable t families=cf",
        "cbt -instance my-instance set t r1 cf:q=v@1000",
        "-app-profile default set t r2 cf:q=w@1000",
    ] {
        let e = run(&mut lab, &mut db, &clock, line);
        assert!(!e.failed, "{line}: {e:?}");
    }
    let e = run(&mut lab, &mut db, &clock, "count t");
    assert_eq!(e.stdout, "2\n");
    // The lesson's instance has no table t.
    let e = run(&mut lab, &mut db, &clock, "-instance lesson ls");
    assert_eq!(e.stdout, "users\n");
    let before = clock.now_micros();
    run(&mut lab, &mut db, &clock, "ls");
    assert!(
        clock.now_micros() > before,
        "time passes between two commands"
    );
}
