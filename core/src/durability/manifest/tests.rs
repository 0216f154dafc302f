//! The manifest's unit tests: round trips, versions, damage never a panic.

use super::*;
use crate::codec::values::tests::arb_table_config;
use crate::platform::storage::{MemStorage, RandomAccessFile, WritableFile};
use crate::{ColumnFamily, GcRule, ValueType};
use alloc::boxed::Box;
use alloc::string::ToString;
use alloc::sync::Arc;
use alloc::vec;
use proptest::prelude::*;

fn run(file_number: u64, smallest: &[u8], largest: &[u8]) -> RunMeta {
    RunMeta {
        file_number,
        size_bytes: 4096,
        entries: 10,
        smallest_key: smallest.to_vec(),
        largest_key: largest.to_vec(),
        max_sequence: 40,
    }
}

fn tablet(id: u64, start: &[u8], end: &[u8], runs: Vec<RunMeta>) -> TabletState {
    TabletState {
        id,
        start_key: start.to_vec(),
        end_key: end.to_vec(),
        // Past the runs' own sequences, as after a compaction that dropped rows.
        flushed_sequence: if runs.is_empty() { 0 } else { 45 },
        runs,
    }
}

fn state() -> ManifestState {
    let mut config = TableConfig::with_families(["cf"]);
    config.families.insert(
        "counts".to_string(),
        ColumnFamily {
            gc_rule: GcRule::Union(vec![
                GcRule::MaxNumVersions(2),
                GcRule::MaxAge {
                    micros: 86_400_000_000,
                },
            ]),
            value_type: ValueType::Int64Sum,
        },
    );
    ManifestState {
        next_file_number: 12,
        last_sequence: 99,
        log_files: vec![10, 11],
        tables: vec![
            TableState {
                id: "users".to_string(),
                config: config.clone(),
                tablets: vec![
                    tablet(1, b"", b"m", vec![run(3, b"a", b"k"), run(5, b"b", b"c")]),
                    tablet(2, b"m", b"t", vec![]),
                    tablet(4, b"t", b"", vec![run(7, b"t", b"zz")]),
                ],
            },
            TableState {
                id: "empty".to_string(),
                config: TableConfig::default(),
                tablets: vec![tablet(6, b"", b"", vec![])],
            },
        ],
        backups: vec![BackupState {
            name: "nightly".to_string(),
            table: "users".to_string(),
            created_micros: 1_700_000_000_000_000,
            config,
            runs: vec![run(3, b"a", b"k")],
        }],
    }
}

fn decode_err(s: &ManifestState) -> Error {
    ManifestState::decode(&s.encode()).unwrap_err()
}

#[test]
fn state_round_trips() {
    let s = state();
    assert_eq!(ManifestState::decode(&s.encode()).unwrap(), s);
    let empty = ManifestState::default();
    assert_eq!(ManifestState::decode(&empty.encode()).unwrap(), empty);
}

#[test]
fn header_layout_matches_the_spec() {
    let bytes = ManifestState::default().encode();
    assert_eq!(bytes[..8], *b"SPTMANIF");
    assert_eq!(bytes[8..12], [4, 0, 0, 0]);
    // Payload: next_file_number, last_sequence, three empty lists.
    assert_eq!(bytes[12..16], [5, 0, 0, 0]);
    assert_eq!(bytes[20..], [0, 0, 0, 0, 0]);
    let mut crc_input = bytes[8..16].to_vec();
    crc_input.extend_from_slice(&bytes[20..]);
    assert_eq!(bytes[16..20], CRC32C.checksum(&crc_input).to_le_bytes());
}

#[test]
fn every_flipped_byte_or_truncation_is_data_loss() {
    let bytes = state().encode();
    for i in 0..bytes.len() {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut damaged = bytes.clone();
            damaged[i] ^= mask;
            let err = ManifestState::decode(&damaged).unwrap_err();
            assert_eq!(err.code(), Code::DataLoss, "byte {i} ^ {mask:#x}");
        }
    }
    for cut in 0..bytes.len() {
        let err = ManifestState::decode(&bytes[..cut]).unwrap_err();
        assert_eq!(err.code(), Code::DataLoss, "cut at {cut}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(
        ManifestState::decode(&longer).unwrap_err().code(),
        Code::DataLoss
    );
}

