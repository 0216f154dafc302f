//! Compatibility test for the `INSTANCE` file (docs/format/instance.md, version 2), kept
//! forever: `tests/fixtures/instance/INSTANCE` was written by `sparsetable-server` itself
//! (Google's Python admin client against `--data-dir`: CreateInstance with labels and
//! cluster `fixture-c1`, CreateCluster `fixture-c2` with autoscaling and HDD, app profiles
//! `single` and `any`, a table's IAM policy in the server's extension). The core must read
//! it to the values below, and writing what it read must give the same bytes, so the
//! bindings that share a data directory with the server keep its file as it was.
//!
//! If this test fails, the format changed: that needs a new version and an entry in the
//! doc, never an edited fixture. Also here: the std store (`api::instances::store`) that
//! every front-end with a directory reads and replaces the file through.

use sparsetable::api::instances::store::{
    read_file, read_project, remove_file, replace_bytes, replace_file, INSTANCE_TMP_FILE,
};
use sparsetable::api::instances::{decode_file, encode_file, INSTANCE_FILE};
use sparsetable::{Autoscaling, Code, InstanceType, Isolation, Routing, StorageType};

const SERVER_WROTE: &[u8] = include_bytes!("../../tests/fixtures/instance/INSTANCE");

#[test]
fn the_file_the_server_wrote_reads_and_writes_back_byte_for_byte() {
    let stored = decode_file(SERVER_WROTE).unwrap();
    let r = &stored.record;
    assert_eq!(r.project, "fixture-project");
    assert_eq!(r.id, "fixture-inst");
    assert_eq!(r.display_name, "Fixture Instance");
    assert_eq!(r.kind, InstanceType::Production);
    assert_eq!(r.create_time_micros, 1_700_000_000_000_000);
    assert_eq!(
        r.labels.iter().collect::<Vec<_>>(),
        [
            (&"env".into(), &"test".into()),
            (&"team".into(), &"storage".into())
        ]
    );
    let clusters = r.clusters();
    assert_eq!(clusters.len(), 2);
    assert_eq!(
        (clusters[0].id.as_str(), clusters[0].zone.as_str()),
        ("fixture-c1", "us-east1-b")
    );
    assert_eq!(clusters[0].serve_nodes, 3);
    assert_eq!(clusters[0].storage, StorageType::Ssd);
    assert_eq!(clusters[0].autoscaling, None);
    assert_eq!(
        (clusters[1].id.as_str(), clusters[1].zone.as_str()),
        ("fixture-c2", "europe-west1-c")
    );
    assert_eq!(clusters[1].storage, StorageType::Hdd);
    assert_eq!(
        clusters[1].autoscaling,
        Some(Autoscaling {
            min_nodes: 1,
            max_nodes: 5,
            cpu_percent: 60,
            storage_gib_per_node: 0
        })
    );
    let profiles = r.app_profiles();
    assert_eq!(profiles.len(), 2);
    assert_eq!(profiles[0].id, "any");
    assert_eq!(profiles[0].description, "every cluster");
    assert_eq!(
        profiles[0].routing,
        Routing::MultiCluster {
            cluster_ids: vec!["fixture-c2".into(), "fixture-c1".into()],
            row_affinity: false
        }
    );
    assert_eq!(profiles[1].id, "single");
    assert_eq!(
        profiles[1].routing,
        Routing::SingleCluster {
            cluster_id: "fixture-c1".into(),
            allow_transactional_writes: true
        }
    );
    assert!(profiles
        .iter()
        .all(|p| p.isolation == Isolation::Standard && !p.etag.is_empty()));
    // The server's extension (its protobuf InstanceMeta, with the table's IAM policy) is
    // kept as bytes the core does not read.
    let ext = &stored.extension;
    assert!(ext
        .windows(b"reader@example.com".len())
        .any(|w| w == b"reader@example.com"));
    assert_eq!(encode_file(r, ext), SERVER_WROTE, "the format changed");
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "sparsetable-instfile-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn the_store_replaces_the_file_whole_and_reads_it_back() {
    let root = temp_dir("store");
    let folder = root.join("fixture-project").join("fixture-inst");
    assert_eq!(read_file(&folder).unwrap(), None, "no folder, no file");
    let stored = decode_file(SERVER_WROTE).unwrap();
    replace_file(&folder, &stored.record, &stored.extension).unwrap();
    assert_eq!(
        std::fs::read(folder.join(INSTANCE_FILE)).unwrap(),
        SERVER_WROTE
    );
    assert!(!folder.join(INSTANCE_TMP_FILE).exists(), "renamed away");
    assert_eq!(read_file(&folder).unwrap().as_ref(), Some(&stored));
    // A stale temporary file (a crash mid-write) is ignored and then overwritten.
    std::fs::write(folder.join(INSTANCE_TMP_FILE), b"half a file").unwrap();
    assert_eq!(read_file(&folder).unwrap().as_ref(), Some(&stored));
    let mut renamed = stored.record.clone();
    renamed.set_display_name("Renamed").unwrap();
    replace_file(&folder, &renamed, &stored.extension).unwrap();
    assert_eq!(read_file(&folder).unwrap().unwrap().record, renamed);
    // The project's instances, by folder; a folder without a file is skipped.
    std::fs::create_dir_all(root.join("fixture-project").join("implicit")).unwrap();
    let listed = read_project(&root.join("fixture-project")).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].0, "fixture-inst");
    assert!(read_project(&root.join("nobody")).unwrap().is_empty());
    remove_file(&folder).unwrap();
    assert_eq!(read_file(&folder).unwrap(), None);
    remove_file(&folder).unwrap();
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_damaged_or_truncated_file_on_disk_is_data_loss_naming_it() {
    let root = temp_dir("damaged");
    let folder = root.join("p").join("inst");
    let mut cases: Vec<Vec<u8>> = (0..SERVER_WROTE.len())
        .step_by(7)
        .map(|n| SERVER_WROTE[..n].to_vec())
        .collect();
    let mut flipped = SERVER_WROTE.to_vec();
    flipped[40] ^= 1;
    cases.push(flipped);
    cases.push(b"sparsetable-instance 1\n\x0a\x00".to_vec());
    for bytes in cases {
        replace_bytes(&folder, &bytes).unwrap();
        let e = read_file(&folder).unwrap_err();
        assert_eq!(e.code(), Code::DataLoss, "{e}");
        assert!(e.message().contains(INSTANCE_FILE), "{e}");
        let e = read_project(&root.join("p")).unwrap_err();
        assert_eq!(e.code(), Code::DataLoss, "{e}");
    }
    let _ = std::fs::remove_dir_all(&root);
}
