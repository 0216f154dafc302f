//! Compatibility test for the manifest format (docs/format/manifest.md), kept forever: the
//! committed fixture `tests/fixtures/manifest/v4/MANIFEST` (the current version) must decode
//! to the state below, and encoding that state must reproduce the fixture byte for byte.
//! The version 3 fixture `tests/fixtures/manifest/v3/MANIFEST` must still decode, to the same
//! state without the row-key schema (version 3 had none). The version 2 fixture `tests/fixtures/manifest/v2/MANIFEST` must still decode, to the
//! same state with the families in name order (version 2 listed them by name, and that is
//! read as their creation order); the version 1 fixture `tests/fixtures/manifest/MANIFEST`
//! to the version 2 state with each tablet's `flushed_sequence` taken from its runs.
//!
//! If this test fails, the format changed: that needs a new format version and a "Version
//! changes" entry in the doc, never an edited fixture.

use sparsetable::durability::manifest::{
    read_manifest, write_manifest, BackupState, ManifestState, RunMeta, TableState, TabletState,
    MANIFEST_FILE,
};
use sparsetable::platform::storage::{read_all, MemStorage};
use sparsetable::{
    ColumnFamily, GcRule, Granularity, Int64Encoding, KeyField, KeyFieldType, RowKeySchema,
    StructEncoding, TableConfig, ValueType,
};

const FIXTURE: &[u8] = include_bytes!("../../tests/fixtures/manifest/v4/MANIFEST");
const FIXTURE_V3: &[u8] = include_bytes!("../../tests/fixtures/manifest/v3/MANIFEST");
const FIXTURE_V2: &[u8] = include_bytes!("../../tests/fixtures/manifest/v2/MANIFEST");
const FIXTURE_V1: &[u8] = include_bytes!("../../tests/fixtures/manifest/MANIFEST");

/// The fixture's contents: the version 3 state, its table (and backup) with a row-key schema
/// `user_id` BYTES, `order` INT64 (ordered code), delimited by `#`.
fn state() -> ManifestState {
    let mut s = state_v3();
    let schema = RowKeySchema {
        fields: vec![
            KeyField {
                name: "user_id".to_string(),
                field_type: KeyFieldType::Bytes,
            },
            KeyField {
                name: "order".to_string(),
                field_type: KeyFieldType::Int64(Int64Encoding::OrderedCodeBytes),
            },
        ],
        encoding: StructEncoding::DelimitedBytes(b"#".to_vec()),
    };
    s.tables[0].config.row_key_schema = Some(schema.clone());
    s.backups[0].config.row_key_schema = Some(schema);
    s
}

/// The version 3 fixture's contents, as in the doc's worked example: family `n` created
/// before `cf`.
fn state_v3() -> ManifestState {
    let mut config = TableConfig::with_families(["n"]);
    config.families.get_mut("n").unwrap().value_type = ValueType::Int64Sum;
    config.families.insert(
        "cf".to_string(),
        ColumnFamily {
            gc_rule: GcRule::MaxNumVersions(1),
            value_type: ValueType::Bytes,
        },
    );
    config.granularity = Granularity::Millis;
    config.initial_splits = vec![b"m".to_vec()];
    let run = RunMeta {
        file_number: 3,
        size_bytes: 1024,
        entries: 4,
        smallest_key: b"alice".to_vec(),
        largest_key: b"dave".to_vec(),
        max_sequence: 4,
    };
    ManifestState {
        next_file_number: 6,
        last_sequence: 4,
        log_files: vec![5],
        tables: vec![TableState {
            id: "users".to_string(),
            config: config.clone(),
            tablets: vec![
                TabletState {
                    id: 1,
                    start_key: vec![],
                    end_key: b"m".to_vec(),
                    runs: vec![run.clone()],
                    flushed_sequence: 4,
                },
                // Its writes 1 and 2 were deleted and compacted away: no run remains.
                TabletState {
                    id: 2,
                    start_key: b"m".to_vec(),
                    end_key: vec![],
                    runs: vec![],
                    flushed_sequence: 2,
                },
            ],
        }],
        backups: vec![BackupState {
            name: "nightly".to_string(),
            table: "users".to_string(),
            created_micros: 1_700_000_000_000_000,
            config,
            runs: vec![run],
        }],
    }
}

