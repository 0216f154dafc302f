//! How one change of a change stream is cut into the messages ReadChangeStream sends (no_std).
//!
//! Bigtable's Data API (google/bigtable/v2/bigtable.proto, `ReadChangeStreamResponse`):
//! a `DataChange` may span several messages; only the first carries the change's type,
//! source cluster, row key, commit time and tiebreaker, only the last carries `done`, the
//! token and the low watermark, and each `MutationChunk` holds one mutation. "If a SetCell
//! mutation is too large to fit in a single message, it will be split across multiple
//! `MutationChunk`s": each piece's `ChunkInfo` gives the whole value's size, the piece's
//! offset and whether it is the last; the first piece carries the family, qualifier and
//! timestamp, later pieces only their bytes of the value. Readers (Google's Java client's
//! `ChangeStreamRecordAdapter`) put a value back together from its pieces in offset order.
//!
//! The documentation gives no message size. [`CHANGE_CHUNK_BYTES`] (1 MiB of mutations per
//! message) keeps each message well under gRPC's default 4 MiB receive limit, which
//! Google's clients keep for this RPC. Each front-end measures a mutation its own way (the
//! server by its encoded protobuf size, the JavaScript binding by [`approximate_size`]); the
//! cutting rule is this one.
//!
//! Invariants: the pieces of a value, concatenated in order, are the value; no mutation but
//! a SetCell's value is ever split; a message holds at most `chunk_bytes` of measured
//! mutation bytes unless one unsplittable mutation is larger; there is always at least one
//! message (a change with no mutations still has a first and a last message).

use alloc::vec;
use alloc::vec::Vec;

use crate::model::mutation::Mutation;

/// Mutation bytes per ReadChangeStream message before a change continues in the next.
pub const CHANGE_CHUNK_BYTES: usize = 1 << 20;

/// Where a piece of a SetCell value sits in the whole value (the proto's `ChunkInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkInfo {
    /// The whole value's size in bytes.
    pub value_size: usize,
    /// This piece's offset in the value.
    pub offset: usize,
    /// Whether this is the value's last piece.
    pub last: bool,
}

/// One mutation of a message: whole (`info` is `None`) or a piece of a SetCell's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MutationChunk {
    /// The mutation, or a SetCell holding one piece of the value.
    pub mutation: Mutation,
    /// Set for a piece of a split value.
    pub info: Option<ChunkInfo>,
}

/// A mutation's size as the JavaScript binding measures it: its bytes (family, qualifier,
/// value or input) plus a fixed 16 for the framing a message spends on it.
pub fn approximate_size(m: &Mutation) -> usize {
    const FRAME: usize = 16;
    FRAME
        + match m {
            Mutation::SetCell {
                family,
                qualifier,
                value,
                ..
            } => family.len() + qualifier.len() + value.len() + 8,
            Mutation::AddToCell {
                family, qualifier, ..
            } => family.len() + qualifier.len() + 16,
            Mutation::MergeToCell {
                family,
                qualifier,
                state,
                ..
            } => family.len() + qualifier.len() + state.len() + 8,
            Mutation::DeleteFromColumn {
                family, qualifier, ..
            } => family.len() + qualifier.len() + 16,
            Mutation::DeleteFromFamily { family } => family.len(),
            Mutation::DeleteFromRow => 0,
        }
}

