//! Replication between an instance's clusters on a manual clock: lag, routing, transactions
//! refused by multi-cluster profiles, consistency tokens, conflicts that converge, outages
//! with failover and catch-up, and schema changes reaching every cluster.

use std::sync::Arc;

use sparsetable::{
    AppProfile, Code, Database, Isolation, ManualClock, Mutation, ReadModifyWriteRule,
    ReplicatedInstance, RequestKind, Routing, SharedDatabase, TableConfig,
};

const START: i64 = 1_700_000_000_000_000;
const SECOND: i64 = 1_000_000;

fn instance(clusters: &[&str]) -> (Arc<ManualClock>, ReplicatedInstance) {
    let clock = Arc::new(ManualClock::new(START));
    let replicas = clusters
        .iter()
        .map(|id| {
            let db = Database::with_clock(clock.clone());
            (id.to_string(), SharedDatabase::new(db))
        })
        .collect();
    let inst = ReplicatedInstance::new(replicas).unwrap();
    inst.primary()
        .write(|d| d.create_table("t", TableConfig::with_families(["cf"])))
        .unwrap();
    inst.set_profiles(vec![
        single("to-c1", "c1", true),
        single("to-c2", "c2", false),
        AppProfile {
            id: "any".into(),
            routing: Routing::MultiCluster {
                cluster_ids: vec![],
                row_affinity: false,
            },
            isolation: Isolation::Standard,
        },
        AppProfile {
            id: "boost".into(),
            routing: Routing::SingleCluster {
                cluster_id: "c2".into(),
                allow_transactional_writes: false,
            },
            isolation: Isolation::DataBoostReadOnly,
        },
    ])
    .unwrap();
    inst.set_delay_micros(2 * SECOND).unwrap();
    (clock, inst)
}

fn single(id: &str, cluster: &str, tx: bool) -> AppProfile {
    AppProfile {
        id: id.into(),
        routing: Routing::SingleCluster {
            cluster_id: cluster.into(),
            allow_transactional_writes: tx,
        },
        isolation: Isolation::Standard,
    }
}

fn write(inst: &ReplicatedInstance, profile: &str, row: &str, ts: i64, value: &str) {
    let (i, db) = inst
        .route(profile, RequestKind::Write, row.as_bytes())
        .unwrap();
    db.mutate_row(
        "t",
        row.as_bytes(),
        &[Mutation::set_cell("cf", "q", ts, value)],
    )
    .unwrap();
    inst.after_write(i).unwrap();
}

