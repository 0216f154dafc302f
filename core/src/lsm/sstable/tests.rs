//! Round trips, seeks, the filter and corruption of whole tables.

use alloc::format;
use alloc::vec::Vec;

use super::*;
use crate::platform::random::SplitMix64;
use crate::platform::storage::{MemStorage, Storage};
use crate::Code;

type Entries = Vec<(Vec<u8>, Vec<u8>)>;

fn entries(n: usize, value_len: usize) -> Entries {
    (0..n)
        .map(|i| {
            let key = format!("row{:05}/cf:q{}", i / 3, i % 3).into_bytes();
            let value = (0..value_len)
                .map(|j| ((i * 7 + j / 5) % 251) as u8)
                .collect();
            (key, value)
        })
        .collect()
}

/// The engine's filter key: the row key, the part before '/'.
fn row_of(key: &[u8]) -> &[u8] {
    key.split(|b| *b == b'/').next().unwrap_or(key)
}

fn write(storage: &MemStorage, name: &str, options: &SstableOptions, e: &Entries) -> Vec<u8> {
    let mut b = SstableBuilder::new(storage.create(name).unwrap(), options.clone()).unwrap();
    for (k, v) in e {
        b.add(k, v, row_of(k)).unwrap();
    }
    let props = b.finish().unwrap();
    let bytes = crate::platform::storage::read_all(storage, name).unwrap();
    assert_eq!(props.file_size, bytes.len() as u64);
    bytes
}

fn open_bytes(bytes: Vec<u8>) -> Result<Sstable> {
    let s = MemStorage::new();
    s.set_bytes("t", bytes);
    Sstable::open(s.open("t").unwrap())
}

fn build(options: &SstableOptions, e: &Entries) -> Sstable {
    open_bytes(write(&MemStorage::new(), "t", options, e)).unwrap()
}

fn forward(t: &Sstable) -> (Entries, Result<()>) {
    let mut it = t.iter();
    it.seek_to_first();
    let mut out = Vec::new();
    while it.valid() {
        out.push((it.key().to_vec(), it.value().to_vec()));
        it.next();
    }
    (out, it.status())
}

fn backward(t: &Sstable) -> (Entries, Result<()>) {
    let mut it = t.iter();
    it.seek_to_last();
    let mut out = Vec::new();
    while it.valid() {
        out.push((it.key().to_vec(), it.value().to_vec()));
        it.prev();
    }
    out.reverse();
    (out, it.status())
}

fn option_grid() -> Vec<SstableOptions> {
    let mut out = Vec::new();
    for block_size in [1, 64, 256, 4096] {
        for restart_interval in [1, 2, 16] {
            for compression in [Compression::None, Compression::Lz4] {
                out.push(SstableOptions {
                    block_size,
                    restart_interval,
                    compression,
                    bloom_bits_per_key: 10,
                });
            }
        }
    }
    out
}

fn check_seeks(t: &Sstable, e: &Entries) {
    let mut it = t.iter();
    for (i, (k, v)) in e.iter().enumerate() {
        it.seek(k);
        assert_eq!((it.key(), it.value()), (k.as_slice(), v.as_slice()));
        // Just after k (k + 0x00) lands on the next entry.
        let mut after = k.clone();
        after.push(0);
        it.seek(&after);
        match e.get(i + 1) {
            Some((next, _)) => assert_eq!(it.key(), next.as_slice()),
            None => assert!(!it.valid()),
        }
        assert_eq!(t.get(k).unwrap().as_deref(), Some(v.as_slice()));
        assert_eq!(t.get(&after).unwrap(), None);
    }
    it.seek(b"");
    assert_eq!(it.valid(), !e.is_empty());
    it.seek(b"\xff\xff");
    assert!(!it.valid());
    it.status().unwrap();
}

