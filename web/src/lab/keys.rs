//! Row-key design: a key built from segments (a promoted field, a zero-padded number, a salt
//! bucket, a reversed timestamp or domain), the designs the lessons compare, and warnings for
//! keys that hurt Bigtable (they start with a timestamp, hold an unpadded number or a hash,
//! or pass the 4 KiB limit).
//!
//! Invariant: everything here is a pure function of its inputs (salts hash with FNV-1a, not
//! a random source), so the same record always gets the same key and the tests can check
//! sort orders exactly.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The largest row key Bigtable accepts, in bytes: the core's limit.
pub use sparsetable::limits::MAX_ROW_KEY_BYTES;

/// Timestamps are reversed against this (microseconds, year 2286): `MAX - ts` sorts newest
/// first and keeps the same number of digits for centuries.
pub const REVERSE_BASE_MICROS: i64 = 9_999_999_999_999_999;

/// One generated record: what a key is built from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The entity (device, bus, user), e.g. `sensor-17`.
    pub entity: String,
    /// A sequence number (the n-th record of the run).
    pub seq: u64,
    /// The event time in microseconds.
    pub ts_micros: i64,
}

/// A piece of a row key.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Segment {
    /// Fixed text.
    Literal(String),
    /// The record's entity (field promotion: it leads, so one entity's rows are together).
    Entity,
    /// The record's sequence number, zero-padded to `width` digits (0: not padded).
    Seq {
        /// Digits; 0 leaves the number unpadded.
        width: usize,
    },
    /// The event time in seconds, zero-padded to 10 digits.
    Timestamp,
    /// `REVERSE_BASE_MICROS - ts`: newest first.
    ReverseTimestamp,
    /// The entity's hash modulo `buckets`, zero-padded: spreads writes over `buckets` ranges.
    Salt {
        /// Number of buckets (at least 1).
        buckets: u32,
    },
    /// A domain reversed by label (`maps.google.com` -> `com.google.maps`).
    ReverseDomain(String),
}

/// FNV-1a, 64-bit: a small stable hash for salting.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `maps.google.com` -> `com.google.maps`.
pub fn reverse_domain(domain: &str) -> String {
    domain.rsplit('.').collect::<Vec<_>>().join(".")
}

impl Segment {
    fn render(&self, r: &Record) -> String {
        match self {
            Segment::Literal(s) => s.clone(),
            Segment::Entity => r.entity.clone(),
            Segment::Seq { width } => format!("{:0width$}", r.seq, width = *width),
            Segment::Timestamp => format!("{:010}", r.ts_micros / 1_000_000),
            Segment::ReverseTimestamp => format!("{:016}", REVERSE_BASE_MICROS - r.ts_micros),
            Segment::Salt { buckets } => {
                let n = (*buckets).max(1);
                let digits = (n - 1).to_string().len();
                let bucket = fnv1a(r.entity.as_bytes()) % u64::from(n);
                format!("{bucket:0digits$}")
            }
            Segment::ReverseDomain(d) => reverse_domain(d),
        }
    }

    /// A short name for the builder's chips.
    pub fn label(&self) -> String {
        match self {
            Segment::Literal(s) => format!("\"{s}\""),
            Segment::Entity => "entity".into(),
            Segment::Seq { width: 0 } => "seq".into(),
            Segment::Seq { width } => format!("seq:{width}"),
            Segment::Timestamp => "timestamp".into(),
            Segment::ReverseTimestamp => "reverse ts".into(),
            Segment::Salt { buckets } => format!("salt%{buckets}"),
            Segment::ReverseDomain(d) => format!("rev({d})"),
        }
    }
}

/// A key design: segments joined by a separator.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct KeyDesign {
    /// Shown in lanes and the A/B picker.
    pub name: String,
    /// The segments, in key order.
    pub segments: Vec<Segment>,
    /// Between segments, e.g. `#`.
    pub separator: String,
}

impl KeyDesign {
    /// The key of one record.
    pub fn key(&self, r: &Record) -> Vec<u8> {
        let parts: Vec<String> = self.segments.iter().map(|s| s.render(r)).collect();
        parts.join(&self.separator).into_bytes()
    }

    /// Timestamp first: every new write lands at the end of the key space.
    pub fn sequential() -> Self {
        KeyDesign {
            name: "sequential (timestamp first)".into(),
            segments: alloc::vec![
                Segment::Timestamp,
                Segment::Seq { width: 8 },
                Segment::Entity
            ],
            separator: "#".into(),
        }
    }

    /// A salt bucket first: writes spread over `buckets` ranges, range scans need `buckets`.
    pub fn salted(buckets: u32) -> Self {
        KeyDesign {
            name: format!("salted ({buckets} buckets)"),
            segments: alloc::vec![
                Segment::Salt { buckets },
                Segment::Timestamp,
                Segment::Seq { width: 8 }
            ],
            separator: "#".into(),
        }
    }

