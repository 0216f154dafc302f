//! Family order: a row's families come in the order they were created (Cloud Bigtable's
//! order, REFERENCE.md "Data model"), that order survives closing and reopening a
//! database, and a directory written before the order was recorded (manifest version 2,
//! families listed by name) opens with its families in name order, later families after them.

use std::sync::Arc;

use sparsetable::codec::encoding::Encode;
use sparsetable::durability::manifest::{ManifestState, TableState, TabletState, MANIFEST_FILE};
use sparsetable::platform::storage::MemStorage;
use sparsetable::{
    ColumnFamily, Database, FamilyModification, ManualClock, Mutation, OpenOptions, Row,
    TableConfig,
};

fn families_of(row: &Row) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for c in &row.cells {
        if out.last() != Some(&c.family.as_str()) {
            out.push(&c.family);
        }
    }
    out
}

fn listed(db: &Database) -> Vec<String> {
    db.get_table("t")
        .unwrap()
        .config
        .families
        .keys()
        .cloned()
        .collect()
}

fn write_each(db: &mut Database, names: &[&str]) {
    let mutations: Vec<Mutation> = names
        .iter()
        .map(|f| Mutation::set_cell(*f, b"q", 1000, b"v"))
        .collect();
    db.mutate_row("t", b"r", &mutations).unwrap();
}

fn create(name: &str) -> FamilyModification {
    FamilyModification::Create {
        name: name.into(),
        family: ColumnFamily::default(),
    }
}

#[test]
fn creation_order_survives_reopening_a_directory() {
    let dir = std::env::temp_dir().join(format!("sparsetable-famorder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        let mut db = Database::open_dir(&dir, OpenOptions::default()).unwrap();
        db.create_table("t", TableConfig::with_families(["z", "a"]))
            .unwrap();
        // m is created after z and a; z is dropped and created again, so it goes last.
        db.modify_column_families(
            "t",
            &[
                create("m"),
                FamilyModification::Drop { name: "z".into() },
                create("z"),
            ],
        )
        .unwrap();
        write_each(&mut db, &["z", "m", "a"]);
        let row = db.read_row("t", b"r").unwrap().unwrap();
        assert_eq!(families_of(&row), ["a", "m", "z"]);
        // Once in the runs too: storage keeps its own (name) order; reads do not.
        db.compact_table("t").unwrap();
    }
    let mut db = Database::open_dir(&dir, OpenOptions::default()).unwrap();
    assert_eq!(listed(&db), ["a", "m", "z"]);
    let row = db.read_row("t", b"r").unwrap().unwrap();
    assert_eq!(families_of(&row), ["a", "m", "z"]);
    db.modify_column_families("t", &[create("b")]).unwrap();
    write_each(&mut db, &["b"]);
    drop(db);
    let db = Database::open_dir(&dir, OpenOptions::default()).unwrap();
    let row = db.read_row("t", b"r").unwrap().unwrap();
    assert_eq!(families_of(&row), ["a", "m", "z", "b"]);
    drop(db);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A version 2 manifest of one empty table with families `a` and `c` (listed by name, as
/// version 2 did): the bytes version 4 writes less the `table_config`'s trailing row-key
/// schema byte (`00`, none; versions 2 and 3 share the rest of the grammar), with the
/// version field set to 2, the length and the checksum resealed.
fn version_2_manifest() -> Vec<u8> {
    let state = ManifestState {
        next_file_number: 1,
        last_sequence: 0,
        log_files: vec![],
        tables: vec![TableState {
            id: "t".into(),
            config: TableConfig::with_families(["a", "c"]),
            tablets: vec![TabletState {
                id: 1,
                ..TabletState::default()
            }],
        }],
        backups: vec![],
    };
    let config = state.tables[0].config.to_bytes();
    let mut bytes = state.encode();
    let at = bytes
        .windows(config.len())
        .position(|w| w == config)
        .expect("the table_config is in the manifest");
    assert_eq!(bytes.remove(at + config.len() - 1), 0, "no row-key schema");
    let payload_len = (bytes.len() - 20) as u32;
    bytes[12..16].copy_from_slice(&payload_len.to_le_bytes());
    bytes[8..12].copy_from_slice(&2u32.to_le_bytes());
    let crc = crc32c(&[&bytes[8..16], &bytes[20..]].concat());
    bytes[16..20].copy_from_slice(&crc.to_le_bytes());
    bytes
}

/// CRC-32C (Castagnoli), bit by bit: the manifest's checksum, kept independent of the
/// engine's own implementation.
fn crc32c(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x82f6_3b78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn a_version_2_directory_reads_families_by_name_and_adds_new_ones_last() {
    let storage = MemStorage::new();
    storage.set_bytes(MANIFEST_FILE, version_2_manifest());
    let clock = Arc::new(ManualClock::new(1_000_000));
    let open = || {
        Database::open(
            Arc::new(storage.clone()),
            OpenOptions::default(),
            clock.clone(),
        )
        .unwrap()
    };
    let mut db = open();
    assert_eq!(listed(&db), ["a", "c"]);
    db.modify_column_families("t", &[create("b")]).unwrap();
    write_each(&mut db, &["a", "b", "c"]);
    let row = db.read_row("t", b"r").unwrap().unwrap();
    assert_eq!(families_of(&row), ["a", "c", "b"]);
    drop(db);
    // Rewritten as the current version, with the order kept.
    let db = open();
    assert_eq!(listed(&db), ["a", "c", "b"]);
    let row = db.read_row("t", b"r").unwrap().unwrap();
    assert_eq!(families_of(&row), ["a", "c", "b"]);
}
