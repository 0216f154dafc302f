//! The instance model (`sparsetable::api::instances`): its operations keep the rules and
//! change nothing when they fail, and its stored form reads back what was written and
//! never panics on damaged bytes.

use std::collections::BTreeMap;

use sparsetable::api::instances::{decode_file, encode_file, INSTANCE_FILE_MAGIC};
use sparsetable::{
    AppProfileRecord, Autoscaling, ClusterRecord, Code, InstanceRecord, InstanceType, Isolation,
    Routing, StorageType,
};

fn two_clusters() -> InstanceRecord {
    let mut labels = BTreeMap::new();
    labels.insert("env".to_string(), "test".to_string());
    InstanceRecord::create(
        "proj",
        "my-instance",
        Some("My instance"),
        InstanceType::Development,
        labels,
        vec![
            ClusterRecord::new("my-instance-c2", "us-east1-c"),
            ClusterRecord::new("my-instance-c1", "us-east1-b"),
        ],
        1_700_000_000_000_000,
    )
    .unwrap()
}

fn single(id: &str, cluster: &str, tx: bool) -> AppProfileRecord {
    AppProfileRecord {
        id: id.into(),
        description: format!("{id} profile"),
        etag: String::new(),
        routing: Routing::SingleCluster {
            cluster_id: cluster.into(),
            allow_transactional_writes: tx,
        },
        isolation: Isolation::Standard,
    }
}

#[test]
fn create_checks_every_field_and_sorts_clusters() {
    let r = two_clusters();
    let ids: Vec<&str> = r.clusters().iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["my-instance-c1", "my-instance-c2"]);
    assert_eq!(r.name(), "projects/proj/instances/my-instance");
    let make = |id: &str, name: Option<&str>, clusters: Vec<ClusterRecord>| {
        InstanceRecord::create(
            "proj",
            id,
            name,
            InstanceType::Production,
            BTreeMap::new(),
            clusters,
            0,
        )
    };
    let c = || vec![ClusterRecord::new("cluster-1", "local")];
    for (err, want) in [
        (make("bad", None, c()).unwrap_err(), "instance id"),
        (
            make("good-id", Some("abc"), c()).unwrap_err(),
            "display name",
        ),
        (
            make("good-id", None, vec![]).unwrap_err(),
            "at least one cluster",
        ),
        (
            make("good-id", None, vec![ClusterRecord::new("c", "local")]).unwrap_err(),
            "cluster id",
        ),
        (
            make("good-id", None, [c(), c()].concat()).unwrap_err(),
            "given twice",
        ),
        (
            make(
                "good-id",
                None,
                vec![ClusterRecord::new("cluster-1", "Not A Zone")],
            )
            .unwrap_err(),
            "zone",
        ),
    ] {
        assert_eq!(err.code(), Code::InvalidArgument, "{}", err.message());
        assert!(
            err.message().contains(want),
            "{} lacks {want}",
            err.message()
        );
    }
    // A display name left out is the id.
    assert_eq!(make("good-id", None, c()).unwrap().display_name, "good-id");
}

#[test]
fn the_default_profile_follows_the_cluster_count_unless_stored() {
    let one = InstanceRecord::implicit("proj", "solo").unwrap();
    assert_eq!(one.clusters()[0].id, "solo-c1");
    let p = one.effective_app_profile("").unwrap();
    assert_eq!(
        p.routing,
        Routing::SingleCluster {
            cluster_id: "solo-c1".into(),
            allow_transactional_writes: true
        }
    );
    let mut two = two_clusters();
    assert!(matches!(
        two.effective_app_profile("default").unwrap().routing,
        Routing::MultiCluster { .. }
    ));
    assert!(two.effective_app_profile("nope").is_none());
    two.create_app_profile(single("alpha", "my-instance-c1", true))
        .unwrap();
    let listed: Vec<String> = two
        .listed_app_profiles()
        .into_iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(
        listed,
        ["alpha", "default"],
        "the implied default is listed"
    );
    two.create_app_profile(single("default", "my-instance-c2", true))
        .unwrap();
    assert_eq!(
        two.effective_app_profile("").unwrap().routing,
        single("default", "my-instance-c2", true).routing
    );
}