#[test]
fn tablets_must_cover_the_key_space() {
    let cases: [(&str, Vec<TabletState>); 6] = [
        ("no tablets", vec![]),
        ("first tablet", vec![tablet(1, b"a", b"", vec![])]),
        ("last tablet", vec![tablet(1, b"", b"z", vec![])]),
        (
            "contiguous",
            vec![tablet(1, b"", b"m", vec![]), tablet(2, b"n", b"", vec![])],
        ),
        (
            "empty or out of order",
            vec![
                tablet(1, b"", b"m", vec![]),
                tablet(2, b"m", b"c", vec![]),
                tablet(3, b"c", b"", vec![]),
            ],
        ),
        (
            "empty or out of order",
            vec![
                tablet(1, b"", b"m", vec![]),
                tablet(2, b"m", b"m", vec![]),
                tablet(3, b"m", b"", vec![]),
            ],
        ),
    ];
    for (want, tablets) in cases {
        let mut s = state();
        s.tables[0].tablets = tablets;
        let err = decode_err(&s);
        assert_eq!(err.code(), Code::DataLoss);
        assert!(err.message().contains(want), "{want}: {err}");
        assert_eq!(
            write_manifest(&MemStorage::new(), &s).unwrap_err().code(),
            Code::Internal
        );
    }
    // An empty key in the middle would be +infinity before the end.
    let mut s = state();
    s.tables[0].tablets = vec![tablet(1, b"", b"", vec![]), tablet(2, b"", b"", vec![])];
    assert!(decode_err(&s).message().contains("empty or out of order"));
}

#[test]
fn other_invariants_are_checked() {
    let mut s = state();
    s.log_files = vec![11, 10];
    assert!(decode_err(&s).message().contains("strictly increasing"));
    let mut s = state();
    s.next_file_number = 7;
    assert!(decode_err(&s)
        .message()
        .contains("not below next_file_number"));
    let mut s = state();
    s.tables[1].id = "users".to_string();
    assert!(decode_err(&s).message().contains("appears twice"));
    let mut s = state();
    s.backups.push(s.backups[0].clone());
    assert!(decode_err(&s).message().contains("appears twice"));
    let mut s = state();
    s.backups[0].runs[0].smallest_key = b"z".to_vec();
    assert!(decode_err(&s).message().contains("smallest_key"));
    let mut s = state();
    s.tables[0].tablets[1].flushed_sequence = 100;
    assert!(decode_err(&s).message().contains("after last_sequence"));
}

/// Version 1 is version 2 without the tablets' `flushed_sequence`; reading one takes it
/// from the runs, as version 1 engines did.
#[test]
fn version_1_reads_flushed_sequence_from_the_runs() {
    let s = state();
    let mut payload = Vec::new();
    put_varint64(&mut payload, s.next_file_number);
    put_varint64(&mut payload, s.last_sequence);
    put_len(&mut payload, s.log_files.len());
    for &n in &s.log_files {
        put_varint64(&mut payload, n);
    }
    put_len(&mut payload, s.tables.len());
    for table in &s.tables {
        put_str(&mut payload, &table.id);
        put_config_v3(&mut payload, &table.config);
        put_len(&mut payload, table.tablets.len());
        for t in &table.tablets {
            put_varint64(&mut payload, t.id);
            put_bytes(&mut payload, &t.start_key);
            put_bytes(&mut payload, &t.end_key);
            put_runs(&mut payload, &t.runs);
        }
    }
    put_len(&mut payload, s.backups.len());
    for b in &s.backups {
        put_str(&mut payload, &b.name);
        put_str(&mut payload, &b.table);
        put_varint_i64(&mut payload, b.created_micros);
        put_config_v3(&mut payload, &b.config);
        put_runs(&mut payload, &b.runs);
    }
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&1u32.to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&[0; 4]);
    bytes.extend_from_slice(&payload);
    let read = ManifestState::decode(&with_version(bytes.clone(), 1)).unwrap();
    let mut expected = s;
    for table in &mut expected.tables {
        for t in &mut table.tablets {
            t.flushed_sequence = t.runs.iter().map(|r| r.max_sequence).max().unwrap_or(0);
        }
    }
    assert_eq!(read, expected);
    // The same bytes read as version 2 run out where flushed_sequence should be.
    assert_eq!(
        ManifestState::decode(&with_version(bytes, 2))
            .unwrap_err()
            .code(),
        Code::DataLoss
    );
}

