//! The console on a replicated instance, on a manual clock: data commands routed by
//! `app-profile=`, lag, outages and failover, injected faults, cbt's app-profile commands,
//! and refusals that change nothing. The rules are the core's; these tests check that the
//! console hands each command to them and prints what they decide.

use std::sync::Arc;

use sparsetable::{Clock, Database, ManualClock};
use sparsetable_console::{InstanceConsole, Output};

const T0: i64 = 1_700_000_000_000_000;

fn instance(clusters: usize) -> (InstanceConsole, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(T0));
    let dbs = (1..=clusters)
        .map(|i| (format!("console-c{i}"), Database::with_clock(clock.clone())))
        .collect();
    let mut console = InstanceConsole::new("p", "lesson", dbs).expect("instance");
    for line in [
        "createtable t families=cf",
        "createappprofile lesson to-c1 first route-to=console-c1 transactional-writes",
        "createappprofile lesson to-c2 second route-to=console-c2",
        "lag 2s",
    ] {
        ok(&mut console, line);
    }
    (console, clock)
}

fn ok(console: &mut InstanceConsole, line: &str) -> String {
    let out = console.run_line(line);
    assert!(!out.failed, "{line}: {}", out.stderr);
    String::from_utf8(out.stdout).expect("utf-8")
}

fn fails(console: &mut InstanceConsole, line: &str) -> String {
    let out: Output = console.run_line(line);
    assert!(out.failed, "{line} should fail");
    out.stderr
}

/// What `lookup t r` prints through `profile`: the value, or "" for no row.
fn value(console: &mut InstanceConsole, profile: &str) -> String {
    let printed = ok(console, &format!("lookup t r app-profile={profile}"));
    printed
        .lines()
        .find_map(|l| l.trim().strip_prefix('"'))
        .map(|v| v.trim_end_matches('"').to_string())
        .unwrap_or_default()
}

#[test]
fn a_write_through_one_cluster_reaches_the_other_after_the_lag() {
    let (mut c, clock) = instance(2);
    ok(&mut c, "set t r app-profile=to-c1 cf:q=v1");
    assert_eq!(value(&mut c, "to-c1"), "v1");
    assert_eq!(
        value(&mut c, "to-c2"),
        "",
        "c2 must not see it before the lag"
    );
    assert!(ok(&mut c, "status").contains("writes in flight: 1"));
    clock.advance_micros(1_999_999);
    assert_eq!(value(&mut c, "to-c2"), "");
    clock.advance_micros(1);
    assert_eq!(value(&mut c, "to-c2"), "v1");
    assert!(ok(&mut c, "status").contains("writes in flight: 0"));
}

#[test]
fn single_cluster_profiles_fail_while_their_cluster_is_down_and_multi_cluster_fails_over() {
    let (mut c, clock) = instance(2);
    ok(&mut c, "lag 0s");
    ok(&mut c, "set t r cf:q=before");
    let status = ok(&mut c, "down console-c1");
    assert!(
        status.contains("cluster console-c1: unavailable"),
        "{status}"
    );
    let e = fails(&mut c, "lookup t r app-profile=to-c1");
    assert!(
        e.starts_with("Reading row: rpc error: code = Unavailable"),
        "{e}"
    );
    // The default profile (two clusters: any cluster) fails over to c2.
    ok(&mut c, "set t r cf:q=during");
    assert_eq!(value(&mut c, ""), "during");
    assert_eq!(value(&mut c, "to-c2"), "during");
    // c1 catches up once it is back.
    ok(&mut c, "up console-c1");
    clock.advance_micros(1);
    assert_eq!(value(&mut c, "to-c1"), "during");
}

#[test]
fn an_injected_fault_fails_the_chosen_rpc_as_many_times_as_asked() {
    let (mut c, _clock) = instance(2);
    ok(&mut c, "set t r app-profile=to-c1 cf:q=v");
    let status = ok(
        &mut c,
        "fault code=UNAVAILABLE rpc=ReadRows cluster=console-c1 count=1",
    );
    assert!(status.contains("fault: rpc ReadRows cluster console-c1 code UNAVAILABLE count 1"));
    // A write is not a ReadRows; a read through c2 is not at c1.
    ok(&mut c, "set t r2 app-profile=to-c1 cf:q=w");
    assert_eq!(value(&mut c, "to-c2"), "");
    let e = fails(&mut c, "read t app-profile=to-c1");
    assert!(
        e.starts_with("Reading rows: rpc error: code = Unavailable desc = "),
        "{e}"
    );
    assert!(ok(&mut c, "read t app-profile=to-c1").contains("r2"));
    assert!(!ok(&mut c, "status").contains("fault:"));
    ok(&mut c, "fault code=14");
    fails(&mut c, "count t");
    ok(&mut c, "clear-faults seed=7");
    // The default profile's nearest cluster is the first.
    assert_eq!(ok(&mut c, "count t"), "2\n");
}

