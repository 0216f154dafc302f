//! The manifest: the engine's persistent state apart from row data. It names the tables and
//! their schemas, each table's tablets and the sorted runs (SSTables) of each tablet, the
//! backups, the commit logs still needed for recovery, the next free file number and the last
//! sequence number. The format is specified in docs/format/manifest.md.
//!
//! The manifest is always written whole: [`write_manifest`] writes `MANIFEST.tmp`, syncs it,
//! renames it over `MANIFEST` and syncs the directory. The rename is atomic, so a crash at
//! any point leaves either the old manifest or the new one, never a mixture;
//! [`read_manifest`] ignores (and removes) a leftover `MANIFEST.tmp`.
//!
//! Invariants, checked by [`ManifestState::decode`] (a violation is `DataLoss`) and by
//! [`write_manifest`] before anything is written (a violation is `Internal`):
//! - each table's tablets are sorted, contiguous and cover the whole key space: the first
//!   starts at the empty key (-infinity), the last ends at the empty key (+infinity), each
//!   tablet's end is the next one's start, and every tablet is non-empty (`start < end`);
//! - table ids are unique, and so are backup names;
//! - `log_files` strictly increase (oldest first);
//! - every file number named (logs, runs) is below `next_file_number`, so no new file can
//!   overwrite one the manifest still needs;
//! - every run's `smallest_key <= largest_key`.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::codec::encoding::{
    data_loss, put_bytes, put_len, put_str, put_varint64, put_varint_i64, Decode, Decoder, Encode,
    CRC32C,
};
use crate::codec::values::{decode_table_config, FamilyOrder};
// Runs are the LSM's; the manifest records them and names the type for its readers.
pub use crate::lsm::persist::RunMeta;
use crate::model::schema::TableConfig;
use crate::platform::storage::{read_all, Storage};
use crate::{Code, Error, Result};

/// The manifest's file name.
pub const MANIFEST_FILE: &str = "MANIFEST";

/// The name a new manifest is written under before it is renamed to [`MANIFEST_FILE`].
pub const MANIFEST_TMP_FILE: &str = "MANIFEST.tmp";

/// The first eight bytes of every manifest.
pub const MAGIC: [u8; 8] = *b"SPTMANIF";

/// The format version this code writes. Version 4 ends each `table_config` with the table's
/// optional row-key schema (older versions have none). Version 3 lists each table's families
/// in creation order; versions 1 and 2 listed them by name, which is read as their creation
/// order.
pub const FORMAT_VERSION: u32 = 4;

/// The oldest format version this code reads. Version 1 lacks the tablets'
/// `flushed_sequence`; it is taken to be the largest `max_sequence` of the tablet's runs,
/// which is what version 1 engines used.
pub const OLDEST_READABLE_VERSION: u32 = 1;

/// Bytes before the payload: magic (8), version (4), payload length (4), crc32c (4).
pub const HEADER_LEN: usize = 20;

/// One tablet: a contiguous row range of a table and its runs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TabletState {
    /// The tablet's id.
    pub id: u64,
    /// The first row key of the tablet, inclusive; empty = -infinity.
    pub start_key: Vec<u8>,
    /// The end of the tablet, exclusive; empty = +infinity.
    pub end_key: Vec<u8>,
    /// The tablet's runs, in the order the engine keeps them.
    pub runs: Vec<RunMeta>,
    /// Every logged write to the tablet's rows with a sequence at or below this is in its
    /// runs (or was compacted or dropped away from them): recovery replays only later ones.
    pub flushed_sequence: u64,
}

/// One table: its schema and tablets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableState {
    /// The table id.
    pub id: String,
    /// The table's schema and options.
    pub config: TableConfig,
    /// The tablets, sorted by key and covering the whole key space.
    pub tablets: Vec<TabletState>,
}

/// One backup: a table's schema and runs at a point in time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupState {
    /// The backup's id.
    pub name: String,
    /// The id of the table it was taken from.
    pub table: String,
    /// When it was taken, in microseconds since the Unix epoch.
    pub created_micros: i64,
    /// The table's schema when the backup was taken.
    pub config: TableConfig,
    /// The runs holding the backup's data (shared with the table while both exist).
    pub runs: Vec<RunMeta>,
}

/// Everything the manifest records. The format version is not a field: [`FORMAT_VERSION`]
/// is written, and decoding accepts it and every version back to
/// [`OLDEST_READABLE_VERSION`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ManifestState {
    /// The next file number to allocate; every file number named here is below it.
    pub next_file_number: u64,
    /// The last sequence number assigned.
    pub last_sequence: u64,
    /// The commit log file numbers still needed for recovery, oldest first.
    pub log_files: Vec<u64>,
    /// The tables.
    pub tables: Vec<TableState>,
    /// The backups.
    pub backups: Vec<BackupState>,
}

