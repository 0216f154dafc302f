//! The `Table` message as the admin API answers with it, encoded the way Cloud Bigtable
//! encodes it: every entry of its `column_families` and `cluster_states` maps carries its
//! value, even when that value is an empty message.
//!
//! Why this exists: prost leaves a map entry's value out when it equals the default, so a
//! family without a GC rule or value type (`ColumnFamily {}`) went out as an entry holding
//! only its key. That is valid protobuf (a missing value means the default), and Python and
//! `cbt` read it so, but Google's Node.js client (protobufjs) decodes such an entry's message
//! value as `null` and then fails on `null.gcRule`, so CreateTable, GetTable and
//! ModifyColumnFamilies all failed there after the server had done the work. Cloud Bigtable
//! and Google's emulator always write the value (an empty length-delimited field for an empty
//! message); so does [`TableReply`].
//!
//! Invariant: a [`TableReply`] encodes to exactly the bytes prost would produce for the same
//! `Table`, except that map entries always hold field 2 (the value). Entries keep the order
//! they were given in.

use std::collections::HashMap;

use prost::bytes::{Buf, BufMut};
use prost::encoding::{self, DecodeContext, WireType};
use prost::{DecodeError, Message};

use crate::stubs::admin_v2;

/// Field number of `Table.cluster_states` (`google/bigtable/admin/v2/table.proto`).
const CLUSTER_STATES: u32 = 2;
/// Field number of `Table.column_families`.
const COLUMN_FAMILIES: u32 = 3;
/// Field number of `ListTablesResponse.tables`.
const TABLES: u32 = 1;
/// Field number of `ListTablesResponse.next_page_token`.
const NEXT_PAGE_TOKEN: u32 = 2;

/// A `google.bigtable.admin.v2.Table` whose map entries always carry their value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableReply {
    /// Every field but the two maps (which are left empty here).
    rest: admin_v2::Table,
    cluster_states: Vec<(String, admin_v2::table::ClusterState)>,
    column_families: Vec<(String, admin_v2::ColumnFamily)>,
}

impl TableReply {
    /// The table's resource name.
    pub fn name(&self) -> &str {
        &self.rest.name
    }

    /// The same message as prost's type (map order is lost there).
    pub fn into_table(self) -> admin_v2::Table {
        let mut table = self.rest;
        table.cluster_states = self.cluster_states.into_iter().collect();
        table.column_families = self.column_families.into_iter().collect();
        table
    }
}

impl From<admin_v2::Table> for TableReply {
    fn from(mut table: admin_v2::Table) -> Self {
        let mut cluster_states: Vec<_> = std::mem::take(&mut table.cluster_states)
            .into_iter()
            .collect();
        let mut column_families: Vec<_> = std::mem::take(&mut table.column_families)
            .into_iter()
            .collect();
        // A HashMap's order is random; sort so that replies are reproducible.
        cluster_states.sort_by(|a, b| a.0.cmp(&b.0));
        column_families.sort_by(|a, b| a.0.cmp(&b.0));
        TableReply {
            rest: table,
            cluster_states,
            column_families,
        }
    }
}

impl TableReply {
    /// Sets the reply's `change_stream_config`.
    pub fn set_change_stream_config(&mut self, config: Option<admin_v2::ChangeStreamConfig>) {
        self.rest.change_stream_config = config;
    }

    /// A table message whose map entries are given in order (`rest`'s maps are ignored).
    pub fn with_entries(
        mut rest: admin_v2::Table,
        cluster_states: Vec<(String, admin_v2::table::ClusterState)>,
        column_families: Vec<(String, admin_v2::ColumnFamily)>,
    ) -> Self {
        rest.cluster_states.clear();
        rest.column_families.clear();
        TableReply {
            rest,
            cluster_states,
            column_families,
        }
    }
}

