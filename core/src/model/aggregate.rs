//! Aggregate cells: what AddToCell and MergeToCell accept for each aggregate family type, and
//! the cell an input or state merges into.
//!
//! Bigtable's rules, in our words (cloud.google.com/bigtable/docs/aggregates, and the
//! `google.bigtable.admin.v2.Type.Aggregate` messages of the admin protos): an aggregate
//! family's cells are never written with SetCell; AddToCell merges one *input* into the cell
//! at (family, qualifier, timestamp), MergeToCell merges a *state* (an accumulator, as a read
//! returns it), and a cell that does not exist yet starts from the input or state alone.
//! Reads return the state. The merges commute, so the order writes arrive in (or a replica
//! applying them in another order) never changes the cell.
//!
//! - `int64_sum`, `int64_min`, `int64_max`: input an int64; state the 8-byte big-endian int64.
//! - `hllpp_unique_count` (`HyperLogLogPlusPlusUniqueCount`): "computes an approximate unique
//!   count over the input values"; its input is "Any, or omit for Raw", with the warning that
//!   raw inputs must use one consistent encoding (the same value encoded two ways counts
//!   twice), its state is documented as "TBD", and its one special conversion is to Int64, the
//!   estimate. Where the docs are silent we chose, and say so:
//!   - The state is our HyperLogLog++ sketch of BYTES inputs ([`super::hll`], its bytes in
//!     docs/format/hll_sketch.md), which SQL's `HLL_COUNT.EXTRACT` and `HLL_COUNT.MERGE` read
//!     (the Int64 conversion). It is not Google's sketch format (that one is unpublished).
//!   - Inputs are hashed as raw bytes: a raw (bytes) input as itself, an int64 input as its
//!     8-byte big-endian encoding (Bigtable's int64 encoding), so the int 7 and the bytes
//!     `00..07` are the same value, as the docs' warning about encodings implies. A front-end
//!     turns a raw AddToCell input into a MergeToCell of the one-value sketch
//!     ([`raw_input_state`]): the same cell, since merging `{x}` is adding `x`; a change
//!     stream therefore shows such a write as a MergeToCell.
//!   - New cells use precision [`HLL_PRECISION`] (15, `HLL_COUNT.INIT`'s default: the docs
//!     name no precision for the family); a merged-in state of a lower precision lowers the
//!     cell to it, as `HLL_COUNT.MERGE` does.
//!   - MergeToCell's state must be such a sketch of BYTES inputs: anything else (a sketch of
//!     INT64 or STRING inputs, foreign bytes) is INVALID_ARGUMENT before anything is written.
//!
//! Invariants: [`check_state`] accepts exactly the states [`merged_value`] merges; merging
//! never fails or panics, and a stored cell it cannot read (which no write of ours produces) is
//! treated as absent, as an int64 cell of the wrong length always was.

use alloc::format;
use alloc::vec::Vec;

use super::hll::{hash_bytes, Kind, Sketch};
use super::schema::ValueType;
use crate::{Error, Result};

/// The precision of a HyperLogLog++ family's new cells (see the module docs).
pub const HLL_PRECISION: u8 = 15;

/// What is merged into an aggregate cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input<'a> {
    /// An AddToCell int64 input.
    Int64(i64),
    /// A MergeToCell state, already accepted by [`check_state`].
    State(&'a [u8]),
}

/// Checks a MergeToCell state for a family of type `ty`; `index` is the mutation's position,
/// named in the message.
///
/// # Errors
/// `InvalidArgument` when the state is not the type's state (see the module docs).
pub fn check_state(ty: ValueType, state: &[u8], index: usize) -> Result<()> {
    match ty {
        ValueType::HllUniqueCount => {
            let sketch = Sketch::from_bytes(state).map_err(|e| {
                Error::invalid_argument(format!("mutations[{index}]: {}", e.message()))
            })?;
            if sketch.kind() != Kind::Bytes {
                return Err(Error::invalid_argument(format!(
                    "mutations[{index}]: a HyperLogLog++ family merges sketches of BYTES \
                     inputs, not of {} inputs",
                    sketch.kind().name()
                )));
            }
            Ok(())
        }
        _ if state.len() != 8 => Err(Error::invalid_argument(format!(
            "mutations[{index}]: input of {} bytes is not an 8-byte big-endian int64 state",
            state.len()
        ))),
        _ => Ok(()),
    }
}

/// The one-value HyperLogLog++ state a raw AddToCell input `raw` stands for: merging it is
/// adding `raw` (see the module docs).
pub fn raw_input_state(raw: &[u8]) -> Vec<u8> {
    let mut s = Sketch::new(Kind::Bytes, HLL_PRECISION);
    s.add_hash(hash_bytes(raw));
    s.to_bytes()
}

/// The cell value after merging `input` into `current` (the cell's value, `None` when there
/// is no cell yet) of a family of type `ty`.
pub fn merged_value(ty: ValueType, current: Option<&[u8]>, input: Input<'_>) -> Vec<u8> {
    if ty == ValueType::HllUniqueCount {
        let mut cell = current
            .and_then(|c| Sketch::from_bytes(c).ok())
            .filter(|s| s.kind() == Kind::Bytes)
            .unwrap_or_else(|| Sketch::new(Kind::Bytes, HLL_PRECISION));
        match input {
            Input::Int64(n) => cell.add_hash(hash_bytes(&n.to_be_bytes())),
            Input::State(b) => {
                // `check_state` accepted it; a state that still does not parse merges nothing.
                if let Ok(s) = Sketch::from_bytes(b) {
                    // Same kind (checked), so the merge cannot fail.
                    let _ = cell.merge(&s);
                }
            }
        }
        return cell.to_bytes();
    }
    let int = |b: &[u8]| <[u8; 8]>::try_from(b).ok().map(i64::from_be_bytes);
    let input = match input {
        Input::Int64(n) => n,
        Input::State(b) => int(b).unwrap_or(0),
    };
    let merged = current
        .and_then(int)
        .map_or(input, |cur| ty.merge(cur, input));
    merged.to_be_bytes().to_vec()
}

#[cfg(test)]
#[path = "aggregate_tests.rs"]
mod tests;