#[test]
fn every_grpc_code_a_client_sees_can_be_injected_by_name_or_number() {
    let (mut c, _clock) = instance(2);
    for (line, expected) in [
        (
            "fault code=UNAUTHENTICATED count=1",
            "code = Unauthenticated",
        ),
        ("fault code=CANCELLED count=1", "code = Canceled"),
        ("fault code=unknown count=1", "code = Unknown"),
        ("fault code=16 count=1", "code = Unauthenticated"),
        ("fault code=1 count=1", "code = Canceled"),
        ("fault code=4 count=1", "code = DeadlineExceeded"),
    ] {
        ok(&mut c, line);
        let e = fails(&mut c, "set t r cf:q=v");
        assert!(
            e.starts_with(&format!("Applying mutation: rpc error: {expected} desc = ")),
            "{line}: {e}"
        );
    }
    // OK is not an error to inject, nor is a number past gRPC's table.
    for line in ["fault code=OK", "fault code=0", "fault code=17"] {
        assert!(
            fails(&mut c, line).contains("use one of CANCELLED, UNKNOWN"),
            "{line}"
        );
    }
    ok(&mut c, "set t r cf:q=v");
}

/// An instance whose injected latencies move its manual clock, as the playground's does.
fn waiting_instance() -> (InstanceConsole, Arc<ManualClock>) {
    let (mut c, clock) = instance(2);
    let moved = clock.clone();
    c.set_latency_wait(Box::new(move |micros| {
        moved.advance_micros(i64::try_from(micros).expect("latency"));
    }));
    (c, clock)
}

#[test]
fn an_injected_latency_is_waited_out_on_the_engines_clock() {
    let (mut c, clock) = waiting_instance();
    ok(&mut c, "set t r app-profile=to-c1 cf:q=v1");
    let status = ok(
        &mut c,
        "fault latency=2s rpc=ReadRows cluster=console-c2 count=1",
    );
    assert!(
        status.contains("fault: rpc ReadRows cluster console-c2 code - count 1 probability 1 latency 2000000 us"),
        "{status}"
    );
    // Reads at c1 are not held back.
    let before = clock.now_micros();
    assert_eq!(value(&mut c, "to-c1"), "v1");
    assert_eq!(clock.now_micros(), before);
    // The read at c2 answers two seconds of the engine's clock later, by when the write
    // (lag 2s) has arrived there: the delayed read is not stale.
    let out = c.run_line("lookup t r app-profile=to-c2");
    assert!(!out.failed, "{}", out.stderr);
    assert_eq!(clock.now_micros(), before + 2_000_000);
    assert!(
        out.stderr
            .starts_with("(injected latency: answered 2000ms later by console-c2"),
        "{}",
        out.stderr
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"v1\""));
    // The rule was counted: the next read at c2 is immediate.
    assert_eq!(value(&mut c, "to-c2"), "v1");
    assert_eq!(clock.now_micros(), before + 2_000_000);
}

#[test]
fn a_latency_and_a_code_together_wait_then_fail() {
    let (mut c, clock) = waiting_instance();
    ok(
        &mut c,
        "fault latency=250ms code=UNAUTHENTICATED rpc=MutateRow",
    );
    let before = clock.now_micros();
    let e = fails(&mut c, "set t r cf:q=v");
    assert_eq!(clock.now_micros(), before + 250_000);
    assert!(
        e.starts_with("(injected latency: answered 250ms later by console-c1, on the engine's clock)\nApplying mutation: rpc error: code = Unauthenticated"),
        "{e}"
    );
    for (line, expected) in [
        (
            "fault latency=soon",
            "latency \"soon\": give a number and a unit",
        ),
        (
            "fault latency=-1s",
            "latency \"-1s\": give a number and a unit",
        ),
    ] {
        let e = fails(&mut c, line);
        assert!(e.starts_with(expected), "{line}: {e}");
    }
}

#[test]
fn app_profiles_are_listed_read_and_deleted_through_the_instance_record() {
    let (mut c, _clock) = instance(3);
    let listed = ok(&mut c, "listappprofile lesson");
    let ids: Vec<&str> = listed
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default())
        .collect();
    assert_eq!(
        ids,
        [
            "projects/p/instances/lesson/appProfiles/default",
            "projects/p/instances/lesson/appProfiles/to-c1",
            "projects/p/instances/lesson/appProfiles/to-c2",
        ]
    );
    assert!(listed.contains("single-cluster to console-c1, transactional writes allowed"));
    ok(&mut c, "updateappprofile lesson to-c2 moved route-any");
    assert!(ok(&mut c, "getappprofile lesson to-c2").contains("multi-cluster to any cluster"));
    ok(&mut c, "deleteappprofile lesson to-c2");
    let e = fails(&mut c, "lookup t r app-profile=to-c2");
    assert!(
        e.starts_with("Reading row: rpc error: code = NotFound"),
        "{e}"
    );
    assert_eq!(
        ok(&mut c, "listclusters"),
        "Cluster Name\tZone\t\tState\n------------\t----\t\t-----\nconsole-c1\tlocal\t\tREADY\nconsole-c2\tlocal\t\tREADY\nconsole-c3\tlocal\t\tREADY\n"
    );
}