/// Length of a map entry's body: the key (left out when empty, as prost and C++ do for a
/// default key) and the value, always present.
fn entry_len<V: Message>(key: &str, value: &V) -> usize {
    let key_len = if key.is_empty() {
        0
    } else {
        encoding::key_len(1) + encoding::encoded_len_varint(key.len() as u64) + key.len()
    };
    key_len + encoding::message::encoded_len(2, value)
}

fn encode_map<V: Message>(tag: u32, entries: &[(String, V)], buf: &mut impl BufMut) {
    for (key, value) in entries {
        encoding::encode_key(tag, WireType::LengthDelimited, buf);
        encoding::encode_varint(entry_len(key, value) as u64, buf);
        if !key.is_empty() {
            encoding::string::encode(1, key, buf);
        }
        encoding::message::encode(2, value, buf);
    }
}

fn map_len<V: Message>(tag: u32, entries: &[(String, V)]) -> usize {
    entries
        .iter()
        .map(|(key, value)| {
            let len = entry_len(key, value);
            encoding::key_len(tag) + encoding::encoded_len_varint(len as u64) + len
        })
        .sum()
}

/// Decodes one map entry into `entries`, replacing an entry with the same key (protobuf's
/// rule: the last one wins).
fn merge_entry<V: Message + Default>(
    entries: &mut Vec<(String, V)>,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), DecodeError> {
    let mut one = HashMap::new();
    encoding::hash_map::merge(
        encoding::string::merge,
        encoding::message::merge,
        &mut one,
        buf,
        ctx,
    )?;
    for (key, value) in one {
        entries.retain(|(k, _)| *k != key);
        entries.push((key, value));
    }
    Ok(())
}

impl Message for TableReply {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        // Field order on the wire is free in protobuf; the maps go after the other fields.
        self.rest.encode_raw(buf);
        encode_map(CLUSTER_STATES, &self.cluster_states, buf);
        encode_map(COLUMN_FAMILIES, &self.column_families, buf);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        match tag {
            CLUSTER_STATES => {
                encoding::check_wire_type(WireType::LengthDelimited, wire_type)?;
                merge_entry(&mut self.cluster_states, buf, ctx)
            }
            COLUMN_FAMILIES => {
                encoding::check_wire_type(WireType::LengthDelimited, wire_type)?;
                merge_entry(&mut self.column_families, buf, ctx)
            }
            _ => self.rest.merge_field(tag, wire_type, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        self.rest.encoded_len()
            + map_len(CLUSTER_STATES, &self.cluster_states)
            + map_len(COLUMN_FAMILIES, &self.column_families)
    }

    fn clear(&mut self) {
        *self = TableReply::default();
    }
}

/// A `google.bigtable.admin.v2.ListTablesResponse` whose tables are [`TableReply`]s.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListTablesReply {
    /// The page's tables.
    pub tables: Vec<TableReply>,
    /// Where the next page starts; empty on the last page.
    pub next_page_token: String,
}