#[test]
fn app_profiles_route_only_to_the_instances_clusters_and_etags_guard_updates() {
    let mut r = two_clusters();
    let before = r.clone();
    let e = r
        .create_app_profile(single("pinned", "elsewhere", false))
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = r
        .create_app_profile(single("-bad", "my-instance-c1", false))
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(r, before, "a refused profile changes nothing");
    let etag = r
        .create_app_profile(single("pinned", "my-instance-c1", true))
        .unwrap()
        .etag
        .clone();
    assert!(!etag.is_empty());
    let e = r
        .create_app_profile(single("pinned", "my-instance-c1", true))
        .unwrap_err();
    assert_eq!(e.code(), Code::AlreadyExists);
    let mut stale = single("pinned", "my-instance-c2", false);
    stale.etag = "stale".into();
    assert_eq!(
        r.update_app_profile(stale).unwrap_err().code(),
        Code::Aborted
    );
    let mut fresh = single("pinned", "my-instance-c2", false);
    fresh.etag = etag.clone();
    let updated = r.update_app_profile(fresh).unwrap();
    assert_ne!(updated.etag, etag, "an update changes the etag");
    let (clusters, profiles) = r.routing();
    assert_eq!(clusters, ["my-instance-c1", "my-instance-c2"]);
    assert_eq!(profiles.len(), 1);
    assert_eq!(
        r.delete_app_profile("missing").unwrap_err().code(),
        Code::NotFound
    );
    r.delete_app_profile("pinned").unwrap();
    assert!(r.app_profiles().is_empty());
}

#[test]
fn clusters_come_and_go_by_the_rules() {
    let mut r = two_clusters();
    assert_eq!(
        r.add_cluster(ClusterRecord::new("my-instance-c1", "local"))
            .unwrap_err()
            .code(),
        Code::AlreadyExists
    );
    r.add_cluster(ClusterRecord::new("my-instance-c0", "local"))
        .unwrap();
    assert_eq!(r.clusters()[0].id, "my-instance-c0", "kept sorted");
    let auto = Autoscaling {
        min_nodes: 2,
        max_nodes: 1,
        cpu_percent: 50,
        storage_gib_per_node: 0,
    };
    let before = r.clone();
    assert_eq!(
        r.update_cluster("my-instance-c0", 3, Some(auto))
            .unwrap_err()
            .code(),
        Code::InvalidArgument
    );
    assert_eq!(r, before);
    r.update_cluster(
        "my-instance-c0",
        3,
        Some(Autoscaling {
            max_nodes: 5,
            ..auto
        }),
    )
    .unwrap();
    assert_eq!(r.cluster("my-instance-c0").unwrap().serve_nodes, 3);
    // Autoscaling alone keeps the node count; refusals change nothing.
    let wider = Autoscaling {
        max_nodes: 9,
        ..auto
    };
    r.set_cluster_autoscaling("my-instance-c0", Some(wider))
        .unwrap();
    let c0 = r.cluster("my-instance-c0").unwrap();
    assert_eq!((c0.serve_nodes, c0.autoscaling), (3, Some(wider)));
    let before = r.clone();
    let e = r.set_cluster_autoscaling("nope", None).unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    assert_eq!(
        r.set_cluster_autoscaling("my-instance-c0", Some(auto))
            .unwrap_err()
            .code(),
        Code::InvalidArgument
    );
    assert_eq!(r, before);
    r.set_cluster_autoscaling("my-instance-c0", None).unwrap();
    let c0 = r.cluster("my-instance-c0").unwrap();
    assert_eq!((c0.serve_nodes, c0.autoscaling), (3, None));
    r.create_app_profile(single("pinned", "my-instance-c1", false))
        .unwrap();
    r.create_app_profile(AppProfileRecord {
        routing: Routing::MultiCluster {
            cluster_ids: vec!["my-instance-c0".into(), "my-instance-c2".into()],
            row_affinity: true,
        },
        ..AppProfileRecord::any_cluster("multi")
    })
    .unwrap();
    let e = r.remove_cluster("my-instance-c1").unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(e.message().contains("pinned"), "{}", e.message());
    r.remove_cluster("my-instance-c0").unwrap();
    assert_eq!(
        r.app_profile("multi").unwrap().routing,
        Routing::MultiCluster {
            cluster_ids: vec!["my-instance-c2".into()],
            row_affinity: true
        },
        "a multi-cluster profile forgets a deleted cluster"
    );
    r.delete_app_profile("pinned").unwrap();
    r.remove_cluster("my-instance-c1").unwrap();
    let e = r.remove_cluster("my-instance-c2").unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "the last cluster stays");
    assert_eq!(
        r.remove_cluster("gone-cluster").unwrap_err().code(),
        Code::NotFound
    );
}

