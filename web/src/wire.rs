//! serde forms for the few values the page's messages carry that have no serde form of their
//! own: core types outside the proto3 JSON model.
//!
//! The playground's state lives in a Web Worker and reaches the page as JSON messages
//! (`crate::remote`), so everything a view shows must round-trip through serde. These helpers
//! are used with `#[serde(with = "...")]`. Invariant: `deserialize(serialize(x)) == x` for every
//! value the engine produces; malformed input reads as an error, never as a panic.

use alloc::vec::Vec;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sparsetable::{AccessCounters, TabletOptions};

extern crate alloc;

/// [`TabletOptions`] as `[memtable_bytes, max_runs, split_bytes, merge_bytes, split_load_ops]`.
pub mod tablet_options {
    use super::*;

    /// Writes the five thresholds.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<S: Serializer>(o: &TabletOptions, s: S) -> Result<S::Ok, S::Error> {
        [
            o.memtable_bytes,
            o.max_runs as u64,
            o.split_bytes,
            o.merge_bytes,
            o.split_load_ops,
        ]
        .serialize(s)
    }

    /// Reads them back.
    ///
    /// # Errors
    /// Not five numbers, or a run count that does not fit a `usize`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<TabletOptions, D::Error> {
        let [memtable_bytes, max_runs, split_bytes, merge_bytes, split_load_ops] =
            <[u64; 5]>::deserialize(d)?;
        Ok(TabletOptions {
            memtable_bytes,
            max_runs: usize::try_from(max_runs).map_err(D::Error::custom)?,
            split_bytes,
            merge_bytes,
            split_load_ops,
        })
    }
}

/// A list of [`AccessCounters`], each as
/// `[reads, writes, rows_scanned, cells_scanned, bytes_read, bytes_written]`.
pub mod counters {
    use super::*;

    /// Writes each counter set as six numbers.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<S: Serializer>(list: &[AccessCounters], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(list.iter().map(|c| {
            [
                c.reads,
                c.writes,
                c.rows_scanned,
                c.cells_scanned,
                c.bytes_read,
                c.bytes_written,
            ]
        }))
    }

    /// Reads them back.
    ///
    /// # Errors
    /// An entry that is not six numbers.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<AccessCounters>, D::Error> {
        Ok(Vec::<[u64; 6]>::deserialize(d)?
            .into_iter()
            .map(
                |[reads, writes, rows_scanned, cells_scanned, bytes_read, bytes_written]| {
                    AccessCounters {
                        reads,
                        writes,
                        rows_scanned,
                        cells_scanned,
                        bytes_read,
                        bytes_written,
                    }
                },
            )
            .collect())
    }
}

/// Bytes as one base64 string in JSON rather than a list of numbers (a grid row's key and
/// values are most of an update, and a number list is three to four times their size); as
/// raw bytes in a binary format.
pub mod bytes {
    use super::*;
    use alloc::string::String;
    use base64::Engine as _;

    /// Writes standard base64 with padding.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<S: Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(b))
        } else {
            s.serialize_bytes(b)
        }
    }

    /// Reads it back.
    ///
    /// # Errors
    /// Text that is not base64.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        if d.is_human_readable() {
            base64::engine::general_purpose::STANDARD
                .decode(String::deserialize(d)?)
                .map_err(D::Error::custom)
        } else {
            d.deserialize_byte_buf(ByteBuf)
        }
    }

    /// Takes bytes as a binary format hands them over.
    struct ByteBuf;

    impl serde::de::Visitor<'_> for ByteBuf {
        type Value = Vec<u8>;

        fn expecting(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
            f.write_str("bytes")
        }

        fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }

        fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(v)
        }
    }
}

/// A list of [`sparsetable::GcRule`]s in a form every serde format takes (the core's proto3
/// JSON form needs a self-describing format; the grid travels in postcard).
pub mod gc_rules {
    use super::*;
    use sparsetable::GcRule;

    /// A rule as plain serde data.
    #[derive(Serialize, Deserialize)]
    enum Form {
        Never,
        Versions(u32),
        Age(i64),
        Union(Vec<Form>),
        Intersection(Vec<Form>),
    }

    fn to_form(r: &GcRule) -> Form {
        match r {
            GcRule::Never => Form::Never,
            GcRule::MaxNumVersions(n) => Form::Versions(*n),
            GcRule::MaxAge { micros } => Form::Age(*micros),
            GcRule::Union(rs) => Form::Union(rs.iter().map(to_form).collect()),
            GcRule::Intersection(rs) => Form::Intersection(rs.iter().map(to_form).collect()),
        }
    }

    fn from_form(f: Form) -> GcRule {
        match f {
            Form::Never => GcRule::Never,
            Form::Versions(n) => GcRule::MaxNumVersions(n),
            Form::Age(micros) => GcRule::MaxAge { micros },
            Form::Union(fs) => GcRule::Union(fs.into_iter().map(from_form).collect()),
            Form::Intersection(fs) => GcRule::Intersection(fs.into_iter().map(from_form).collect()),
        }
    }

    /// Writes each rule.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<S: Serializer>(rules: &[GcRule], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(rules.iter().map(to_form))
    }

    /// Reads them back.
    ///
    /// # Errors
    /// Data that is not such a list.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<GcRule>, D::Error> {
        Ok(Vec::<Form>::deserialize(d)?
            .into_iter()
            .map(from_form)
            .collect())
    }
}