impl Encode for RunMeta {
    fn encode_to(&self, out: &mut Vec<u8>) {
        put_varint64(out, self.file_number);
        put_varint64(out, self.size_bytes);
        put_varint64(out, self.entries);
        put_bytes(out, &self.smallest_key);
        put_bytes(out, &self.largest_key);
        put_varint64(out, self.max_sequence);
    }
}

impl Decode for RunMeta {
    fn decode_from(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(RunMeta {
            file_number: d.varint64("run.file_number")?,
            size_bytes: d.varint64("run.size_bytes")?,
            entries: d.varint64("run.entries")?,
            smallest_key: d.byte_vec("run.smallest_key")?,
            largest_key: d.byte_vec("run.largest_key")?,
            max_sequence: d.varint64("run.max_sequence")?,
        })
    }
}

/// The smallest encodings, used to bound counts before allocating.
const MIN_RUN_BYTES: usize = 6;
const MIN_TABLET_BYTES: usize = 4;
const MIN_TABLE_BYTES: usize = 12;
const MIN_BACKUP_BYTES: usize = 14;

fn put_runs(out: &mut Vec<u8>, runs: &[RunMeta]) {
    put_len(out, runs.len());
    for run in runs {
        run.encode_to(out);
    }
}

fn decode_runs(d: &mut Decoder<'_>) -> Result<Vec<RunMeta>> {
    let n = d.count(MIN_RUN_BYTES, "runs count")?;
    let mut runs = Vec::with_capacity(n);
    for _ in 0..n {
        runs.push(RunMeta::decode_from(d)?);
    }
    Ok(runs)
}

impl Encode for TabletState {
    fn encode_to(&self, out: &mut Vec<u8>) {
        put_varint64(out, self.id);
        put_bytes(out, &self.start_key);
        put_bytes(out, &self.end_key);
        put_runs(out, &self.runs);
        put_varint64(out, self.flushed_sequence);
    }
}

impl TabletState {
    /// A tablet as format `version` wrote it.
    fn decode_version(d: &mut Decoder<'_>, version: u32) -> Result<Self> {
        let id = d.varint64("tablet.id")?;
        let start_key = d.byte_vec("tablet.start_key")?;
        let end_key = d.byte_vec("tablet.end_key")?;
        let runs = decode_runs(d)?;
        let flushed_sequence = if version >= 2 {
            d.varint64("tablet.flushed_sequence")?
        } else {
            runs.iter().map(|r| r.max_sequence).max().unwrap_or(0)
        };
        Ok(TabletState {
            id,
            start_key,
            end_key,
            runs,
            flushed_sequence,
        })
    }
}

impl Encode for TableState {
    fn encode_to(&self, out: &mut Vec<u8>) {
        put_str(out, &self.id);
        self.config.encode_to(out);
        put_len(out, self.tablets.len());
        for tablet in &self.tablets {
            tablet.encode_to(out);
        }
    }
}

impl TableState {
    /// A table as format `version` wrote it.
    fn decode_version(d: &mut Decoder<'_>, version: u32) -> Result<Self> {
        let id = d.string("table.id")?;
        let config = decode_table_config(d, family_order(version), version >= 4)?;
        let n = d.count(MIN_TABLET_BYTES, "table.tablets count")?;
        let mut tablets = Vec::with_capacity(n);
        for _ in 0..n {
            tablets.push(TabletState::decode_version(d, version)?);
        }
        Ok(TableState {
            id,
            config,
            tablets,
        })
    }
}

impl Encode for BackupState {
    fn encode_to(&self, out: &mut Vec<u8>) {
        put_str(out, &self.name);
        put_str(out, &self.table);
        put_varint_i64(out, self.created_micros);
        self.config.encode_to(out);
        put_runs(out, &self.runs);
    }
}

/// How format `version` lists a table's families.
fn family_order(version: u32) -> FamilyOrder {
    if version >= 3 {
        FamilyOrder::Creation
    } else {
        FamilyOrder::NameAscending
    }
}

impl BackupState {
    /// A backup as format `version` wrote it.
    fn decode_version(d: &mut Decoder<'_>, version: u32) -> Result<Self> {
        Ok(BackupState {
            name: d.string("backup.name")?,
            table: d.string("backup.table")?,
            created_micros: d.varint_i64("backup.created_micros")?,
            config: decode_table_config(d, family_order(version), version >= 4)?,
            runs: decode_runs(d)?,
        })
    }
}