/// Version 3 lists a table's families in creation order; versions 1 and 2 listed them
/// by name (read as their creation order) and their readers still insist on it.
#[test]
fn version_3_keeps_family_creation_order() {
    let mut s = state();
    s.tables[0].config = TableConfig::with_families(["z", "a"]);
    s.backups[0].config = TableConfig::with_families(["y", "b"]);
    let bytes = s.encode();
    let read = ManifestState::decode(&bytes).unwrap();
    assert_eq!(read, s);
    let names: Vec<_> = read.tables[0].config.families.keys().collect();
    assert_eq!(names, ["z", "a"]);
    let names: Vec<_> = read.backups[0].config.families.keys().collect();
    assert_eq!(names, ["y", "b"]);
    let err = ManifestState::decode(&with_version(bytes, 2)).unwrap_err();
    assert_eq!(err.code(), Code::DataLoss);
    assert!(err.message().contains("strictly ascending"), "{err}");
}

/// A `table_config` as versions 1 to 3 wrote it: without the trailing row-key schema
/// (version 4's encoding of a config without one, less its `00` presence byte).
fn put_config_v3(out: &mut Vec<u8>, config: &TableConfig) {
    assert!(config.row_key_schema.is_none());
    let mut bytes = Vec::new();
    config.encode_to(&mut bytes);
    assert_eq!(bytes.pop(), Some(0));
    out.extend_from_slice(&bytes);
}

/// `bytes` with its version field set to `version` and the checksum re-sealed, so only
/// the version differs.
fn with_version(mut bytes: Vec<u8>, version: u32) -> Vec<u8> {
    bytes[8..12].copy_from_slice(&version.to_le_bytes());
    let mut crc_input = bytes[8..16].to_vec();
    crc_input.extend_from_slice(&bytes[20..]);
    let crc = CRC32C.checksum(&crc_input).to_le_bytes();
    bytes[16..20].copy_from_slice(&crc);
    bytes
}

#[test]
fn other_versions_and_magic_are_rejected() {
    for version in [0, 5, 0x0100_0002] {
        let err = ManifestState::decode(&with_version(state().encode(), version)).unwrap_err();
        assert!(
            err.message()
                .contains(&format!("unsupported format version {version}")),
            "{err}"
        );
    }
    let err = ManifestState::decode(b"not a manifest at all, really").unwrap_err();
    assert!(err.message().contains("magic"), "{err}");
}

#[test]
fn write_then_read_and_leftover_tmp_is_removed() {
    let storage = MemStorage::new();
    assert_eq!(read_manifest(&storage).unwrap(), None);
    write_manifest(&storage, &state()).unwrap();
    assert_eq!(read_manifest(&storage).unwrap(), Some(state()));
    assert_eq!(storage.list().unwrap(), [MANIFEST_FILE]);
    storage.set_bytes(MANIFEST_TMP_FILE, b"half a manif".to_vec());
    assert_eq!(read_manifest(&storage).unwrap(), Some(state()));
    assert_eq!(storage.list().unwrap(), [MANIFEST_FILE]);
    storage.set_bytes(MANIFEST_FILE, b"garbage".to_vec());
    assert_eq!(read_manifest(&storage).unwrap_err().code(), Code::DataLoss);
}

/// A storage that "crashes" at its `fail_at`-th operation: that operation fails (an
/// append first writes half its bytes) and nothing after it happens.
struct Crashing {
    inner: MemStorage,
    ops: Arc<spin::Mutex<usize>>,
    fail_at: usize,
}

impl Crashing {
    fn tick(&self) -> Result<()> {
        let mut ops = self.ops.lock();
        *ops += 1;
        if *ops >= self.fail_at {
            Err(Error::new(Code::Unavailable, "crash"))
        } else {
            Ok(())
        }
    }
}

struct CrashingFile {
    inner: Box<dyn WritableFile>,
    ops: Arc<spin::Mutex<usize>>,
    fail_at: usize,
}

