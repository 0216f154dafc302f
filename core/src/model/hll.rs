//! HyperLogLog++ sketches: adding hashed values, merging sketches (down to the lowest
//! precision), estimating the distinct count, and the sketch's bytes. One sketch serves SQL's
//! HLL_COUNT functions and APPROX_COUNT_DISTINCT (`api::sql::hll`) and the cells of a
//! HyperLogLog++ aggregate column family ([`crate::ValueType::HllUniqueCount`], written by
//! AddToCell and MergeToCell; see `model::aggregate`), so a cell's bytes are a sketch SQL reads.
//!
//! The algorithm: Heule, Nunkesser and Hall's HyperLogLog++ (EDBT 2013) representation, a
//! sparse list of (index at precision 25, rank) while it is smaller than the dense registers,
//! then `2^precision` one-byte registers; values are hashed to 64 bits with FarmHash
//! Fingerprint64 ([`super::farmhash`]). The estimate is Ertl's improved raw estimator ("New
//! cardinality estimation algorithms for HyperLogLog sketches", 2017), which needs no
//! empirical bias tables and is accurate from 0 upward; in sparse form it runs over the `2^25`
//! sparse registers, so small counts come out exact. Its relative standard error in dense form
//! is about `1.04 / sqrt(2^precision)` (0.57% at 15).
//!
//! **Compatibility: our sketch bytes are our own format, not BigQuery's or Bigtable's.**
//! Google's sketches are a protobuf (`HyperLogLogPlusUniqueStateProto`) over a hash we cannot
//! reproduce or verify here, so a sketch made by BigQuery or by Bigtable cannot be merged or
//! extracted by us, nor ours by them. Bytes that are not our sketch are INVALID_ARGUMENT, never
//! a panic. The format (all integers little-endian; specified in docs/format/hll_sketch.md,
//! since family cells reach disk):
//! - 8-byte header: `b"STHL"`, version `1`, input type (1 INT64, 2 STRING, 3 BYTES, 4 any
//!   other: APPROX_COUNT_DISTINCT's, never returned), precision (10..=24), form (0 sparse,
//!   1 dense);
//! - sparse: a u32 entry count (at most `2^precision / 4`), then that many u32 entries
//!   `index << 6 | rank`, indexes strictly ascending and below `2^25`, ranks 1..=40;
//! - dense: `2^precision` registers, each at most `65 - precision`.
//!
//! Invariants: a sketch's state depends only on the set of hashes added and the lowest
//! precision merged in, never on the order of adds and merges, so merging is associative and
//! commutative down to the bytes. Sparse entries keep one (the highest) rank per index; a
//! sketch is sparse exactly when every input was sparse and the entries fit the limit.
//! Decoding ([`Sketch::from_bytes`]) checks every field and never panics.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use super::farmhash::fingerprint64;
use crate::{Error, Result};

/// The lowest precision GoogleSQL accepts.
pub const MIN_PRECISION: i64 = 10;
/// The highest precision GoogleSQL accepts.
pub const MAX_PRECISION: i64 = 24;
/// HLL_COUNT.INIT's precision when none is given.
pub const DEFAULT_PRECISION: i64 = 15;
/// The sparse form's precision (its index bits).
const SPARSE_PRECISION: u32 = 25;
const MAGIC: &[u8; 4] = b"STHL";
const VERSION: u8 = 1;
const HEADER: usize = 8;

/// What a sketch counts: merging sketches of different kinds is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// INT64 inputs.
    Int64,
    /// STRING inputs.
    String,
    /// BYTES inputs.
    Bytes,
    /// Any other type (APPROX_COUNT_DISTINCT's sketches, never returned as bytes).
    Other,
}

impl Kind {
    fn tag(self) -> u8 {
        match self {
            Kind::Int64 => 1,
            Kind::String => 2,
            Kind::Bytes => 3,
            Kind::Other => 4,
        }
    }

    fn from_tag(tag: u8) -> Option<Kind> {
        Some(match tag {
            1 => Kind::Int64,
            2 => Kind::String,
            3 => Kind::Bytes,
            4 => Kind::Other,
            _ => return None,
        })
    }

    /// The input type's SQL name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Int64 => "INT64",
            Kind::String => "STRING",
            Kind::Bytes => "BYTES",
            Kind::Other => "another type",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Form {
    /// Sparse index (25 bits) to its highest rank.
    Sparse(BTreeMap<u32, u8>),
    /// `2^precision` registers.
    Dense(Vec<u8>),
}

/// One HyperLogLog++ sketch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sketch {
    kind: Kind,
    precision: u8,
    form: Form,
}

/// The rank of hash bits `w` (already shifted left past the index): leading zeros plus one,
/// at most `bits + 1` when all `bits` remaining bits are zero.
fn rank(w: u64, bits: u32) -> u8 {
    (w.leading_zeros().min(bits) + 1) as u8
}

/// Most sparse entries before a sketch turns dense: four bytes each, no more than the
/// registers would take.
fn sparse_limit(precision: u8) -> usize {
    (1usize << precision) / 4
}