#[test]
fn instance_type_changes_one_way_and_labels_are_checked() {
    let mut r = two_clusters();
    r.set_kind(InstanceType::Production).unwrap();
    assert_eq!(
        r.set_kind(InstanceType::Development).unwrap_err().code(),
        Code::FailedPrecondition
    );
    let mut bad = BTreeMap::new();
    bad.insert("Upper".to_string(), String::new());
    assert_eq!(r.set_labels(bad).unwrap_err().code(), Code::InvalidArgument);
    assert_eq!(r.labels.get("env").map(String::as_str), Some("test"));
}

fn rich() -> InstanceRecord {
    let mut r = two_clusters();
    r.update_cluster(
        "my-instance-c2",
        4,
        Some(Autoscaling {
            min_nodes: 1,
            max_nodes: 9,
            cpu_percent: 60,
            storage_gib_per_node: 2560,
        }),
    )
    .unwrap();
    r.create_app_profile(single("pinned", "my-instance-c1", true))
        .unwrap();
    r.create_app_profile(AppProfileRecord {
        isolation: Isolation::DataBoostReadOnly,
        routing: Routing::MultiCluster {
            cluster_ids: vec!["my-instance-c2".into(), "my-instance-c1".into()],
            row_affinity: true,
        },
        ..AppProfileRecord::any_cluster("boost")
    })
    .unwrap();
    r
}

#[test]
fn the_file_reads_back_what_was_written_with_its_extension() {
    let r = rich();
    let bytes = encode_file(&r, b"server's own bytes");
    assert!(bytes.starts_with(INSTANCE_FILE_MAGIC));
    let back = decode_file(&bytes).unwrap();
    assert_eq!(back.record, r);
    assert_eq!(back.extension, b"server's own bytes");
    assert_eq!(
        back.record.cluster("my-instance-c2").unwrap().storage,
        StorageType::Ssd
    );
    // The etag counter is kept: the next etag after a reload is new.
    let mut again = back.record.clone();
    let e1 = r.app_profile("pinned").unwrap().etag.clone();
    let e2 = again
        .update_app_profile(single("pinned", "my-instance-c2", false))
        .unwrap()
        .etag
        .clone();
    assert_ne!(e1, e2);
}

#[test]
fn a_damaged_file_is_data_loss_never_a_panic() {
    let bytes = encode_file(&rich(), b"ext");
    for len in 0..bytes.len() {
        let e = decode_file(&bytes[..len]).unwrap_err();
        assert_eq!(e.code(), Code::DataLoss, "truncated at {len}");
    }
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x41;
        let e = decode_file(&b).unwrap_err();
        assert_eq!(e.code(), Code::DataLoss, "byte {i} flipped");
    }
    let v1 = b"sparsetable-instance 1\n\x0a\x00";
    let e = decode_file(v1).unwrap_err();
    assert!(e.message().contains("version 1"), "{}", e.message());
}

#[test]
fn an_assembled_record_continues_its_etags() {
    let r = rich();
    let etag = r.app_profile("boost").unwrap().etag.clone();
    let mut again = InstanceRecord::assemble(
        &r.project,
        &r.id,
        &r.display_name,
        r.kind,
        r.labels.clone(),
        r.create_time_micros,
        r.clusters().to_vec(),
        r.app_profiles().to_vec(),
    )
    .unwrap();
    let next = again
        .update_app_profile(single("pinned", "my-instance-c2", false))
        .unwrap()
        .etag
        .clone();
    assert!(
        r.app_profiles().iter().all(|p| p.etag != next),
        "{next} repeats an etag ({etag} was the last)"
    );
    // The invariants are checked: a profile routing to a missing cluster is refused.
    let e = InstanceRecord::assemble(
        "p",
        "i",
        "i",
        InstanceType::Production,
        BTreeMap::new(),
        0,
        vec![ClusterRecord::new("c-one1", "local")],
        vec![single("x", "gone", false)],
    )
    .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}

#[test]
fn the_implied_default_profile_is_stored_by_its_first_update_and_no_other_id_is() {
    let mut two = two_clusters();
    let err = two
        .update_app_profile(single("absent", "my-instance-c1", false))
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    let stored = two
        .update_app_profile(single("default", "my-instance-c1", false))
        .unwrap()
        .clone();
    assert!(!stored.etag.is_empty());
    assert_eq!(two.app_profile("default"), Some(&stored));
    assert_eq!(
        two.effective_app_profile("").unwrap().routing,
        stored.routing,
        "requests without a profile now follow the stored default"
    );
    // From now on it is a stored profile like any other: a stale etag is refused.
    let mut stale = single("default", "my-instance-c2", false);
    stale.etag = "not-the-etag".into();
    assert_eq!(
        two.update_app_profile(stale).unwrap_err().code(),
        Code::Aborted
    );
}