impl Message for ListTablesReply {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        for table in &self.tables {
            encoding::message::encode(TABLES, table, buf);
        }
        if !self.next_page_token.is_empty() {
            encoding::string::encode(NEXT_PAGE_TOKEN, &self.next_page_token, buf);
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        match tag {
            TABLES => encoding::message::merge_repeated(wire_type, &mut self.tables, buf, ctx),
            NEXT_PAGE_TOKEN => {
                encoding::string::merge(wire_type, &mut self.next_page_token, buf, ctx)
            }
            _ => encoding::skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        encoding::message::encoded_len_repeated(TABLES, &self.tables)
            + if self.next_page_token.is_empty() {
                0
            } else {
                encoding::string::encoded_len(NEXT_PAGE_TOKEN, &self.next_page_token)
            }
    }

    fn clear(&mut self) {
        *self = ListTablesReply::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gc_max_versions(n: i32) -> admin_v2::ColumnFamily {
        admin_v2::ColumnFamily {
            gc_rule: Some(admin_v2::GcRule {
                rule: Some(admin_v2::gc_rule::Rule::MaxNumVersions(n)),
            }),
            value_type: None,
        }
    }

    fn table() -> TableReply {
        TableReply::with_entries(
            admin_v2::Table {
                name: "projects/p/instances/i/tables/t".into(),
                deletion_protection: true,
                ..Default::default()
            },
            vec![(
                "c1".into(),
                admin_v2::table::ClusterState {
                    replication_state: admin_v2::table::cluster_state::ReplicationState::Ready
                        as i32,
                    encryption_info: vec![],
                },
            )],
            vec![
                ("plain".into(), admin_v2::ColumnFamily::default()),
                ("versioned".into(), gc_max_versions(2)),
            ],
        )
    }

    /// The (field number, body) of each length-delimited field at the top of `bytes`;
    /// other wire types are skipped.
    fn fields(mut bytes: &[u8]) -> Vec<(u32, Vec<u8>)> {
        let mut out = Vec::new();
        while !bytes.is_empty() {
            let key = encoding::decode_varint(&mut bytes).unwrap();
            let (tag, wire) = ((key >> 3) as u32, key & 7);
            match wire {
                0 => {
                    encoding::decode_varint(&mut bytes).unwrap();
                }
                2 => {
                    let len = encoding::decode_varint(&mut bytes).unwrap() as usize;
                    out.push((tag, bytes[..len].to_vec()));
                    bytes = &bytes[len..];
                }
                other => panic!("unexpected wire type {other}"),
            }
        }
        out
    }

    #[test]
    fn map_entries_always_carry_their_value() {
        let bytes = table().encode_to_vec();
        let families: Vec<_> = fields(&bytes)
            .into_iter()
            .filter(|(tag, _)| *tag == COLUMN_FAMILIES)
            .map(|(_, entry)| fields(&entry))
            .collect();
        assert_eq!(families.len(), 2);
        // The family without a GC rule: key "plain", then a value field of length 0.
        assert_eq!(
            families[0],
            vec![(1, b"plain".to_vec()), (2, Vec::new())],
            "an empty ColumnFamily must still be written as the entry's value"
        );
        assert_eq!(families[1][0], (1, b"versioned".to_vec()));
        assert_eq!(families[1][1].0, 2);
        assert!(!families[1][1].1.is_empty());
        let states: Vec<_> = fields(&bytes)
            .into_iter()
            .filter(|(tag, _)| *tag == CLUSTER_STATES)
            .collect();
        assert_eq!(states.len(), 1);
    }

    #[test]
    fn prost_alone_leaves_an_empty_value_out() {
        // The fault this module exists for: if prost ever starts writing default values, the
        // wrapper becomes unnecessary (but stays correct).
        let bytes = table().into_table().encode_to_vec();
        let plain = fields(&bytes)
            .into_iter()
            .filter(|(tag, _)| *tag == COLUMN_FAMILIES)
            .map(|(_, entry)| fields(&entry))
            .find(|entry| entry[0].1 == b"plain");
        assert_eq!(plain, Some(vec![(1, b"plain".to_vec())]));
    }

    #[test]
    fn encoded_len_matches_and_the_message_round_trips() {
        let reply = table();
        let bytes = reply.encode_to_vec();
        assert_eq!(bytes.len(), reply.encoded_len());
        // prost's own type reads it as the same table...
        let decoded = admin_v2::Table::decode(bytes.as_slice()).unwrap();
        assert_eq!(decoded, reply.clone().into_table());
        // ...and so does ours, keeping the order.
        assert_eq!(TableReply::decode(bytes.as_slice()).unwrap(), reply);

        let list = ListTablesReply {
            tables: vec![reply.clone(), TableReply::default()],
            next_page_token: "t".into(),
        };
        let bytes = list.encode_to_vec();
        assert_eq!(bytes.len(), list.encoded_len());
        let decoded = admin_v2::ListTablesResponse::decode(bytes.as_slice()).unwrap();
        assert_eq!(decoded.tables[0], reply.into_table());
        assert_eq!(decoded.next_page_token, "t");
        assert_eq!(ListTablesReply::decode(bytes.as_slice()).unwrap(), list);
    }
}