    /// The entity promoted in front of the time: writes spread over entities, and one
    /// entity's history is one prefix scan.
    pub fn field_promoted() -> Self {
        KeyDesign {
            name: "field promoted (entity first)".into(),
            segments: alloc::vec![
                Segment::Entity,
                Segment::Timestamp,
                Segment::Seq { width: 8 }
            ],
            separator: "#".into(),
        }
    }

    /// Entity first, then a reversed timestamp: an entity's newest rows come first.
    pub fn reverse_timestamp() -> Self {
        KeyDesign {
            name: "entity + reverse timestamp".into(),
            segments: alloc::vec![Segment::Entity, Segment::ReverseTimestamp],
            separator: "#".into(),
        }
    }

    /// The entity alone: one row per entity (the wide-row design).
    pub fn entity_only() -> Self {
        KeyDesign {
            name: "entity only (wide rows)".into(),
            segments: alloc::vec![Segment::Entity],
            separator: "#".into(),
        }
    }

    /// The designs the builder offers as presets.
    pub fn presets() -> Vec<KeyDesign> {
        alloc::vec![
            Self::sequential(),
            Self::salted(8),
            Self::field_promoted(),
            Self::reverse_timestamp()
        ]
    }
}

/// `n` sample records from `entities` entities, one second apart from `start_micros`.
pub fn sample_records(n: u64, entities: u64, start_micros: i64) -> Vec<Record> {
    (0..n)
        .map(|i| Record {
            entity: format!("sensor-{:02}", (i * 7 + 3) % entities.max(1)),
            seq: i,
            ts_micros: start_micros + i as i64 * 1_000_000,
        })
        .collect()
}

/// The builder's live preview: the sample records' keys in the order Bigtable stores them,
/// each with the index of its record (the order it was written in).
pub fn sorted_preview(design: &KeyDesign, records: &[Record]) -> Vec<(Vec<u8>, usize)> {
    let mut keys: Vec<(Vec<u8>, usize)> = records
        .iter()
        .enumerate()
        .map(|(i, r)| (design.key(r), i))
        .collect();
    keys.sort();
    keys
}

/// Something risky about a row key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyWarning {
    /// The key starts with a timestamp (or another ever-growing number): new writes all go
    /// to the last tablet.
    StartsWithTimestamp,
    /// A number that is not zero-padded: `10` sorts before `9`.
    UnpaddedNumber,
    /// A hash-like segment: writes spread, but related rows are no longer one range scan.
    HashedKey,
    /// Longer than Bigtable's row-key limit ([`MAX_ROW_KEY_BYTES`]): the write is refused.
    TooLong,
}

impl KeyWarning {
    /// A one-line explanation for the write form. The row-key limit is the core's
    /// ([`MAX_ROW_KEY_BYTES`]), not a number written here.
    pub fn message(self) -> String {
        match self {
            KeyWarning::StartsWithTimestamp => {
                "starts with a timestamp: every new row lands in the last tablet (a hotspot); put an entity first".into()
            }
            KeyWarning::UnpaddedNumber => {
                "holds a number without zero-padding: 10 sorts before 9; pad to a fixed width".into()
            }
            KeyWarning::HashedKey => {
                "holds a hash: writes spread, but related rows can no longer be read with one range scan".into()
            }
            KeyWarning::TooLong => format!(
                "is longer than {MAX_ROW_KEY_BYTES} bytes: Bigtable refuses longer row keys"
            ),
        }
    }

    /// A stable identifier for tests and `data-` attributes.
    pub fn id(self) -> &'static str {
        match self {
            KeyWarning::StartsWithTimestamp => "starts-with-timestamp",
            KeyWarning::UnpaddedNumber => "unpadded-number",
            KeyWarning::HashedKey => "hashed-key",
            KeyWarning::TooLong => "too-long",
        }
    }
}

/// The key's segments: split on `#`, `/`, `:` (the separators the hierarchy uses too).
pub fn segments_of(key: &[u8]) -> Vec<&[u8]> {
    key.split(|&c| c == b'#' || c == b'/' || c == b':')
        .collect()
}