impl WritableFile for CrashingFile {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        let mut ops = self.ops.lock();
        *ops += 1;
        if *ops >= self.fail_at {
            self.inner.append(&data[..data.len() / 2])?;
            return Err(Error::new(Code::Unavailable, "crash"));
        }
        self.inner.append(data)
    }
    fn sync(&mut self) -> Result<()> {
        let mut ops = self.ops.lock();
        *ops += 1;
        if *ops >= self.fail_at {
            return Err(Error::new(Code::Unavailable, "crash"));
        }
        self.inner.sync()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl Storage for Crashing {
    fn create(&self, name: &str) -> Result<Box<dyn WritableFile>> {
        self.tick()?;
        Ok(Box::new(CrashingFile {
            inner: self.inner.create(name)?,
            ops: self.ops.clone(),
            fail_at: self.fail_at,
        }))
    }
    fn append_to(&self, name: &str) -> Result<Box<dyn WritableFile>> {
        self.tick()?;
        self.inner.append_to(name)
    }
    fn open(&self, name: &str) -> Result<Arc<dyn RandomAccessFile>> {
        self.inner.open(name)
    }
    fn rename(&self, from: &str, to: &str) -> Result<()> {
        self.tick()?;
        self.inner.rename(from, to)
    }
    fn remove(&self, name: &str) -> Result<()> {
        self.tick()?;
        self.inner.remove(name)
    }
    fn list(&self) -> Result<Vec<String>> {
        self.inner.list()
    }
    fn sync_dir(&self) -> Result<()> {
        self.tick()?;
        self.inner.sync_dir()
    }
}

#[test]
fn a_crash_at_any_step_leaves_the_old_or_the_new_manifest() {
    let old = state();
    let mut new = state();
    new.last_sequence = 500;
    new.tables.pop();
    let mut outcomes = BTreeSet::new();
    // create, append, sync, rename, sync_dir: five operations, then success.
    for fail_at in 1..=6 {
        let inner = MemStorage::new();
        write_manifest(&inner, &old).unwrap();
        let crashing = Crashing {
            inner: inner.clone(),
            ops: Arc::default(),
            fail_at,
        };
        let result = write_manifest(&crashing, &new);
        assert_eq!(result.is_ok(), fail_at == 6, "fail_at {fail_at}");
        let read = read_manifest(&inner).unwrap().unwrap();
        assert!(read == old || read == new, "fail_at {fail_at}");
        outcomes.insert(read == new);
        assert_eq!(inner.list().unwrap(), [MANIFEST_FILE], "tmp removed");
    }
    assert_eq!(outcomes.len(), 2, "both outcomes were exercised");
}

proptest! {
    #[test]
    fn random_states_round_trip(
        config in arb_table_config(),
        splits in proptest::collection::btree_set(
            proptest::collection::vec(any::<u8>(), 1..4), 0..5),
        logs in proptest::collection::btree_set(0u64..100, 0..4),
        seq in 45u64..,
        created in any::<i64>(),
    ) {
        let mut bounds: Vec<Vec<u8>> = vec![vec![]];
        bounds.extend(splits);
        bounds.push(vec![]);
        let tablets: Vec<TabletState> = bounds
            .windows(2)
            .enumerate()
            .map(|(i, w)| tablet(i as u64, &w[0], &w[1], vec![run(100 + i as u64, b"a", b"b")]))
            .collect();
        let s = ManifestState {
            next_file_number: 1000,
            last_sequence: seq,
            log_files: logs.into_iter().collect(),
            tables: vec![TableState { id: "t".to_string(), config: config.clone(), tablets }],
            backups: vec![BackupState {
                name: "b".to_string(),
                table: "t".to_string(),
                created_micros: created,
                config,
                runs: vec![run(100, b"", b"")],
            }],
        };
        prop_assert_eq!(ManifestState::decode(&s.encode()).unwrap(), s);
    }

    #[test]
    fn arbitrary_bytes_never_panic(mut bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
        // Half the inputs get a valid header so the payload decoder is exercised too.
        if bytes.first().is_some_and(|b| b % 2 == 0) {
            let payload = bytes.clone();
            bytes = MAGIC.to_vec();
            bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
            bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            let crc = checksum(&bytes[8..16], &payload);
            bytes.extend_from_slice(&crc.to_le_bytes());
            bytes.extend_from_slice(&payload);
        }
        match ManifestState::decode(&bytes) {
            Ok(s) => prop_assert_eq!(s.encode(), bytes),
            Err(e) => prop_assert_eq!(e.code(), Code::DataLoss),
        }
    }
}