#[test]
fn logical_views_are_stored_as_version_3_and_version_2_still_reads() {
    use sparsetable::api::instances::file::INSTANCE_FILE_MAGIC_V3;
    // Without views the file stays version 2 (readers of version 2 keep reading it).
    let plain = rich();
    let v2 = encode_file(&plain, b"ext");
    assert!(v2.starts_with(INSTANCE_FILE_MAGIC));
    assert!(decode_file(&v2).unwrap().record.logical_views().is_empty());
    let mut r = rich();
    r.create_logical_view("v1", "SELECT _key FROM t", true, |_, _| Ok(()))
        .unwrap();
    r.create_logical_view("a-view", "SELECT 1 AS one", false, |_, _| Ok(()))
        .unwrap();
    let bytes = encode_file(&r, b"ext");
    assert!(bytes.starts_with(INSTANCE_FILE_MAGIC_V3));
    let back = decode_file(&bytes).unwrap();
    assert_eq!(back.record, r);
    assert_eq!(back.extension, b"ext");
    let v = back.record.logical_view("v1").unwrap();
    assert_eq!(v.query, "SELECT _key FROM t");
    assert!(v.deletion_protection);
    // Damage in the views' part is DATA_LOSS, never a panic.
    for len in 0..bytes.len() {
        let e = decode_file(&bytes[..len]).unwrap_err();
        assert_eq!(e.code(), Code::DataLoss, "truncated at {len}");
    }
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x41;
        assert_eq!(
            decode_file(&b).unwrap_err().code(),
            Code::DataLoss,
            "byte {i}"
        );
    }
}

#[test]
fn materialized_views_are_stored_as_version_4_and_older_versions_still_read() {
    use sparsetable::api::instances::file::{
        version_of, INSTANCE_FILE_MAGIC_V3, INSTANCE_FILE_MAGIC_V4,
    };
    let mut r = rich();
    r.create_materialized_view(
        "by_g",
        "SELECT cf['g'] AS _key, COUNT(*) AS n FROM t GROUP BY _key",
        true,
        |_| Ok(()),
    )
    .unwrap();
    // Materialized views alone: version 4, with an empty logical views list before them.
    let bytes = encode_file(&r, b"ext");
    assert!(bytes.starts_with(INSTANCE_FILE_MAGIC_V4));
    assert_eq!(version_of(&bytes), Some(4));
    let back = decode_file(&bytes).unwrap();
    assert_eq!(back.record, r);
    assert_eq!(back.extension, b"ext");
    let v = back.record.materialized_view("by_g").unwrap();
    assert!(v.deletion_protection);
    assert!(!v.etag.is_empty());
    // With logical views too, both read back; without materialized views the file is
    // version 3 again, readable by readers of version 3.
    r.create_logical_view("lv", "SELECT 1 AS one", false, |_, _| Ok(()))
        .unwrap();
    let both = encode_file(&r, b"");
    assert_eq!(decode_file(&both).unwrap().record, r);
    let etag = r.materialized_view("by_g").unwrap().etag.clone();
    r.update_materialized_view("by_g", false, &etag).unwrap();
    r.delete_materialized_view("by_g", "").unwrap();
    let v3 = encode_file(&r, b"");
    assert!(v3.starts_with(INSTANCE_FILE_MAGIC_V3));
    assert_eq!(decode_file(&v3).unwrap().record, r);
    // The etag counter is stored: a view made after a restart gets an etag none had.
    let mut again = decode_file(&encode_file(&back.record, b"")).unwrap().record;
    again.update_materialized_view("by_g", true, "").unwrap();
    assert_ne!(again.materialized_view("by_g").unwrap().etag, v.etag);
    // Damage in the views' part is DATA_LOSS, never a panic.
    for len in 0..bytes.len() {
        let e = decode_file(&bytes[..len]).unwrap_err();
        assert_eq!(e.code(), Code::DataLoss, "truncated at {len}");
    }
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x41;
        assert_eq!(
            decode_file(&b).unwrap_err().code(),
            Code::DataLoss,
            "byte {i}"
        );
    }
}