#[test]
fn round_trips_across_block_sizes_restart_intervals_and_compression() {
    let e = entries(300, 20);
    for options in option_grid() {
        let t = build(&options, &e);
        assert_eq!(forward(&t), (e.clone(), Ok(())), "{options:?}");
        assert_eq!(backward(&t), (e.clone(), Ok(())), "{options:?}");
        check_seeks(&t, &e);
        let p = t.properties();
        assert_eq!(p.num_entries, 300);
        assert_eq!(p.num_filter_keys, 100);
        assert_eq!(p.smallest_key.as_deref(), Some(e[0].0.as_slice()));
        assert_eq!(p.largest_key.as_deref(), Some(e[299].0.as_slice()));
        assert_eq!(p.raw_value_bytes, 300 * 20);
        assert_eq!(p.format_version, FORMAT_VERSION);
        if options.block_size == 1 {
            assert_eq!(p.num_data_blocks, 300);
        }
        for (k, _) in &e {
            assert!(t.may_contain(row_of(k)));
        }
    }
}

#[test]
fn compression_shrinks_compressible_tables() {
    let e = entries(500, 200);
    let plain = write(&MemStorage::new(), "t", &SstableOptions::default(), &e);
    let lz4 = SstableOptions {
        compression: Compression::Lz4,
        ..SstableOptions::default()
    };
    let small = write(&MemStorage::new(), "t", &lz4, &e);
    assert!(
        small.len() * 2 < plain.len(),
        "{} vs {}",
        small.len(),
        plain.len()
    );
    assert_eq!(forward(&open_bytes(small).unwrap()).0, e);
}

#[test]
fn empty_table_has_no_entries_and_no_filter_hits() {
    let t = build(&SstableOptions::default(), &Vec::new());
    assert_eq!(forward(&t), (Vec::new(), Ok(())));
    assert_eq!(backward(&t), (Vec::new(), Ok(())));
    check_seeks(&t, &Vec::new());
    let p = t.properties();
    assert_eq!((p.num_entries, p.num_data_blocks), (0, 0));
    assert_eq!(
        (p.smallest_key.clone(), p.largest_key.clone()),
        (None, None)
    );
    assert!(!t.may_contain(b"row"));
}

#[test]
fn single_entry_and_empty_key_and_value() {
    for e in [
        alloc::vec![(b"k".to_vec(), b"v".to_vec())],
        alloc::vec![(Vec::new(), Vec::new())],
        alloc::vec![(Vec::new(), b"x".to_vec()), (b"a".to_vec(), Vec::new())],
    ] {
        for options in option_grid() {
            let t = build(&options, &e);
            assert_eq!(forward(&t), (e.clone(), Ok(())));
            assert_eq!(backward(&t), (e.clone(), Ok(())));
            check_seeks(&t, &e);
        }
    }
}

#[test]
fn values_larger_than_a_block() {
    let mut e = entries(20, 10);
    for (i, entry) in e.iter_mut().enumerate() {
        if i % 3 == 1 {
            entry.1 = (0..10_000 + i).map(|j| (j % 13) as u8).collect();
        }
    }
    for options in option_grid() {
        let t = build(&options, &e);
        assert_eq!(forward(&t), (e.clone(), Ok(())));
        assert_eq!(backward(&t), (e.clone(), Ok(())));
        check_seeks(&t, &e);
    }
}

#[test]
fn prev_and_next_interleave() {
    let e = entries(200, 3);
    let mut rng = SplitMix64::new(7);
    for options in option_grid() {
        let t = build(&options, &e);
        let mut it = t.iter();
        let mut pos: Option<usize> = None;
        for _ in 0..400 {
            match rng.next_u64() % 6 {
                0 => {
                    let i = (rng.next_u64() % 200) as usize;
                    it.seek(&e[i].0);
                    pos = Some(i);
                }
                1 | 2 => {
                    it.next();
                    pos = pos.and_then(|p| (p + 1 < e.len()).then_some(p + 1));
                }
                _ => {
                    it.prev();
                    pos = pos.and_then(|p| p.checked_sub(1));
                }
            }
            match pos {
                Some(p) => assert_eq!(it.key(), e[p].0.as_slice()),
                None => {
                    assert!(!it.valid());
                    it.seek_to_last();
                    pos = Some(e.len() - 1);
                }
            }
        }
        it.status().unwrap();
    }
}