/// Register (index, rank) at precision `from` seen at the lower precision `to`: the index
/// bits dropped become the leading bits of the rank's part.
fn downgrade(index: u32, rank: u8, from: u32, to: u32) -> (u32, u8) {
    let dropped = from - to;
    let low = index & ((1u32 << dropped) - 1);
    let new_rank = if low != 0 {
        (low.leading_zeros() - (32 - dropped) + 1) as u8
    } else {
        rank + dropped as u8
    };
    (index >> dropped, new_rank)
}

fn not_ours(why: &str) -> Error {
    Error::invalid_argument(format!(
        "HLL_COUNT: the BYTES are not a Sparsetable HyperLogLog++ sketch ({why}); sketches \
         made by BigQuery or Bigtable are not compatible"
    ))
}

impl Sketch {
    /// An empty sketch of `kind` at `precision` (10..=24).
    pub fn new(kind: Kind, precision: u8) -> Self {
        debug_assert!((10..=24).contains(&precision));
        Sketch {
            kind,
            precision,
            form: Form::Sparse(BTreeMap::new()),
        }
    }

    /// What the sketch counts.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Its precision.
    pub fn precision(&self) -> u8 {
        self.precision
    }

    /// Whether it is still in sparse form.
    pub fn is_sparse(&self) -> bool {
        matches!(self.form, Form::Sparse(_))
    }

    /// Adds one hashed value.
    pub fn add_hash(&mut self, h: u64) {
        match &mut self.form {
            Form::Sparse(entries) => {
                let index = (h >> (64 - SPARSE_PRECISION)) as u32;
                let r = rank(h << SPARSE_PRECISION, 64 - SPARSE_PRECISION);
                let slot = entries.entry(index).or_insert(0);
                *slot = (*slot).max(r);
                self.fit();
            }
            Form::Dense(regs) => {
                let p = u32::from(self.precision);
                let index = (h >> (64 - p)) as usize;
                let r = rank(h << p, 64 - p);
                regs[index] = regs[index].max(r);
            }
        }
    }

    /// Turns a sparse sketch with more entries than its limit dense.
    fn fit(&mut self) {
        if let Form::Sparse(entries) = &self.form {
            if entries.len() > sparse_limit(self.precision) {
                self.densify();
            }
        }
    }

    fn densify(&mut self) {
        let p = u32::from(self.precision);
        if let Form::Sparse(entries) = &self.form {
            let mut regs = vec![0u8; 1 << p];
            for (&index, &r) in entries {
                let (i, r) = downgrade(index, r, SPARSE_PRECISION, p);
                regs[i as usize] = regs[i as usize].max(r);
            }
            self.form = Form::Dense(regs);
        }
    }

    /// Lowers the precision to `to` (no change when it is already at or below).
    fn lower(&mut self, to: u8) {
        if to >= self.precision {
            return;
        }
        let from = u32::from(self.precision);
        self.precision = to;
        match &self.form {
            // Sparse entries keep precision 25; only the limit changes.
            Form::Sparse(_) => self.fit(),
            Form::Dense(regs) => {
                let mut out = vec![0u8; 1 << to];
                for (index, &r) in regs.iter().enumerate() {
                    if r != 0 {
                        let (i, r) = downgrade(index as u32, r, from, u32::from(to));
                        out[i as usize] = out[i as usize].max(r);
                    }
                }
                self.form = Form::Dense(out);
            }
        }
    }

    /// Merges `other` in: the union at the lower of the two precisions.
    ///
    /// # Errors
    /// INVALID_ARGUMENT when the sketches count different input types.
    pub fn merge(&mut self, other: &Sketch) -> Result<()> {
        if self.kind != other.kind {
            return Err(Error::invalid_argument(format!(
                "HLL_COUNT: cannot merge a sketch of {} inputs with one of {}",
                self.kind.name(),
                other.kind.name()
            )));
        }
        let mut other = other.clone();
        let p = self.precision.min(other.precision);
        self.lower(p);
        other.lower(p);
        match (&mut self.form, other.form) {
            (Form::Sparse(a), Form::Sparse(b)) => {
                for (index, r) in b {
                    let slot = a.entry(index).or_insert(0);
                    *slot = (*slot).max(r);
                }
                self.fit();
            }
            (Form::Sparse(_), Form::Dense(b)) => {
                self.densify();
                if let Form::Dense(a) = &mut self.form {
                    for (x, y) in a.iter_mut().zip(b) {
                        *x = (*x).max(y);
                    }
                }
            }
            (Form::Dense(a), b) => {
                let mut b = Sketch {
                    kind: self.kind,
                    precision: p,
                    form: b,
                };
                b.densify();
                if let Form::Dense(b) = b.form {
                    for (x, y) in a.iter_mut().zip(b) {
                        *x = (*x).max(y);
                    }
                }
            }
        }
        Ok(())
    }