impl ManifestState {
    /// The payload: everything after the header.
    fn encode_payload(&self) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint64(&mut out, self.next_file_number);
        put_varint64(&mut out, self.last_sequence);
        put_len(&mut out, self.log_files.len());
        for &n in &self.log_files {
            put_varint64(&mut out, n);
        }
        put_len(&mut out, self.tables.len());
        for table in &self.tables {
            table.encode_to(&mut out);
        }
        put_len(&mut out, self.backups.len());
        for backup in &self.backups {
            backup.encode_to(&mut out);
        }
        out
    }

    fn decode_payload(payload: &[u8], version: u32) -> Result<Self> {
        let d = &mut Decoder::new(payload);
        let next_file_number = d.varint64("next_file_number")?;
        let last_sequence = d.varint64("last_sequence")?;
        let n = d.count(1, "log_files count")?;
        let mut log_files = Vec::with_capacity(n);
        for _ in 0..n {
            log_files.push(d.varint64("log_files entry")?);
        }
        let n = d.count(MIN_TABLE_BYTES, "tables count")?;
        let mut tables = Vec::with_capacity(n);
        for _ in 0..n {
            tables.push(TableState::decode_version(d, version)?);
        }
        let n = d.count(MIN_BACKUP_BYTES, "backups count")?;
        let mut backups = Vec::with_capacity(n);
        for _ in 0..n {
            backups.push(BackupState::decode_version(d, version)?);
        }
        d.finish("the manifest payload")?;
        Ok(ManifestState {
            next_file_number,
            last_sequence,
            log_files,
            tables,
            backups,
        })
    }

    /// The complete manifest file: header, then payload.
    ///
    /// A payload longer than `u32::MAX` bytes cannot be framed; [`write_manifest`] refuses
    /// it, and this function then writes a length that [`ManifestState::decode`] rejects.
    pub fn encode(&self) -> Vec<u8> {
        let payload = self.encode_payload();
        let len = u32::try_from(payload.len()).unwrap_or(u32::MAX);
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
        let crc = checksum(out.get(8..16).unwrap_or_default(), &payload);
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    /// Decodes a whole manifest file and checks its invariants (see the module docs).
    ///
    /// # Errors
    /// `DataLoss` naming the problem: a short file, wrong magic, a length that does not match
    /// the file, a checksum mismatch, an unsupported version, a malformed payload or a broken
    /// invariant.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let (Some(magic), Some(version), Some(len), Some(crc), Some(payload)) = (
            bytes.get(0..8),
            bytes.get(8..12),
            bytes.get(12..16),
            bytes.get(16..20),
            bytes.get(HEADER_LEN..),
        ) else {
            return Err(data_loss(format!(
                "manifest: {} bytes is shorter than the {HEADER_LEN}-byte header",
                bytes.len()
            )));
        };
        if magic != MAGIC {
            return Err(data_loss(
                "manifest: bad magic number (not a manifest file)",
            ));
        }
        let len = le32(len);
        if u64::from(len) != payload.len() as u64 {
            return Err(data_loss(format!(
                "manifest: header says {len} payload bytes but {} follow it",
                payload.len()
            )));
        }
        if checksum(bytes.get(8..16).unwrap_or_default(), payload) != le32(crc) {
            return Err(data_loss("manifest: checksum mismatch"));
        }
        let version = le32(version);
        if !(OLDEST_READABLE_VERSION..=FORMAT_VERSION).contains(&version) {
            return Err(data_loss(format!(
                "manifest: unsupported format version {version} \
                 (this build reads {OLDEST_READABLE_VERSION} to {FORMAT_VERSION})"
            )));
        }
        let state = Self::decode_payload(payload, version)
            .map_err(|e| data_loss(format!("manifest payload: {}", e.message())))?;
        state
            .check()
            .map_err(|why| data_loss(format!("manifest: {why}")))?;
        Ok(state)
    }

    /// Checks the invariants listed in the module docs.
    ///
    /// # Errors
    /// `Internal` naming the first broken invariant (a state the engine should never build).
    pub fn validate(&self) -> Result<()> {
        self.check()
            .map_err(|why| Error::new(Code::Internal, format!("invalid manifest state: {why}")))
    }

    fn check(&self) -> core::result::Result<(), String> {
        let next = self.next_file_number;
        let check_file = |kind: &str, n: u64| {
            if n >= next {
                Err(format!(
                    "{kind} file number {n} is not below next_file_number {next}"
                ))
            } else {
                Ok(())
            }
        };
        let check_runs = |owner: &str, runs: &[RunMeta]| {
            runs.iter().try_for_each(|run| {
                check_file(owner, run.file_number)?;
                if run.smallest_key > run.largest_key {
                    return Err(format!(
                        "{owner}: run {} has smallest_key after largest_key",
                        run.file_number
                    ));
                }
                Ok(())
            })
        };
        for pair in self.log_files.windows(2) {
            if pair[0] >= pair[1] {
                return Err(format!(
                    "log_files are not strictly increasing ({} then {})",
                    pair[0], pair[1]
                ));
            }
        }
        self.log_files
            .iter()
            .try_for_each(|&n| check_file("log", n))?;
        let mut ids = BTreeSet::new();
        for table in &self.tables {
            if !ids.insert(table.id.as_str()) {
                return Err(format!("table {:?} appears twice", table.id));
            }
            check_tablets(table)?;
            for tablet in &table.tablets {
                check_runs(
                    &format!("table {:?} tablet {}", table.id, tablet.id),
                    &tablet.runs,
                )?;
                if tablet.flushed_sequence > self.last_sequence {
                    return Err(format!(
                        "table {:?} tablet {}: flushed_sequence {} is after last_sequence {}",
                        table.id, tablet.id, tablet.flushed_sequence, self.last_sequence
                    ));
                }
            }
        }
        let mut names = BTreeSet::new();
        for backup in &self.backups {
            if !names.insert(backup.name.as_str()) {
                return Err(format!("backup {:?} appears twice", backup.name));
            }
            check_runs(&format!("backup {:?}", backup.name), &backup.runs)?;
        }
        Ok(())
    }
}