#[test]
fn keys_must_strictly_ascend() {
    let s = MemStorage::new();
    let mut b = SstableBuilder::new(s.create("t").unwrap(), SstableOptions::default()).unwrap();
    b.add(b"b", b"1", b"b").unwrap();
    for bad in [&b"b"[..], b"a", b""] {
        assert_eq!(
            b.add(bad, b"2", bad).unwrap_err().code(),
            Code::InvalidArgument
        );
    }
    b.add(b"c", b"3", b"c").unwrap();
    assert_eq!(b.num_entries(), 2);
    b.finish().unwrap();
    let t = Sstable::open(s.open("t").unwrap()).unwrap();
    assert_eq!(forward(&t).0.len(), 2);
}

#[test]
fn bad_options_and_non_empty_files_are_rejected() {
    let s = MemStorage::new();
    for options in [
        SstableOptions {
            restart_interval: 0,
            ..SstableOptions::default()
        },
        SstableOptions {
            bloom_bits_per_key: 101,
            ..SstableOptions::default()
        },
    ] {
        let err = SstableBuilder::new(s.create("t").unwrap(), options).unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
    }
    let mut f = s.create("u").unwrap();
    f.append(b"x").unwrap();
    let err = SstableBuilder::new(f, SstableOptions::default()).unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
}

#[test]
fn bloom_has_no_false_negatives_and_under_three_percent_false_positives() {
    let e: Entries = (0..10_000u32)
        .map(|i| (format!("user{i:08}/cf:q").into_bytes(), Vec::new()))
        .collect();
    let t = build(&SstableOptions::default(), &e);
    for (k, _) in &e {
        assert!(t.may_contain(row_of(k)));
    }
    let fp = (10_000..20_000u32)
        .filter(|i| t.may_contain(format!("user{i:08}").as_bytes()))
        .count();
    assert!(fp < 300, "{fp} false positives in 10000");
    let no_filter = SstableOptions {
        bloom_bits_per_key: 0,
        ..SstableOptions::default()
    };
    let t = build(&no_filter, &e[..10].to_vec());
    assert!(t.may_contain(b"anything"));
}

#[test]
fn approximate_offsets_grow_with_keys() {
    let e = entries(1000, 100);
    let t = build(&SstableOptions::default(), &e);
    let mut last = 0;
    for (k, _) in e.iter().step_by(50) {
        let off = t.approximate_offset_of(k);
        assert!(off >= last);
        last = off;
    }
    assert!(last > 50_000);
    assert!(t.approximate_offset_of(b"\xff") >= last);
    assert_eq!(t.approximate_offset_of(b""), 0);
}

/// Full check of a possibly corrupt table: open, both directions, every seek, the filter.
/// Returns whether corruption was detected; panics on wrong data.
fn detect(bytes: Vec<u8>, e: &Entries, props: &SstableProperties) -> bool {
    let t = match open_bytes(bytes) {
        Ok(t) => t,
        Err(err) => {
            assert_eq!(err.code(), Code::DataLoss, "{err}");
            return true;
        }
    };
    assert_eq!(t.properties(), props);
    let mut detected = false;
    for (got, status) in [forward(&t), backward(&t)] {
        match status {
            Ok(()) => assert_eq!(&got, e),
            Err(err) => {
                assert_eq!(err.code(), Code::DataLoss, "{err}");
                detected = true;
            }
        }
    }
    let mut it = t.iter();
    for (k, v) in e {
        it.seek(k);
        if it.valid() {
            assert_eq!((it.key(), it.value()), (k.as_slice(), v.as_slice()));
        } else {
            assert_eq!(it.status().unwrap_err().code(), Code::DataLoss);
            it = t.iter();
        }
        assert!(t.may_contain(row_of(k)));
    }
    detected
}

