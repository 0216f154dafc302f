//! The stored-copy decoder on hostile bytes: copies whose framing and checksum are valid
//! but whose payload is damaged (every byte flipped in turn, every truncation, appended
//! garbage) never panic the open path; each is either refused (the view recomputed) or a
//! structurally valid state. Checksummed framing stops the damage a disk does before the
//! decoder sees it (tested in `core/tests/materialized_view_store.rs`); this reaches the
//! decoder itself.

use alloc::sync::Arc;
use alloc::vec::Vec;

use super::stored::{file_name, FORMAT_VERSION};
use crate::api::database::OpenOptions;
use crate::codec::encoding::CRC32C;
use crate::model::mutation::Mutation;
use crate::model::schema::TableConfig;
use crate::platform::clock::ManualClock;
use crate::platform::storage::{read_all, MemStorage};
use crate::Database;

const T0: i64 = 1_700_000_000_000_000;

const QUERIES: [(&str, &str); 2] = [
    (
        "totals",
        "SELECT cf['g'] AS _key, COUNT(*) AS n, SUM(TO_INT64(cf['v'])) AS s FROM t GROUP BY _key",
    ),
    (
        "index",
        "SELECT cf['g'] AS g, _key AS k, cf['v'] AS v FROM t ORDER BY g, k",
    ),
];

/// A copy with `payload`, framed as version 1 with a correct length and checksum.
fn framed(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(b"SPMV");
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    let mut d = CRC32C.digest();
    d.update(&out[4..12]);
    d.update(payload);
    out.extend_from_slice(&d.finalize().to_le_bytes());
    out.extend_from_slice(payload);
    out
}

#[test]
fn damaged_payloads_with_valid_checksums_never_panic() {
    let storage = MemStorage::new();
    let mut db = Database::open(
        Arc::new(storage.clone()),
        OpenOptions::default(),
        ManualClock::new(T0),
    )
    .unwrap();
    db.create_table("t", TableConfig::with_families(["cf"]))
        .unwrap();
    for i in 0..6u8 {
        db.mutate_row(
            "t",
            &[b'r', i],
            &[
                Mutation::set_cell("cf", b"g", 0, [b'a' + i % 2]),
                Mutation::set_cell("cf", b"v", 0, i64::from(i).to_be_bytes()),
            ],
        )
        .unwrap();
    }
    for (id, q) in QUERIES {
        db.create_materialized_view(id, q, false).unwrap();
    }
    db.checkpoint().unwrap();
    for (id, q) in QUERIES {
        let good = read_all(&storage, &file_name(id)).unwrap();
        let payload = &good[16..];
        // The intact copy, re-framed, loads.
        assert_eq!(framed(payload), good);
        let mut damaged: Vec<Vec<u8>> = (0..payload.len()).map(|n| payload[..n].to_vec()).collect();
        for i in 0..payload.len() {
            for x in [0x01, 0x80, 0xff] {
                let mut p = payload.to_vec();
                p[i] ^= x;
                damaged.push(p);
            }
        }
        let mut longer = payload.to_vec();
        longer.extend_from_slice(&[0xff; 9]);
        damaged.push(longer);
        let mut loaded = 0;
        for p in damaged {
            db.delete_materialized_view(id).unwrap();
            storage.set_bytes(&file_name(id), framed(&p));
            db.create_materialized_view(id, q, false).unwrap();
            let (_, view) = &db.views().entries[id];
            loaded += usize::from(!view.changed);
        }
        // Most damage is refused; a flipped cell value or key byte can still be a valid
        // state, which loads (the checksum, not the decoder, guards against the disk).
        assert!(
            loaded < payload.len(),
            "{id}: {loaded} damaged copies loaded"
        );
    }
}
