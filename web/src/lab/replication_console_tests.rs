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

/// The lesson's write button through `profile`; returns the outcome.
fn write_button(
    l: &mut ReplLab,
    clock: &ManualClock,
    profile: &str,
    value: &str,
) -> super::replication::Outcome {
    l.apply(
        clock,
        ReplAction::Write {
            profile: profile.into(),
            row: "user#1".into(),
            qualifier: "name".into(),
            value: value.into(),
        },
    )
    .expect("write");
    l.view().outcome.expect("an outcome")
}

#[test]
fn an_injected_code_fails_the_lessons_buttons_as_it_fails_console_commands() {
    let (mut l, clock) = lab();
    run(
        &mut l,
        &clock,
        "fault code=UNAVAILABLE rpc=MutateRow count=1",
    );
    let o = write_button(&mut l, &clock, "to-c1", "Ada");
    assert_eq!(o.code, "UNAVAILABLE", "{o:?}");
    assert!(o.message.contains("injected fault"), "{o:?}");
    assert!(
        l.view().clusters[0].cells.is_empty(),
        "a refused write is not applied"
    );
    // The count is spent: the next write goes through, and a rule for c2 spares c1.
    run(&mut l, &clock, "fault code=PERMISSION_DENIED cluster=c2");
    let o = write_button(&mut l, &clock, "to-c1", "Ada");
    assert_eq!(
        (o.code.as_str(), o.waited.as_deref()),
        ("OK", None),
        "{o:?}"
    );
    assert_eq!(
        write_button(&mut l, &clock, "to-c2", "x").code,
        "PERMISSION_DENIED"
    );
    let read = |profile: &str| ReplAction::Read {
        profile: profile.into(),
        row: "user#1".into(),
    };
    l.apply(&clock, read("to-c2")).expect("read");
    assert_eq!(l.view().outcome.expect("read").code, "PERMISSION_DENIED");
    run(&mut l, &clock, "clear-faults");
    run(
        &mut l,
        &clock,
        "fault code=ABORTED rpc=ReadModifyWriteRow count=1",
    );
    let inc = ReplAction::Increment {
        profile: "to-c1".into(),
        row: "user#1".into(),
        qualifier: "visits".into(),
    };
    l.apply(&clock, inc.clone()).expect("increment");
    assert_eq!(l.view().outcome.expect("inc").code, "ABORTED");
    l.apply(&clock, inc).expect("increment");
    assert_eq!(l.view().outcome.expect("inc").code, "OK");
    // The token button's GenerateConsistencyToken: refused, no token shown.
    run(
        &mut l,
        &clock,
        "fault code=RESOURCE_EXHAUSTED rpc=GenerateConsistencyToken count=1",
    );
    l.apply(&clock, ReplAction::GenerateToken).expect("token");
    let v = l.view();
    assert_eq!(v.outcome.expect("token").code, "RESOURCE_EXHAUSTED");
    assert!(v.token.is_none());
    l.apply(&clock, ReplAction::GenerateToken).expect("token");
    assert!(l.view().token.is_some());
}

#[test]
fn an_injected_latency_delays_a_lesson_read_on_the_engines_clock_and_is_shown() {
    let (mut l, clock) = lab();
    assert_eq!(write_button(&mut l, &clock, "to-c1", "Ada").code, "OK");
    run(
        &mut l,
        &clock,
        "fault latency=2s rpc=ReadRows cluster=c2 count=1",
    );
    let before = clock.now_micros();
    l.apply(
        &clock,
        ReplAction::Read {
            profile: "to-c2".into(),
            row: "user#1".into(),
        },
    )
    .expect("read");
    let o = l.view().outcome.expect("read");
    assert!(clock.now_micros() >= before + 2_000_000);
    assert_eq!(o.code, "OK");
    assert!(
        o.waited
            .as_deref()
            .is_some_and(|w| w.starts_with("(injected latency: answered 2000ms later by c2")),
        "{o:?}"
    );
    // By the time c2 answered, the write made through c1 had arrived there.
    assert_eq!(o.message, "c2 answered: cf:name=Ada", "{o:?}");
    // The count is spent: the next read answers at once, with no latency shown.
    l.apply(
        &clock,
        ReplAction::Read {
            profile: "to-c2".into(),
            row: "user#1".into(),
        },
    )
    .expect("read");
    assert_eq!(l.view().outcome.expect("read").waited, None);
}