#[test]
fn every_refusal_is_the_cores_and_changes_nothing() {
    let (mut c, _clock) = instance(2);
    let before = (ok(&mut c, "status"), ok(&mut c, "listappprofile lesson"));
    for (line, expected) in [
        (
            "createappprofile lesson -bad x route-any",
            "INVALID_ARGUMENT: ",
        ),
        (
            "createappprofile lesson to-c1 again route-any",
            "ALREADY_EXISTS: app profile \"to-c1\" already exists in instance projects/p/instances/lesson",
        ),
        (
            "createappprofile lesson far x route-to=nowhere-c9",
            "INVALID_ARGUMENT: ",
        ),
        ("createappprofile other x y route-any", "NOT_FOUND: instance \"other\""),
        ("deleteappprofile lesson nope", "NOT_FOUND: app profile \"nope\" not found"),
        ("down nowhere", "NOT_FOUND: cluster \"nowhere\" not found"),
        ("lag -1s", "INVALID_ARGUMENT: replication delay must not be negative"),
        ("lag soon", "lag \"soon\": give a number and a unit"),
        ("fault code=NOPE", "code \"NOPE\": use one of"),
        ("fault code=UNAVAILABLE probability=2", "INVALID_ARGUMENT: fault probability must be between 0 and 1"),
        ("fault code=UNAVAILABLE count=0", "INVALID_ARGUMENT: a fault's count must be at least 1"),
        ("fault rpc=ReadRows latency=1s", "this console has no clock to wait out a latency on"),
        ("fault rpc=ReadRows", "usage: fault code=<CODE> | latency=<duration>"),
        ("set t r app-profile=ghost cf:q=v", "Applying mutation: rpc error: code = NotFound"),
    ] {
        let e = fails(&mut c, line);
        assert!(e.starts_with(expected), "{line}: {e}");
    }
    assert_eq!(
        (ok(&mut c, "status"), ok(&mut c, "listappprofile lesson")),
        before
    );
    assert_eq!(value(&mut c, "to-c1"), "");
}

#[test]
fn short_cluster_ids_are_refused_for_a_new_instance_and_kept_when_given() {
    let clock = Arc::new(ManualClock::new(T0));
    let dbs = || {
        ["c1", "c2"]
            .iter()
            .map(|id| (id.to_string(), Database::with_clock(clock.clone())))
            .collect::<Vec<_>>()
    };
    let e = InstanceConsole::new("p", "lesson", dbs()).expect_err("c1 is too short");
    assert!(e.message().contains("6 to 30 characters"), "{e}");
    let mut c = InstanceConsole::with_cluster_ids_as_given("p", "lesson", dbs()).expect("given");
    ok(&mut c, "createtable t families=cf");
    ok(&mut c, "createappprofile lesson to-c2 second route-to=c2");
    ok(&mut c, "set t r cf:q=v app-profile=to-c2");
    assert_eq!(value(&mut c, "to-c2"), "v");
    assert!(ok(&mut c, "status").contains("cluster c1: available"));
}

#[test]
fn admit_is_the_commands_path_for_a_hosts_own_requests() {
    use sparsetable::{Code, RequestKind};
    let (mut console, clock) = instance(2);
    let moved = clock.clone();
    console.set_latency_wait(Box::new(move |micros| {
        moved.advance_micros(i64::try_from(micros).expect("micros"));
    }));
    // Routing: the profile's cluster, or its refusal.
    let a = console.admit("MutateRow", "to-c2", RequestKind::Write, b"r");
    assert_eq!((a.cluster.ok(), a.waited), (Some(1), None));
    let a = console.admit("MutateRow", "nosuch", RequestKind::Write, b"r");
    assert_eq!(a.cluster.map_err(|e| e.code()), Err(Code::NotFound));
    // A fault typed at the console fires for the host's request of that RPC and cluster.
    ok(
        &mut console,
        "fault code=UNAVAILABLE rpc=ReadModifyWriteRow count=1",
    );
    let a = console.admit(
        "ReadModifyWriteRow",
        "to-c1",
        RequestKind::Transaction,
        b"r",
    );
    assert_eq!(a.cluster.map_err(|e| e.code()), Err(Code::Unavailable));
    let a = console.admit(
        "ReadModifyWriteRow",
        "to-c1",
        RequestKind::Transaction,
        b"r",
    );
    assert_eq!(a.cluster.ok(), Some(0), "the count is spent");
    // A latency is waited out on the clock and reported with the cluster that answered.
    ok(
        &mut console,
        "fault latency=250ms cluster=console-c1 count=1",
    );
    let before = clock.now_micros();
    let a = console.admit_table_admin("GenerateConsistencyToken");
    assert_eq!(clock.now_micros(), before + 250_000);
    let w = a.waited.expect("waited");
    assert_eq!((w.micros, w.cluster_id.as_str()), (250_000, "console-c1"));
    assert!(w
        .note()
        .starts_with("(injected latency: answered 250ms later by console-c1"));
}
