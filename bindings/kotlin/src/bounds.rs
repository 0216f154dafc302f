//! One end of a byte-wise range (row keys, qualifiers, values) as it crosses the FFI, and its
//! conversion to and from the core's bound: used by the request types and the filters alike,
//! and using neither.

use std::ops::Bound as CoreBound;

/// One end of a byte-wise range (row keys, qualifiers, values).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum ByteBound {
    /// No limit on this side.
    Unbounded,
    /// The key is included.
    Closed {
        /// The bound's bytes.
        key: Vec<u8>,
    },
    /// The key is excluded.
    Open {
        /// The bound's bytes.
        key: Vec<u8>,
    },
}

impl From<ByteBound> for CoreBound<Vec<u8>> {
    fn from(b: ByteBound) -> Self {
        match b {
            ByteBound::Unbounded => CoreBound::Unbounded,
            ByteBound::Closed { key } => CoreBound::Included(key),
            ByteBound::Open { key } => CoreBound::Excluded(key),
        }
    }
}

impl From<CoreBound<Vec<u8>>> for ByteBound {
    fn from(b: CoreBound<Vec<u8>>) -> Self {
        match b {
            CoreBound::Unbounded => ByteBound::Unbounded,
            CoreBound::Included(key) => ByteBound::Closed { key },
            CoreBound::Excluded(key) => ByteBound::Open { key },
        }
    }
}