/// What the version 2 fixture decodes to: the same families, listed (and so created) by
/// name, `cf` before `n`.
fn state_v2() -> ManifestState {
    let mut s = state_v3();
    let by_name = |c: &TableConfig| {
        let mut families: Vec<_> = c.families.clone().into_iter().collect();
        families.sort_by(|a, b| a.0.cmp(&b.0));
        families.into_iter().collect()
    };
    s.tables[0].config.families = by_name(&s.tables[0].config);
    s.backups[0].config.families = by_name(&s.backups[0].config);
    s
}

/// What the version 1 fixture decodes to: no tablet recorded `flushed_sequence`, so each
/// takes its runs' largest `max_sequence` (none: 0).
fn state_v1() -> ManifestState {
    let mut s = state_v2();
    s.tables[0].tablets[1].flushed_sequence = 0;
    s
}

#[test]
fn version_3_fixture_still_decodes_without_a_row_key_schema() {
    assert_eq!(ManifestState::decode(FIXTURE_V3).unwrap(), state_v3());
    let storage = MemStorage::new();
    storage.set_bytes(MANIFEST_FILE, FIXTURE_V3.to_vec());
    assert_eq!(read_manifest(&storage).unwrap(), Some(state_v3()));
}

#[test]
fn version_2_fixture_still_decodes_with_families_in_name_order() {
    let read = ManifestState::decode(FIXTURE_V2).unwrap();
    assert_eq!(read, state_v2());
    let names: Vec<_> = read.tables[0].config.families.keys().collect();
    assert_eq!(names, ["cf", "n"]);
    let storage = MemStorage::new();
    storage.set_bytes(MANIFEST_FILE, FIXTURE_V2.to_vec());
    assert_eq!(read_manifest(&storage).unwrap(), Some(state_v2()));
}

#[test]
fn version_1_fixture_still_decodes() {
    assert_eq!(ManifestState::decode(FIXTURE_V1).unwrap(), state_v1());
    let storage = MemStorage::new();
    storage.set_bytes(MANIFEST_FILE, FIXTURE_V1.to_vec());
    assert_eq!(read_manifest(&storage).unwrap(), Some(state_v1()));
}

#[test]
fn fixture_decodes_to_the_documented_state() {
    assert_eq!(ManifestState::decode(FIXTURE).unwrap(), state());
    let storage = MemStorage::new();
    storage.set_bytes(MANIFEST_FILE, FIXTURE.to_vec());
    assert_eq!(read_manifest(&storage).unwrap(), Some(state()));
}

#[test]
fn encoding_the_state_reproduces_the_fixture() {
    assert_eq!(state().encode(), FIXTURE);
    let storage = MemStorage::new();
    write_manifest(&storage, &state()).unwrap();
    assert_eq!(read_all(&storage, MANIFEST_FILE).unwrap(), FIXTURE);
}

#[test]
fn every_damaged_byte_of_any_fixture_is_data_loss() {
    for fixture in [FIXTURE, FIXTURE_V3, FIXTURE_V2, FIXTURE_V1] {
        for i in 0..fixture.len() {
            let mut damaged = fixture.to_vec();
            damaged[i] ^= 0x04;
            let err = ManifestState::decode(&damaged).unwrap_err();
            assert_eq!(err.code(), sparsetable::Code::DataLoss, "byte {i}");
        }
    }
}

/// Writes the current-version fixture; run by hand (`--ignored`) only when a new format
/// version is introduced, never to "fix" a failing comparison above.
#[test]
#[ignore]
fn write_current_fixture() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/manifest/v4/MANIFEST"
    );
    std::fs::create_dir_all(std::path::Path::new(path).parent().unwrap()).unwrap();
    std::fs::write(path, state().encode()).unwrap();
}