fn read(inst: &ReplicatedInstance, profile: &str, row: &str) -> Vec<(i64, String)> {
    let (_, db) = inst
        .route(profile, RequestKind::Read, row.as_bytes())
        .unwrap();
    db.read_row("t", row.as_bytes())
        .unwrap()
        .map(|r| {
            r.cells
                .into_iter()
                .map(|c| (c.timestamp_micros, String::from_utf8(c.value).unwrap()))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_write_reaches_the_other_cluster_after_the_delay() {
    let (clock, inst) = instance(&["c1", "c2"]);
    write(&inst, "to-c1", "r", -1, "v");
    assert_eq!(read(&inst, "to-c1", "r").len(), 1, "read-your-writes at c1");
    assert!(
        read(&inst, "to-c2", "r").is_empty(),
        "stale at c2 before the delay"
    );
    clock.advance_micros(2 * SECOND - 1);
    assert!(read(&inst, "to-c2", "r").is_empty());
    clock.advance_micros(1);
    let at_c2 = read(&inst, "to-c2", "r");
    assert_eq!(
        at_c2,
        read(&inst, "to-c1", "r"),
        "same cell, same server timestamp"
    );
    assert_eq!(inst.in_flight().unwrap(), 0);
}

#[test]
fn consistency_token_turns_true_once_every_cluster_has_the_writes() {
    let (clock, inst) = instance(&["c1", "c2", "c3"]);
    write(&inst, "to-c1", "r", 1000, "v");
    let token = inst.consistency_token("t").unwrap();
    assert!(!inst.check_consistency("t", &token, false).unwrap());
    assert!(
        inst.check_consistency("t", &token, true).unwrap(),
        "data boost, local writes"
    );
    // A write after the token does not hold it back.
    clock.advance_micros(SECOND);
    write(&inst, "to-c1", "s", 1000, "w");
    clock.advance_micros(SECOND);
    assert!(inst.check_consistency("t", &token, false).unwrap());
    let later = inst.consistency_token("t").unwrap();
    assert!(!inst.check_consistency("t", &later, false).unwrap());
    for bad in ["", "x", "1-zz", "999999-0"] {
        let e = inst.check_consistency("t", bad, false).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{bad}");
    }
    let e = inst.check_consistency("other", &token, false).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}

#[test]
fn transactions_need_a_single_cluster_profile_that_allows_them() {
    let (_clock, inst) = instance(&["c1", "c2"]);
    for profile in ["any", "", "to-c2"] {
        let e = inst
            .route(profile, RequestKind::Transaction, b"r")
            .unwrap_err();
        assert_eq!(e.code(), Code::FailedPrecondition, "{profile}");
        assert_eq!(
            e.message(),
            "Single-row transactions are not allowed by this app profile"
        );
    }
    let (i, db) = inst.route("to-c1", RequestKind::Transaction, b"r").unwrap();
    db.write(|d| {
        d.read_modify_write_row("t", b"r", &[ReadModifyWriteRule::increment("cf", "n", 5)])
    })
    .unwrap();
    inst.after_write(i).unwrap();
    let e = inst.route("boost", RequestKind::Write, b"r").unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(inst.route("boost", RequestKind::Read, b"r").is_ok());
    let e = inst.route("nope", RequestKind::Read, b"r").unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
}

#[test]
fn the_default_profile_follows_the_cluster_count() {
    let clock = Arc::new(ManualClock::new(START));
    let one = ReplicatedInstance::new(vec![(
        "c1".into(),
        SharedDatabase::new(Database::with_clock(clock.clone())),
    )])
    .unwrap();
    assert!(one.route("", RequestKind::Transaction, b"r").is_ok());
    // One cluster: any id routes as the default (as Google's emulator ignores it).
    assert!(one
        .route("whatever", RequestKind::Transaction, b"r")
        .is_ok());
    let (_c, two) = instance(&["c1", "c2"]);
    assert_eq!(
        two.route("", RequestKind::Transaction, b"r")
            .unwrap_err()
            .code(),
        Code::FailedPrecondition
    );
}

#[test]
fn conflicting_writes_to_one_cell_converge_to_the_later_commit() {
    let (clock, inst) = instance(&["c1", "c2"]);
    write(&inst, "to-c1", "r", 5000, "from-c1");
    clock.advance_micros(10);
    write(&inst, "to-c2", "r", 5000, "from-c2");
    assert_eq!(read(&inst, "to-c1", "r"), vec![(5000, "from-c1".into())]);
    assert_eq!(read(&inst, "to-c2", "r"), vec![(5000, "from-c2".into())]);
    clock.advance_micros(3 * SECOND);
    assert_eq!(read(&inst, "to-c1", "r"), vec![(5000, "from-c2".into())]);
    assert_eq!(read(&inst, "to-c2", "r"), vec![(5000, "from-c2".into())]);
}

#[test]
fn a_late_delete_does_not_remove_a_later_write() {
    let (clock, inst) = instance(&["c1", "c2"]);
    write(&inst, "to-c1", "r", 1000, "old");
    clock.advance_micros(3 * SECOND);
    // c1 deletes the row; 1 µs later, before the delete reaches c2, c2 writes it again.
    let (i, db) = inst.route("to-c1", RequestKind::Write, b"r").unwrap();
    db.mutate_row("t", b"r", &[Mutation::DeleteFromRow])
        .unwrap();
    inst.after_write(i).unwrap();
    clock.advance_micros(1);
    write(&inst, "to-c2", "r", 2000, "new");
    clock.advance_micros(3 * SECOND);
    let want = vec![(2000, "new".to_string())];
    assert_eq!(read(&inst, "to-c1", "r"), want);
    assert_eq!(read(&inst, "to-c2", "r"), want);
}

#[test]
fn an_unavailable_cluster_fails_single_cluster_profiles_and_multi_cluster_fails_over() {
    let (clock, inst) = instance(&["c1", "c2"]);
    inst.set_available("c1", false).unwrap();
    let e = inst.route("to-c1", RequestKind::Read, b"r").unwrap_err();
    assert_eq!(e.code(), Code::Unavailable);
    let (i, _) = inst.route("any", RequestKind::Write, b"r").unwrap();
    assert_eq!(i, 1, "fails over to c2");
    write(&inst, "any", "r", 1000, "while-c1-down");
    clock.advance_micros(10 * SECOND);
    assert_eq!(inst.in_flight().unwrap(), 1, "waits for c1");
    inst.set_available("c1", true).unwrap();
    assert_eq!(
        read(&inst, "to-c1", "r"),
        vec![(1000, "while-c1-down".into())]
    );
    assert_eq!(inst.in_flight().unwrap(), 0);
    inst.set_available("c2", false).unwrap();
    inst.set_available("c1", false).unwrap();
    assert_eq!(
        inst.route("any", RequestKind::Read, b"r")
            .unwrap_err()
            .code(),
        Code::Unavailable
    );
    assert_eq!(
        inst.set_available("c9", true).unwrap_err().code(),
        Code::NotFound
    );
}

#[test]
fn schema_changes_and_new_tables_reach_every_cluster_with_their_rows() {
    let (clock, inst) = instance(&["c1", "c2"]);
    write(&inst, "to-c1", "r", 1000, "v");
    clock.advance_micros(3 * SECOND);
    inst.primary()
        .write(|d| {
            d.create_table("u", TableConfig::with_families(["a"]))?;
            d.mutate_row("u", b"k", &[Mutation::set_cell("a", "q", 7000, "x")])
        })
        .unwrap();
    // A write straight to the primary's database, not routed: pump copies the new table.
    inst.pump().unwrap();
    let c2 = inst.replica(1).unwrap();
    let row = c2.read_row("u", b"k").unwrap().unwrap();
    assert_eq!(row.cells[0].value, b"x");
    inst.primary().write(|d| d.delete_table("t")).unwrap();
    inst.pump().unwrap();
    assert_eq!(c2.read(|d| Ok(d.list_tables())).unwrap().len(), 1);
}

#[test]
fn negative_delay_is_refused() {
    let (_clock, inst) = instance(&["c1", "c2"]);
    assert_eq!(
        inst.set_delay_micros(-1).unwrap_err().code(),
        Code::InvalidArgument
    );
}

mod convergence {
    //! Every cluster ends with the cells one database has after applying the same writes in
    //! commit order, whatever the lag, the outages and the clusters the writes went to.
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Step {
        Set {
            cluster: usize,
            row: u8,
            col: u8,
            ts: u8,
            value: u8,
        },
        DeleteColumn {
            cluster: usize,
            row: u8,
            col: u8,
        },
        DeleteRow {
            cluster: usize,
            row: u8,
        },
        Advance(u8),
        Toggle(usize),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (0..3usize, 0..3u8, 0..2u8, 0..3u8, any::<u8>())
                .prop_map(|(cluster, row, col, ts, value)| Step::Set { cluster, row, col, ts, value }),
            1 => (0..3usize, 0..3u8, 0..2u8).prop_map(|(cluster, row, col)| Step::DeleteColumn { cluster, row, col }),
            1 => (0..3usize, 0..3u8).prop_map(|(cluster, row)| Step::DeleteRow { cluster, row }),
            2 => (0..4u8).prop_map(Step::Advance),
            1 => (0..3usize).prop_map(Step::Toggle),
        ]
    }

    /// Row key, family, qualifier, timestamp, value.
    type CellRow = (Vec<u8>, String, Vec<u8>, i64, Vec<u8>);

    fn contents(db: &SharedDatabase) -> Vec<CellRow> {
        db.read_rows("t", &Default::default())
            .unwrap()
            .into_iter()
            .flat_map(|r| {
                let key = r.key.clone();
                r.cells.into_iter().map(move |c| {
                    (
                        key.clone(),
                        c.family,
                        c.qualifier,
                        c.timestamp_micros,
                        c.value,
                    )
                })
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn clusters_converge_to_commit_order(steps in proptest::collection::vec(step(), 1..40)) {
            let (clock, inst) = instance(&["c1", "c2", "c3"]);
            let ids = ["c1", "c2", "c3"];
            let mut up = [true; 3];
            let reference = SharedDatabase::new(Database::with_clock(clock.clone()));
            reference.write(|d| d.create_table("t", TableConfig::with_families(["cf"]))).unwrap();
            for s in steps {
                let (cluster, row, ms) = match s {
                    Step::Advance(n) => { clock.advance_micros(i64::from(n) * SECOND); inst.pump().unwrap(); continue; }
                    Step::Toggle(c) => {
                        // Keep one cluster up so the test always has somewhere to write.
                        if up[c] && up.iter().filter(|&&u| u).count() == 1 { continue; }
                        up[c] = !up[c];
                        inst.set_available(ids[c], up[c]).unwrap();
                        continue;
                    }
                    Step::Set { cluster, row, col, ts, value } => (cluster, row, vec![Mutation::set_cell(
                        "cf", [b'q', col], i64::from(ts) * 1000, [value])]),
                    Step::DeleteColumn { cluster, row, col } => (cluster, row, vec![Mutation::DeleteFromColumn {
                        family: "cf".into(), qualifier: vec![b'q', col], time_range: Default::default() }]),
                    Step::DeleteRow { cluster, row } => (cluster, row, vec![Mutation::DeleteFromRow]),
                };
                if !up[cluster] { continue; }
                let db = inst.replica(cluster).unwrap();
                db.mutate_row("t", &[row], &ms).unwrap();
                inst.after_write(cluster).unwrap();
                // Every write commits at its own microsecond: commit order is unambiguous.
                reference.mutate_row("t", &[row], &ms).unwrap();
                clock.advance_micros(1);
            }
            for (c, id) in ids.iter().enumerate() {
                if !up[c] { inst.set_available(id, true).unwrap(); }
            }
            clock.advance_micros(10 * SECOND);
            inst.pump().unwrap();
            prop_assert_eq!(inst.in_flight().unwrap(), 0);
            let first = contents(inst.replica(0).unwrap());
            prop_assert_eq!(&first, &contents(&reference), "commit order");
            for c in 1..3 {
                prop_assert_eq!(&contents(inst.replica(c).unwrap()), &first, "cluster {}", c);
            }
        }
    }
}

#[test]
fn the_queue_on_storage_resumes_replication_after_a_restart() {
    use sparsetable::platform::storage::{MemStorage, Storage};
    let clock = Arc::new(ManualClock::new(START));
    let dbs: Vec<SharedDatabase> = (0..2)
        .map(|_| SharedDatabase::new(Database::with_clock(clock.clone())))
        .collect();
    let storage: Arc<dyn Storage> = Arc::new(MemStorage::new());
    let open = || {
        ReplicatedInstance::new(vec![
            ("c1".into(), dbs[0].clone()),
            ("c2".into(), dbs[1].clone()),
        ])
        .unwrap()
        .with_queue_storage(storage.clone())
        .unwrap()
    };
    let first = open();
    first.set_delay_micros(2 * SECOND).unwrap();
    first
        .primary()
        .write(|d| d.create_table("t", TableConfig::with_families(["cf"])))
        .unwrap();
    first.pump().unwrap();
    dbs[0]
        .mutate_row("t", b"r", &[Mutation::set_cell("cf", "q", 1000, "v")])
        .unwrap();
    first.after_write(0).unwrap();
    assert_eq!(first.in_flight().unwrap(), 1);
    // The process stops here: the queue lives on in storage, the databases in theirs.
    drop(first);
    let second = open();
    second.set_delay_micros(2 * SECOND).unwrap();
    assert_eq!(second.in_flight().unwrap(), 1, "the queue was restored");
    assert!(dbs[1].read_row("t", b"r").unwrap().is_none());
    clock.advance_micros(2 * SECOND);
    second.pump().unwrap();
    assert!(
        dbs[1].read_row("t", b"r").unwrap().is_some(),
        "replication resumed"
    );
    // A damaged queue file is DataLoss, never a wrong queue.
    let mut file = storage.create("REPLICATION").unwrap();
    file.append(b"sparsetable-replication 1\ngarbage").unwrap();
    drop(file);
    let e = ReplicatedInstance::new(vec![
        ("c1".into(), dbs[0].clone()),
        ("c2".into(), dbs[1].clone()),
    ])
    .unwrap()
    .with_queue_storage(storage.clone())
    .unwrap_err();
    assert_eq!(e.code(), Code::DataLoss);
}