/// The warnings for one row key, each once, in a fixed order.
///
/// Heuristics, since one key does not show its design: a leading run of 10 or more digits
/// reads as a timestamp (seconds have 10 digits, milliseconds 13, microseconds 16); a
/// digits-only segment of 1 to 5 digits that does not start with `0` reads as an unpadded
/// number; a segment of 16 or more hex digits (with `-` allowed, as in a UUID) reads as a
/// hash.
pub fn key_warnings(key: &[u8]) -> Vec<KeyWarning> {
    let mut out = Vec::new();
    let leading_digits = key.iter().take_while(|c| c.is_ascii_digit()).count();
    if leading_digits >= 10 {
        out.push(KeyWarning::StartsWithTimestamp);
    }
    let segments = segments_of(key);
    if segments
        .iter()
        .any(|s| (1..=5).contains(&s.len()) && s.iter().all(u8::is_ascii_digit) && s[0] != b'0')
        && segments.len() > 1
    {
        out.push(KeyWarning::UnpaddedNumber);
    }
    if segments.iter().any(|s| {
        let hex = s.iter().filter(|c| c.is_ascii_hexdigit()).count();
        hex >= 16
            && s.iter().all(|c| c.is_ascii_hexdigit() || *c == b'-')
            && s.iter().any(|c| c.is_ascii_alphabetic())
    }) {
        out.push(KeyWarning::HashedKey);
    }
    if key.len() > MAX_ROW_KEY_BYTES {
        out.push(KeyWarning::TooLong);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_700_000_000_000_000;

    #[test]
    fn designs_render_their_segments() {
        let r = Record {
            entity: "sensor-07".into(),
            seq: 42,
            ts_micros: T0,
        };
        assert_eq!(
            KeyDesign::sequential().key(&r),
            b"1700000000#00000042#sensor-07"
        );
        assert_eq!(
            KeyDesign::field_promoted().key(&r),
            b"sensor-07#1700000000#00000042"
        );
        let salted = String::from_utf8(KeyDesign::salted(8).key(&r)).unwrap();
        assert!(
            salted.ends_with("#1700000000#00000042") && salted.len() == 21,
            "{salted}"
        );
        assert_eq!(
            KeyDesign::reverse_timestamp().key(&r),
            b"sensor-07#8299999999999999".to_vec()
        );
        assert_eq!(reverse_domain("maps.google.com"), "com.google.maps");
        let design = KeyDesign {
            name: "x".into(),
            segments: alloc::vec![
                Segment::ReverseDomain("a.b.c".into()),
                Segment::Seq { width: 3 }
            ],
            separator: "/".into(),
        };
        assert_eq!(design.key(&r), b"c.b.a/042");
    }

    #[test]
    fn the_preview_shows_storage_order() {
        let records = sample_records(12, 3, T0);
        // Timestamp first: storage order is write order.
        let seq: Vec<usize> = sorted_preview(&KeyDesign::sequential(), &records)
            .into_iter()
            .map(|(_, i)| i)
            .collect();
        assert_eq!(seq, (0..12).collect::<Vec<_>>());
        // Reverse timestamps: each entity's newest record first.
        let rev = sorted_preview(&KeyDesign::reverse_timestamp(), &records);
        let first_entity = &records[rev[0].1].entity;
        let of_first: Vec<usize> = rev
            .iter()
            .filter(|(_, i)| &records[*i].entity == first_entity)
            .map(|(_, i)| *i)
            .collect();
        assert!(of_first.windows(2).all(|w| w[0] > w[1]), "{of_first:?}");
        // Unpadded numbers sort as text.
        let unpadded = KeyDesign {
            name: "u".into(),
            segments: alloc::vec![Segment::Seq { width: 0 }],
            separator: "#".into(),
        };
        let order: Vec<usize> = sorted_preview(&unpadded, &records)
            .into_iter()
            .map(|(_, i)| i)
            .collect();
        assert_eq!(&order[..4], &[0, 1, 10, 11]);
    }

    #[test]
    fn salts_spread_entities_over_buckets() {
        let design = KeyDesign::salted(4);
        let mut buckets = alloc::collections::BTreeSet::new();
        for r in sample_records(40, 20, T0) {
            buckets.insert(design.key(&r)[0]);
        }
        assert_eq!(
            buckets.len(),
            4,
            "20 entities hash into every one of 4 buckets"
        );
    }

    #[test]
    fn warnings_flag_risky_keys_and_pass_good_ones() {
        use KeyWarning::*;
        assert_eq!(
            key_warnings(b"1700000000123#sensor-07"),
            [StartsWithTimestamp]
        );
        assert_eq!(key_warnings(b"STC#22#173"), [UnpaddedNumber]);
        assert_eq!(key_warnings(b"STC#022#0173"), []);
        assert_eq!(key_warnings(b"9f86d081884c7d65#order"), [HashedKey]);
        assert_eq!(
            key_warnings(b"user#123e4567-e89b-12d3-a456-426614174000"),
            [HashedKey]
        );
        assert_eq!(key_warnings(b"sensor-07#8299999999999999"), []);
        assert_eq!(
            key_warnings(b"PRODUCT#42/2497057062123/en/5/COMMENT#1"),
            [UnpaddedNumber]
        );
        let long = alloc::vec![b'k'; MAX_ROW_KEY_BYTES + 1];
        assert_eq!(key_warnings(&long), [TooLong]);
        assert_eq!(key_warnings(&long[..MAX_ROW_KEY_BYTES]), []);
        assert!(TooLong
            .message()
            .contains(&alloc::format!("{MAX_ROW_KEY_BYTES} bytes")));
    }
}