/// Tablets sorted, contiguous, non-empty and covering the whole key space.
fn check_tablets(table: &TableState) -> core::result::Result<(), String> {
    let id = &table.id;
    let (Some(first), Some(last)) = (table.tablets.first(), table.tablets.last()) else {
        return Err(format!("table {id:?} has no tablets"));
    };
    if !first.start_key.is_empty() {
        return Err(format!(
            "table {id:?}: the first tablet does not start at the empty key"
        ));
    }
    if !last.end_key.is_empty() {
        return Err(format!(
            "table {id:?}: the last tablet does not end at the empty key"
        ));
    }
    for pair in table.tablets.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if a.end_key != b.start_key {
            return Err(format!(
                "table {id:?}: tablet {} ends where tablet {} does not start (tablets must be contiguous)",
                a.id, b.id
            ));
        }
        // With contiguity, a non-empty end below a non-empty start catches unsorted and
        // empty tablets alike; an empty key here would be +infinity in the middle.
        if a.end_key.is_empty() || (!a.start_key.is_empty() && a.start_key >= a.end_key) {
            return Err(format!(
                "table {id:?}: tablet {} is empty or out of order",
                a.id
            ));
        }
    }
    Ok(())
}

fn le32(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(b.get(..4).unwrap_or(&[0; 4]));
    u32::from_le_bytes(a)
}

/// crc32c of the version and length fields followed by the payload.
fn checksum(version_and_len: &[u8], payload: &[u8]) -> u32 {
    let mut digest = CRC32C.digest();
    digest.update(version_and_len);
    digest.update(payload);
    digest.finalize()
}

/// Replaces the manifest atomically: writes [`MANIFEST_TMP_FILE`], syncs it, renames it to
/// [`MANIFEST_FILE`] and syncs the directory. A crash at any point leaves the old manifest or
/// the new one.
///
/// # Errors
/// `Internal` if the state breaks an invariant (nothing is written); `ResourceExhausted` if
/// it encodes to more than 4 GiB; the storage's errors.
pub fn write_manifest(storage: &dyn Storage, state: &ManifestState) -> Result<()> {
    state.validate()?;
    let bytes = state.encode();
    if bytes.len() - HEADER_LEN > u32::MAX as usize {
        return Err(Error::new(
            Code::ResourceExhausted,
            "manifest larger than 4 GiB",
        ));
    }
    let mut file = storage.create(MANIFEST_TMP_FILE)?;
    file.append(&bytes)?;
    file.sync()?;
    drop(file);
    storage.rename(MANIFEST_TMP_FILE, MANIFEST_FILE)?;
    storage.sync_dir()
}

/// Reads the manifest: `None` if there is none yet. A leftover [`MANIFEST_TMP_FILE`] (from
/// a crash during [`write_manifest`]) is ignored and removed.
///
/// # Errors
/// `DataLoss` if the manifest is corrupt (see [`ManifestState::decode`]); the storage's
/// errors.
pub fn read_manifest(storage: &dyn Storage) -> Result<Option<ManifestState>> {
    let names = storage.list()?;
    if names.iter().any(|n| n == MANIFEST_TMP_FILE) {
        storage.remove(MANIFEST_TMP_FILE)?;
        storage.sync_dir()?;
    }
    if !names.iter().any(|n| n == MANIFEST_FILE) {
        return Ok(None);
    }
    let bytes = read_all(storage, MANIFEST_FILE)?;
    ManifestState::decode(&bytes).map(Some)
}

#[cfg(test)]
mod tests;