fn small_table(options: &SstableOptions) -> (Vec<u8>, Entries, SstableProperties) {
    // Runs of equal bytes so that LZ4 compresses every data block.
    let e: Entries = entries(12, 0)
        .into_iter()
        .enumerate()
        .map(|(i, (k, _))| (k, alloc::vec![b'a' + i as u8; 24]))
        .collect();
    let bytes = write(&MemStorage::new(), "t", options, &e);
    let props = open_bytes(bytes.clone()).unwrap().properties().clone();
    (bytes, e, props)
}

#[test]
fn every_flipped_byte_is_detected_never_wrong_data() {
    for compression in [Compression::None, Compression::Lz4] {
        let options = SstableOptions {
            block_size: 48,
            restart_interval: 2,
            compression,
            bloom_bits_per_key: 10,
        };
        let (bytes, e, props) = small_table(&options);
        let plain = SstableOptions {
            compression: Compression::None,
            ..options.clone()
        };
        if compression == Compression::Lz4 {
            assert!(bytes.len() + 12 * 10 < small_table(&plain).0.len());
        }
        for i in 0..bytes.len() {
            for x in [0x01u8, 0x80, 0xff] {
                let mut bad = bytes.clone();
                bad[i] ^= x;
                assert!(detect(bad, &e, &props), "flip {x:#x} at {i} went unnoticed");
            }
        }
    }
}

#[test]
fn every_truncation_is_data_loss() {
    let (bytes, _, _) = small_table(&SstableOptions {
        block_size: 48,
        ..SstableOptions::default()
    });
    for len in 0..bytes.len() {
        let err = open_bytes(bytes[..len].to_vec()).unwrap_err();
        assert_eq!(err.code(), Code::DataLoss, "truncated to {len}: {err}");
    }
    let mut longer = bytes.clone();
    longer.insert(0, 0);
    assert_eq!(open_bytes(longer).unwrap_err().code(), Code::DataLoss);
}

/// Random multi-byte damage and splices; the big run is `#[ignore]`d (see the report).
fn random_mutations(rounds: u64) {
    let (bytes, e, props) = small_table(&SstableOptions {
        block_size: 64,
        restart_interval: 3,
        compression: Compression::Lz4,
        bloom_bits_per_key: 10,
    });
    let mut rng = SplitMix64::new(0x5eed);
    let mut undetected = 0u64;
    for _ in 0..rounds {
        let mut bad = bytes.clone();
        let edits = 1 + rng.next_u64() % 4;
        for _ in 0..edits {
            let i = (rng.next_u64() % bad.len() as u64) as usize;
            match rng.next_u64() % 4 {
                0 => bad[i] = rng.next_u64() as u8,
                1 => bad[i] ^= 1 << (rng.next_u64() % 8),
                2 => {
                    let j = (rng.next_u64() % bad.len() as u64) as usize;
                    bad.swap(i, j);
                }
                _ => bad.truncate(i.max(1)),
            }
        }
        if bad != bytes && !detect(bad, &e, &props) {
            undetected += 1;
        }
    }
    // Swaps of equal bytes can leave the file intact in effect; those must decode correctly
    // (checked by `detect`), and are rare.
    assert!(undetected * 100 <= rounds, "{undetected} of {rounds}");
}

#[test]
fn random_mutations_are_detected_or_harmless() {
    random_mutations(2_000);
}

#[test]
#[ignore = "long: a million random mutations"]
fn a_million_random_mutations_are_detected_or_harmless() {
    random_mutations(1_000_000);
}

#[test]
fn random_bytes_never_panic_open() {
    let mut rng = SplitMix64::new(1);
    for len in [0usize, 1, 63, 64, 65, 100, 300] {
        for _ in 0..200 {
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            if len >= 8 && rng.next_u64().is_multiple_of(2) {
                bytes[len - 8..].copy_from_slice(&MAGIC);
            }
            let err = open_bytes(bytes).unwrap_err();
            assert_eq!(err.code(), Code::DataLoss);
        }
    }
}