    /// The estimated number of distinct values added.
    pub fn estimate(&self) -> i64 {
        let e = match &self.form {
            Form::Sparse(entries) => {
                let q = (64 - SPARSE_PRECISION) as usize;
                let mut counts = vec![0u64; q + 2];
                counts[0] = (1u64 << SPARSE_PRECISION) - entries.len() as u64;
                for &r in entries.values() {
                    counts[usize::from(r)] += 1;
                }
                ertl(1u64 << SPARSE_PRECISION, &counts)
            }
            Form::Dense(regs) => {
                let q = 64 - usize::from(self.precision);
                let mut counts = vec![0u64; q + 2];
                for &r in regs {
                    counts[usize::from(r)] += 1;
                }
                ertl(regs.len() as u64, &counts)
            }
        };
        libm::round(e) as i64
    }

    /// The sketch's bytes (format in the module docs).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::from(&MAGIC[..]);
        out.extend_from_slice(&[VERSION, self.kind.tag(), self.precision]);
        match &self.form {
            Form::Sparse(entries) => {
                out.push(0);
                out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
                for (&index, &r) in entries {
                    out.extend_from_slice(&(index << 6 | u32::from(r)).to_le_bytes());
                }
            }
            Form::Dense(regs) => {
                out.push(1);
                out.extend_from_slice(regs);
            }
        }
        out
    }

    /// Reads a sketch's bytes, checking every field.
    ///
    /// # Errors
    /// INVALID_ARGUMENT saying what is wrong when `b` is not a sketch [`to_bytes`] could have
    /// written.
    ///
    /// [`to_bytes`]: Sketch::to_bytes
    pub fn from_bytes(b: &[u8]) -> Result<Sketch> {
        if b.len() < HEADER || &b[..4] != MAGIC {
            return Err(not_ours("no STHL header"));
        }
        if b[4] != VERSION {
            return Err(not_ours("unknown version"));
        }
        let kind = Kind::from_tag(b[5]).ok_or_else(|| not_ours("unknown input type"))?;
        let precision = b[6];
        if !(10..=24).contains(&precision) {
            return Err(not_ours("precision out of range"));
        }
        let body = &b[HEADER..];
        let form = match b[7] {
            0 => {
                let count = body
                    .get(..4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize)
                    .ok_or_else(|| not_ours("truncated"))?;
                if count > sparse_limit(precision) {
                    return Err(not_ours("too many sparse entries"));
                }
                let rest = &body[4..];
                if rest.len() != count * 4 {
                    return Err(not_ours("wrong length"));
                }
                let mut entries = BTreeMap::new();
                let mut last: Option<u32> = None;
                for c in rest.chunks_exact(4) {
                    let e = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                    let (index, r) = (e >> 6, (e & 63) as u8);
                    if index >= 1 << SPARSE_PRECISION
                        || r == 0
                        || u32::from(r) > 64 - SPARSE_PRECISION + 1
                        || last.is_some_and(|l| l >= index)
                    {
                        return Err(not_ours("bad sparse entry"));
                    }
                    last = Some(index);
                    entries.insert(index, r);
                }
                Form::Sparse(entries)
            }
            1 => {
                if body.len() != 1 << precision {
                    return Err(not_ours("wrong length"));
                }
                if body
                    .iter()
                    .any(|&r| u32::from(r) > 65 - u32::from(precision))
                {
                    return Err(not_ours("register out of range"));
                }
                Form::Dense(body.to_vec())
            }
            _ => return Err(not_ours("unknown form")),
        };
        Ok(Sketch {
            kind,
            precision,
            form,
        })
    }
}

/// Ertl's improved raw estimate over `m` registers, `counts[k]` of which hold rank `k`
/// (`counts.len()` is the rank limit plus two).
fn ertl(m: u64, counts: &[u64]) -> f64 {
    let m = m as f64;
    let q = counts.len() - 2;
    let mut z = m * tau(1.0 - counts[q + 1] as f64 / m);
    for k in (1..=q).rev() {
        z = 0.5 * (z + counts[k] as f64);
    }
    z += m * sigma(counts[0] as f64 / m);
    if z.is_infinite() {
        return 0.0;
    }
    m * m / (2.0 * core::f64::consts::LN_2 * z)
}

fn sigma(mut x: f64) -> f64 {
    if x == 1.0 {
        return f64::INFINITY;
    }
    let mut y = 1.0;
    let mut z = x;
    loop {
        x *= x;
        let before = z;
        z += x * y;
        y += y;
        if z == before {
            return z;
        }
    }
}

fn tau(mut x: f64) -> f64 {
    if x == 0.0 || x == 1.0 {
        return 0.0;
    }
    let mut y = 1.0;
    let mut z = 1.0 - x;
    loop {
        x = libm::sqrt(x);
        let before = z;
        y *= 0.5;
        z -= (1.0 - x) * (1.0 - x) * y;
        if z == before {
            return z / 3.0;
        }
    }
}

/// The 64-bit hash of raw bytes, as a sketch of BYTES inputs takes them.
pub fn hash_bytes(b: &[u8]) -> u64 {
    fingerprint64(b)
}