/// Cuts one change's `mutations` into messages (see the module docs): each message is a list
/// of chunks; `size_of` measures a mutation. A SetCell whose value is larger than
/// `chunk_bytes` and does not fit in the room left is sent in pieces of `chunk_bytes`, one
/// message each.
pub fn chunk_change(
    mutations: &[Mutation],
    chunk_bytes: usize,
    size_of: impl Fn(&Mutation) -> usize,
) -> Vec<Vec<MutationChunk>> {
    let chunk_bytes = chunk_bytes.max(1);
    let mut out: Vec<Vec<MutationChunk>> = vec![Vec::new()];
    let mut room = chunk_bytes;
    let push = |out: &mut Vec<Vec<MutationChunk>>, room: &mut usize, chunk, size: usize| {
        // A chunk that does not fit starts a new message, unless this one is still empty.
        if size > *room && out.last().is_some_and(|m| !m.is_empty()) {
            out.push(Vec::new());
            *room = chunk_bytes;
        }
        *room = room.saturating_sub(size);
        if let Some(last) = out.last_mut() {
            last.push(chunk);
        }
    };
    for m in mutations {
        let size = size_of(m);
        let split = match m {
            Mutation::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } if value.len() > chunk_bytes && size > room => {
                Some((family, qualifier, *timestamp_micros, value))
            }
            _ => None,
        };
        let Some((family, qualifier, timestamp_micros, value)) = split else {
            let chunk = MutationChunk {
                mutation: m.clone(),
                info: None,
            };
            push(&mut out, &mut room, chunk, size);
            continue;
        };
        let mut offset = 0;
        while offset < value.len() {
            let end = value.len().min(offset + chunk_bytes);
            let first = offset == 0;
            let piece = Mutation::SetCell {
                family: if first {
                    family.clone()
                } else {
                    Default::default()
                },
                qualifier: if first { qualifier.clone() } else { Vec::new() },
                timestamp_micros: if first { timestamp_micros } else { 0 },
                value: value[offset..end].to_vec(),
            };
            let chunk = MutationChunk {
                mutation: piece,
                info: Some(ChunkInfo {
                    value_size: value.len(),
                    offset,
                    last: end == value.len(),
                }),
            };
            push(&mut out, &mut room, chunk, end - offset);
            // A piece fills a message: the next chunk starts a new one.
            room = 0;
            offset = end;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    fn set(value_len: usize) -> Mutation {
        Mutation::SetCell {
            family: "cf".to_string(),
            qualifier: b"q".to_vec(),
            timestamp_micros: 7,
            value: (0..value_len).map(|i| (i % 251) as u8).collect(),
        }
    }

    #[test]
    fn small_mutations_share_one_message() {
        let msgs = chunk_change(&[set(10), Mutation::DeleteFromRow], 1000, approximate_size);
        assert_eq!(msgs.len(), 1);
        assert_eq!(msgs[0].len(), 2);
        assert!(msgs[0].iter().all(|c| c.info.is_none()));
    }

    #[test]
    fn no_mutations_is_one_empty_message() {
        assert_eq!(chunk_change(&[], 10, approximate_size), vec![Vec::new()]);
    }

    #[test]
    fn a_large_value_is_split_into_pieces_that_rebuild_it() {
        let m = set(2500);
        let msgs = chunk_change(
            &[Mutation::DeleteFromRow, m.clone()],
            1000,
            approximate_size,
        );
        // The delete, then three pieces of 1000, 1000 and 500 bytes, each in its own message.
        assert_eq!(msgs.len(), 4);
        assert!(msgs[0][0].info.is_none());
        let mut rebuilt = Vec::new();
        for (i, msg) in msgs[1..].iter().enumerate() {
            assert_eq!(msg.len(), 1);
            let info = msg[0].info.as_ref().unwrap();
            assert_eq!(info.value_size, 2500);
            assert_eq!(info.offset, rebuilt.len());
            assert_eq!(info.last, i == 2);
            let Mutation::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } = &msg[0].mutation
            else {
                panic!("a piece is a SetCell");
            };
            if i == 0 {
                assert_eq!(
                    (family.as_str(), &qualifier[..], *timestamp_micros),
                    ("cf", &b"q"[..], 7)
                );
            } else {
                assert_eq!(
                    (family.as_str(), qualifier.len(), *timestamp_micros),
                    ("", 0, 0)
                );
            }
            rebuilt.extend_from_slice(value);
        }
        let Mutation::SetCell { value, .. } = &m else {
            unreachable!()
        };
        assert_eq!(&rebuilt, value);
    }

    #[test]
    fn a_value_that_fits_the_room_left_is_not_split() {
        // Larger than a chunk only by the measure, not the value: sent whole.
        let msgs = chunk_change(&[set(900)], 1000, |_| 1200);
        assert_eq!(msgs.len(), 1);
        assert!(msgs[0][0].info.is_none());
    }

    #[test]
    fn a_mutation_that_does_not_fit_starts_the_next_message() {
        let msgs = chunk_change(&[set(600), set(600)], 1000, approximate_size);
        assert_eq!(msgs.len(), 2);
        assert_eq!((msgs[0].len(), msgs[1].len()), (1, 1));
    }
}
