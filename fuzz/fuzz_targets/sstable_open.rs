//! `Sstable::open`, full iteration and `verify` over arbitrary bytes: must never panic,
//! forward and backward iteration must agree whenever both finish without error, and
//! `verify` must fail whenever the forward iteration did.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sparsetable::lsm::sstable::Sstable;
use sparsetable::platform::storage::{MemStorage, Storage};

fn exercise(t: &Sstable, probes: &[&[u8]]) {
    let mut forward = Vec::new();
    let mut it = t.iter();
    it.seek_to_first();
    while it.valid() && forward.len() < 100_000 {
        forward.push((it.key().to_vec(), it.value().to_vec()));
        it.next();
    }
    let forward_ok = it.status().is_ok();
    if forward.len() < 100_000 && !forward_ok {
        assert!(t.verify().is_err());
    }
    let mut backward = Vec::new();
    it = t.iter();
    it.seek_to_last();
    while it.valid() && backward.len() < 100_000 {
        backward.push((it.key().to_vec(), it.value().to_vec()));
        it.prev();
    }
    if forward_ok && it.status().is_ok() {
        backward.reverse();
        assert_eq!(forward, backward);
    }
    for p in probes {
        let _ = t.may_contain(p);
        let _ = t.get(p);
        let _ = t.approximate_offset_of(p);
        let mut it = t.iter();
        it.seek(p);
        for _ in 0..3 {
            it.prev();
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let storage = MemStorage::new();
    storage.set_bytes("t", data.to_vec());
    let Ok(file) = storage.open("t") else { return };
    if let Ok(t) = Sstable::open(file) {
        let probes: Vec<&[u8]> = data.chunks(7).take(8).collect();
        exercise(&t, &probes);
    }
});
