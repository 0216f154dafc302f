//! The replication lesson's console: lines typed there run on the lesson's own instance
//! (the console crate's `InstanceConsole`), so what they do shows in the clusters drawn, and
//! an injected latency moves the playground's clock.

use alloc::sync::Arc;

use sparsetable::{Clock, ManualClock};

use super::replication::{CellState, ReplAction, ReplLab, START_LAG_MICROS};

const T0: i64 = 1_700_000_000_000_000;

fn lab() -> (ReplLab, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(T0));
    (ReplLab::new(2, &clock).expect("lesson"), clock)
}

/// Runs `line` on the lesson's console and returns (stdout, stderr, failed).
fn run(l: &mut ReplLab, clock: &ManualClock, line: &str) -> (String, String, bool) {
    l.apply(clock, ReplAction::Console(line.into()))
        .expect("console");
    let e = l.view().console.last().cloned().expect("an entry");
    assert_eq!(e.command, line);
    (e.stdout, e.stderr, e.failed)
}

#[test]
fn a_write_through_one_profile_is_a_stale_read_through_another_and_shows_in_the_clusters() {
    let (mut l, clock) = lab();
    let (_, err, failed) = run(
        &mut l,
        &clock,
        "set users user#1 cf:name=Ada app-profile=to-c1",
    );
    assert!(!failed, "{err}");
    // The lesson's view shows the console's write: at c1, not yet at c2.
    let v = l.view();
    assert_eq!(v.clusters[0].cells[0].value, "Ada");
    assert_eq!(v.clusters[0].cells[0].state, CellState::NotYetEverywhere);
    assert_eq!(v.clusters[1].cells[0].state, CellState::Missing);
    let (out, _, _) = run(&mut l, &clock, "lookup users user#1 app-profile=to-c2");
    assert!(!out.contains("Ada"), "c2 must not have it yet: {out}");
    let (out, _, _) = run(&mut l, &clock, "lookup users user#1 app-profile=to-c1");
    assert!(out.contains("\"Ada\""), "{out}");
    clock.advance_micros(START_LAG_MICROS);
    let (out, _, _) = run(&mut l, &clock, "lookup users user#1 app-profile=to-c2");
    assert!(out.contains("\"Ada\""), "after the lag: {out}");
    // The lesson's own buttons and the console share the instance: the change stream
    // holds the console's write once.
    assert_eq!(l.view().tail.len(), 1, "{:?}", l.view().tail);
}

#[test]
fn the_control_words_act_on_the_lessons_clusters() {
    let (mut l, clock) = lab();
    let (out, _, failed) = run(&mut l, &clock, "down c2");
    assert!(!failed && out.contains("cluster c2: unavailable"), "{out}");
    assert!(!l.view().clusters[1].available);
    let (_, err, failed) = run(&mut l, &clock, "set users r cf:q=v app-profile=to-c2");
    assert!(failed && err.contains("code = Unavailable"), "{err}");
    run(&mut l, &clock, "up c2");
    run(&mut l, &clock, "lag 5s");
    assert_eq!(l.view().lag_micros, 5_000_000);
    let (out, _, _) = run(&mut l, &clock, "listappprofile lesson");
    for p in ["to-c1", "to-c2", "multi"] {
        assert!(out.contains(&format!("appProfiles/{p}\t")), "{p}: {out}");
    }
}

#[test]
fn injected_codes_fail_the_command_and_an_injected_latency_moves_the_clock() {
    let (mut l, clock) = lab();
    for (fault, expected) in [
        (
            "fault code=UNAUTHENTICATED count=1",
            "code = Unauthenticated",
        ),
        ("fault code=CANCELLED count=1", "code = Canceled"),
    ] {
        run(&mut l, &clock, fault);
        let (_, err, failed) = run(&mut l, &clock, "set users r cf:q=v app-profile=to-c1");
        assert!(failed && err.contains(expected), "{fault}: {err}");
    }
    run(&mut l, &clock, "set users r cf:q=v app-profile=to-c1");
    run(
        &mut l,
        &clock,
        "fault latency=2s rpc=ReadRows cluster=c2 count=1",
    );
    let before = clock.now_micros();
    let (out, err, failed) = run(&mut l, &clock, "lookup users r app-profile=to-c2");
    assert!(!failed, "{err}");
    assert!(
        err.starts_with("(injected latency: answered 2000ms later by c2"),
        "{err}"
    );
    // Two seconds of the playground's clock passed (plus the console's tick), so the write
    // made through c1 had arrived when c2 answered.
    assert!(clock.now_micros() >= before + 2_000_000);
    assert!(out.contains("\"v\""), "{out}");
    l.apply(&clock, ReplAction::ClearConsole).expect("clear");
    assert!(l.view().console.is_empty());
}
