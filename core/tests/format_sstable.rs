//! Compatibility test for the SSTable format (docs/format/sstable.md), kept forever: the
//! committed fixtures must decode to the worked example's entries, and writing the same
//! entries with the same options must reproduce the uncompressed fixture byte for byte.
//!
//! `SPARSETABLE_WRITE_FIXTURES=1 cargo test -p sparsetable --test format_sstable` writes the
//! fixtures instead: only ever for a new fixture, never to "fix" an old one.

use std::path::PathBuf;
use std::sync::Arc;

use sparsetable::lsm::sstable::{Compression, Sstable, SstableBuilder, SstableOptions};
use sparsetable::platform::storage::{read_all, MemStorage, RandomAccessFile, Storage};
use sparsetable::Code;

/// The worked example: three cells of two rows; the filter key is the row key.
const EXAMPLE: [(&[u8], &[u8], &[u8]); 3] = [
    (b"row1/a", b"v1", b"row1"),
    (b"row1/b", b"v2", b"row1"),
    (b"row2/a", b"v3", b"row2"),
];

fn example_options() -> SstableOptions {
    SstableOptions {
        block_size: 24,
        restart_interval: 2,
        compression: Compression::None,
        bloom_bits_per_key: 10,
    }
}

/// Compressible values so that LZ4 is actually used.
fn lz4_entries() -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    (0..4u8)
        .map(|i| {
            let row = format!("row{i}").into_bytes();
            let mut key = row.clone();
            key.extend_from_slice(b"/cf:q");
            (key, vec![b'a' + i; 200], row)
        })
        .collect()
}

fn lz4_options() -> SstableOptions {
    SstableOptions {
        block_size: 256,
        restart_interval: 16,
        compression: Compression::Lz4,
        bloom_bits_per_key: 10,
    }
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/sstable")
        .join(name)
}

fn encode<'a>(
    options: SstableOptions,
    entries: impl IntoIterator<Item = (&'a [u8], &'a [u8], &'a [u8])>,
) -> Vec<u8> {
    let storage = MemStorage::new();
    let mut b = SstableBuilder::new(storage.create("t").unwrap(), options).unwrap();
    for (k, v, f) in entries {
        b.add(k, v, f).unwrap();
    }
    b.finish().unwrap();
    read_all(&storage, "t").unwrap()
}

fn open(bytes: Vec<u8>) -> Sstable {
    let storage = MemStorage::new();
    storage.set_bytes("t", bytes);
    let file: Arc<dyn RandomAccessFile> = storage.open("t").unwrap();
    Sstable::open(file).unwrap()
}

fn read_fixture(name: &str, fresh: Vec<u8>) -> Vec<u8> {
    let path = fixture(name);
    if std::env::var_os("SPARSETABLE_WRITE_FIXTURES").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &fresh).unwrap();
    }
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn scan(t: &Sstable) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut it = t.iter();
    it.seek_to_first();
    let mut out = Vec::new();
    while it.valid() {
        out.push((it.key().to_vec(), it.value().to_vec()));
        it.next();
    }
    it.status().unwrap();
    out
}

#[test]
fn example_fixture_decodes_to_the_worked_example() {
    let bytes = read_fixture("example.sst", encode(example_options(), EXAMPLE));
    assert_eq!(bytes.len(), 348);
    assert_eq!(&bytes[bytes.len() - 8..], b"\x89SPTSST\n");
    let t = open(bytes);
    let want: Vec<_> = EXAMPLE
        .iter()
        .map(|(k, v, _)| (k.to_vec(), v.to_vec()))
        .collect();
    assert_eq!(scan(&t), want);
    let p = t.properties();
    assert_eq!(p.format_version, 1);
    assert_eq!(p.num_entries, 3);
    assert_eq!(p.num_data_blocks, 2);
    assert_eq!(p.num_filter_keys, 2);
    assert_eq!(p.raw_key_bytes, 18);
    assert_eq!(p.raw_value_bytes, 6);
    assert_eq!(p.smallest_key.as_deref(), Some(&b"row1/a"[..]));
    assert_eq!(p.largest_key.as_deref(), Some(&b"row2/a"[..]));
    assert_eq!(p.file_size, 348);
    assert!(t.may_contain(b"row1") && t.may_contain(b"row2"));
    assert_eq!(t.get(b"row1/b").unwrap().as_deref(), Some(&b"v2"[..]));
    let mut it = t.iter();
    it.seek(b"row1/c");
    assert_eq!(it.key(), b"row2/a");
    it.prev();
    assert_eq!(it.key(), b"row1/b");
}

#[test]
fn writing_the_example_reproduces_the_fixture_bytes() {
    let fresh = encode(example_options(), EXAMPLE);
    assert_eq!(read_fixture("example.sst", fresh.clone()), fresh);
}

#[test]
fn lz4_fixture_decodes() {
    let entries = lz4_entries();
    let fresh = encode(
        lz4_options(),
        entries.iter().map(|(k, v, f)| (&k[..], &v[..], &f[..])),
    );
    // Not compared with `fresh`: another lz4_flex version may compress differently, and any
    // valid LZ4 encoding is a valid table.
    let bytes = read_fixture("example_lz4.sst", fresh);
    assert!(bytes.len() < 800, "the values should have been compressed");
    let t = open(bytes);
    let want: Vec<_> = entries
        .iter()
        .map(|(k, v, _)| (k.clone(), v.clone()))
        .collect();
    assert_eq!(scan(&t), want);
    assert_eq!(t.properties().num_entries, 4);
    assert_eq!(t.properties().num_filter_keys, 4);
}

#[test]
fn damaged_fixture_is_data_loss() {
    let mut bytes = std::fs::read(fixture("example.sst")).unwrap();
    bytes[3] ^= 0x20;
    let storage = MemStorage::new();
    storage.set_bytes("t", bytes);
    let t = Sstable::open(storage.open("t").unwrap()).unwrap();
    let mut it = t.iter();
    it.seek_to_first();
    assert!(!it.valid());
    assert_eq!(it.status().unwrap_err().code(), Code::DataLoss);
}
