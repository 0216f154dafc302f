//! The replication driver (no_std): one database per cluster, moved by the [`Replication`]
//! state machine. It collects each cluster's committed writes, brings every cluster's schema
//! in line with the first cluster's (copying a table a cluster lacks, rows and all), and
//! applies the deliveries the state machine says are due, in order. The rules are in
//! [`super::replication`]'s module docs.
//!
//! The driver is generic over [`ClusterDatabase`]: read and write access to one cluster's
//! database. It is implemented for a plain owned [`Database`] (the playground and the
//! console, single-threaded, without std) and, with std, for [`crate::SharedDatabase`]
//! (the server and the bindings, through [`super::replicated::ReplicatedInstance`], which
//! adds the lock and keeps the queue on storage). The logic exists once, here.
//!
//! A change stream of a replicated table is every cluster's own change log merged in commit
//! order ([`ReplicaSet::changes`]; the std reader [`super::change_stream_reader`] adds
//! partitions and tokens on top of the same order).
//!
//! Invariants: every cluster's database captures its committed writes (set by
//! [`ReplicaSet::new`]) and each is handed to the state machine once, by [`ReplicaSet::pump`];
//! deliveries are applied in the order the state machine returns them; a cluster's schema is
//! compared with the first cluster's only when the first cluster's schema epoch moved since
//! it was last brought in line (or it was down then).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::api::change_stream::ChangeRecord;
use crate::api::database::{CommittedWrite, Database, RowMutations};
use crate::api::replication::{Replication, RequestKind};
use crate::model::mutation::Mutation;
use crate::model::request::ReadRowsRequest;
use crate::model::row_set::RowRange;
use crate::model::schema::{FamilyModification, TableConfig};
use crate::Result;

/// Read and write access to one cluster's database: what the driver needs of it.
pub trait ClusterDatabase {
    /// Runs `f` with shared access.
    ///
    /// # Errors
    /// `f`'s error, or the handle's own (a poisoned lock).
    fn read_db<R>(&self, f: impl FnOnce(&Database) -> Result<R>) -> Result<R>;
    /// Runs `f` with exclusive access.
    ///
    /// # Errors
    /// `f`'s error, or the handle's own (a poisoned lock, a failed sync).
    fn write_db<R>(&mut self, f: impl FnOnce(&mut Database) -> Result<R>) -> Result<R>;
}

impl ClusterDatabase for Database {
    fn read_db<R>(&self, f: impl FnOnce(&Database) -> Result<R>) -> Result<R> {
        f(self)
    }
    fn write_db<R>(&mut self, f: impl FnOnce(&mut Database) -> Result<R>) -> Result<R> {
        f(self)
    }
}

#[cfg(feature = "std")]
impl ClusterDatabase for crate::api::shared::SharedDatabase {
    fn read_db<R>(&self, f: impl FnOnce(&Database) -> Result<R>) -> Result<R> {
        crate::api::shared::SharedDatabase::read(self, f)
    }
    fn write_db<R>(&mut self, f: impl FnOnce(&mut Database) -> Result<R>) -> Result<R> {
        crate::api::shared::SharedDatabase::write(self, f)
    }
}

/// One change of a replicated table's stream: the change and the cluster it was committed
/// at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterChange {
    /// The position of the cluster that committed it (also the change's tiebreaker).
    pub cluster: usize,
    /// The change.
    pub record: ChangeRecord,
}

/// One instance's clusters and their replication, single-threaded (see the module docs).
#[derive(Debug, Clone)]
pub struct ReplicaSet<D> {
    replicas: Vec<D>,
    state: Replication,
    /// Per cluster, the first cluster's schema epoch it was last brought in line with.
    synced: Vec<Option<u64>>,
    /// Whether the databases keep the writes taken from them as outbound until
    /// [`ReplicaSet::confirm_recorded`] (a caller that keeps the queue on storage); else
    /// they are forgotten once taken.
    hold_outbound: bool,
}

impl<D: ClusterDatabase> ReplicaSet<D> {
    /// An instance over `clusters` (id and database, the first holding the schema), all
    /// available, no delay; every database starts capturing its committed writes.
    ///
    /// # Errors
    /// `InvalidArgument` for no clusters or a repeated id; the handles' errors.
    pub fn new(clusters: Vec<(String, D)>) -> Result<Self> {
        let (ids, mut replicas): (Vec<String>, Vec<D>) = clusters.into_iter().unzip();
        let state = Replication::new(ids)?;
        for db in &mut replicas {
            db.write_db(|d| {
                d.set_capture_committed(true);
                Ok(())
            })?;
        }
        let synced = alloc::vec![None; replicas.len()];
        let mut set = ReplicaSet {
            replicas,
            state,
            synced,
            hold_outbound: false,
        };
        set.pump()?;
        Ok(set)
    }

    /// The replication state (routing, delay, outages, the queue).
    pub fn replication(&self) -> &Replication {
        &self.state
    }

    /// Makes the databases keep the writes taken from them as outbound (see
    /// [`crate::Database::outbound`]) until [`ReplicaSet::confirm_recorded`]: for a caller
    /// that keeps the queue on storage.
    pub fn set_hold_outbound(&mut self, hold: bool) {
        self.hold_outbound = hold;
    }

    /// The queue, as it now is, is durable: every database stops keeping as outbound the
    /// writes of its own the queue has recorded.
    ///
    /// # Errors
    /// The handles' errors.
    pub fn confirm_recorded(&mut self) -> Result<()> {
        for (i, db) in self.replicas.iter_mut().enumerate() {
            if db.read_db(|d| Ok(d.outbound().is_empty()))? {
                continue;
            }
            let through = self.state.captured_through(i);
            db.write_db(|d| {
                d.confirm_outbound(through);
                Ok(())
            })?;
        }
        Ok(())
    }

    /// Every cluster's outbound writes ([`crate::Database::outbound`]), in the instance's
    /// order: what [`Replication::restore_queue_with`] takes.
    ///
    /// # Errors
    /// The handles' errors.
    pub fn outbound(&self) -> Result<Vec<Vec<CommittedWrite>>> {
        self.replicas
            .iter()
            .map(|db| db.read_db(|d| Ok(d.outbound().to_vec())))
            .collect()
    }

    /// Every cluster's replication marks ([`Database::replica_marks`]), in the instance's
    /// order: what [`Replication::restore_queue_with`] takes.
    ///
    /// # Errors
    /// The handles' errors.
    pub fn replica_marks(&self) -> Result<Vec<alloc::collections::BTreeMap<String, u64>>> {
        self.replicas
            .iter()
            .map(|db| db.read_db(|d| Ok(d.replica_marks().clone())))
            .collect()
    }

    /// The replication state, to change (profiles, delay, outages); call
    /// [`ReplicaSet::pump`] after a change that may make writes due.
    pub fn replication_mut(&mut self) -> &mut Replication {
        &mut self.state
    }

    /// Cluster `i`'s database handle.
    pub fn replica(&self, i: usize) -> Option<&D> {
        self.replicas.get(i)
    }

    /// Cluster `i`'s database handle, to write through. Writes made on it are collected by
    /// the next [`ReplicaSet::pump`].
    pub fn replica_mut(&mut self, i: usize) -> Option<&mut D> {
        self.replicas.get_mut(i)
    }

    /// How many clusters.
    pub fn len(&self) -> usize {
        self.replicas.len()
    }

    /// Never: an instance has at least one cluster.
    pub fn is_empty(&self) -> bool {
        self.replicas.is_empty()
    }

    /// Delivers what is due, then picks the cluster for a request through `app_profile_id`
    /// (see [`Replication::route`]).
    ///
    /// # Errors
    /// As [`Replication::route`]; the handles' errors applying due writes.
    pub fn route(
        &mut self,
        app_profile_id: &str,
        kind: RequestKind,
        row_key: &[u8],
    ) -> Result<usize> {
        self.pump()?;
        self.state.route(app_profile_id, kind, row_key)
    }

    /// Collects every cluster's committed writes, brings every available cluster's schema in
    /// line with the first one's and applies the writes that are due, in order. Returns
    /// whether the queue changed (a caller that keeps it on storage saves it then).
    ///
    /// # Errors
    /// The handles' errors (storage, a poisoned lock).
    pub fn pump(&mut self) -> Result<bool> {
        let mut changed = false;
        // Writes made on a cluster's database directly (not through `route`) replicate too.
        for (i, db) in self.replicas.iter_mut().enumerate() {
            if !db.read_db(|d| Ok(d.has_committed()))? {
                continue;
            }
            let hold = self.hold_outbound;
            let writes = db.write_db(|d| {
                Ok(if hold {
                    d.take_committed_held()
                } else {
                    d.take_committed()
                })
            })?;
            if !writes.is_empty() {
                self.state.record(i, writes);
                changed = true;
            }
        }
        let epoch = self.replicas[0].read_db(|d| Ok(d.schema_epoch()))?;
        for i in 1..self.replicas.len() {
            if self.state.is_available(i) && self.synced[i] != Some(epoch) {
                self.sync_schema(i)?;
                self.synced[i] = Some(epoch);
            }
        }
        let now = self.replicas[0].read_db(|d| Ok(d.now_micros()))?;
        let deliveries = self.state.pump(now);
        changed |= !deliveries.is_empty();
        for delivery in deliveries {
            self.replicas[delivery.cluster].write_db(|d| {
                // One atomic write with its origin, so a restart after it never applies it
                // again (`Replication::restore_queue_with`). A row whose table or family is
                // gone here is dropped, as Bigtable drops the data of a deleted family.
                d.apply_delivery(&delivery.writes, delivery.origin)?;
                Ok(())
            })?;
        }
        Ok(changed)
    }

    /// The changes of `table_id` committed at any cluster after the positions `after` (per
    /// cluster, the last sequence already seen; missing entries count as 0), merged in
    /// commit order, ties by the cluster's position and then the sequence: the order a
    /// change stream delivers them in. Empty for a table without a change stream.
    ///
    /// # Errors
    /// The handles' errors.
    pub fn changes(&self, table_id: &str, after: &[u64]) -> Result<Vec<ClusterChange>> {
        let mut all = Vec::new();
        for (i, db) in self.replicas.iter().enumerate() {
            let from = after.get(i).copied().unwrap_or(0);
            let records = db.read_db(|d| {
                Ok(d.change_log(table_id)
                    .map(|log| log.since(from, None, &RowRange::all()))
                    .unwrap_or_default())
            })?;
            all.extend(
                records
                    .into_iter()
                    .map(|record| ClusterChange { cluster: i, record }),
            );
        }
        all.sort_by_key(|c| (c.record.commit_micros, c.cluster, c.record.sequence));
        Ok(all)
    }

    /// Makes cluster `i`'s tables and families those of the first cluster; a table it lacks
    /// is created and filled with the first cluster's rows.
    fn sync_schema(&mut self, i: usize) -> Result<()> {
        let want = self.replicas[0].read_db(|d| Ok(d.list_tables()))?;
        let have = self.replicas[i].read_db(|d| Ok(d.list_tables()))?;
        let same = want.len() == have.len()
            && want
                .iter()
                .zip(&have)
                .all(|(a, b)| a.name == b.name && a.config.families == b.config.families);
        if same {
            return Ok(());
        }
        for gone in have
            .iter()
            .filter(|h| !want.iter().any(|w| w.name == h.name))
        {
            self.replicas[i].write_db(|d| {
                d.set_deletion_protection(&gone.name, false)?;
                d.delete_table(&gone.name)
            })?;
        }
        for table in &want {
            match have.iter().find(|h| h.name == table.name) {
                None => self.copy_table(i, &table.name, table.config.clone())?,
                Some(h) => {
                    let mut changes = Vec::new();
                    for (name, family) in &table.config.families {
                        match h.config.families.get(name) {
                            None => changes.push(FamilyModification::Create {
                                name: name.to_string(),
                                family: family.clone(),
                            }),
                            Some(f) if f != family => changes.push(FamilyModification::Update {
                                name: name.to_string(),
                                family: family.clone(),
                            }),
                            Some(_) => {}
                        }
                    }
                    for (name, _) in &h.config.families {
                        if !table.config.families.contains_key(name) {
                            changes.push(FamilyModification::Drop {
                                name: name.to_string(),
                            });
                        }
                    }
                    if !changes.is_empty() {
                        self.replicas[i].write_db(|d| {
                            d.modify_column_families(&table.name, &changes).map(drop)
                        })?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Creates `table` at cluster `i` and copies the first cluster's rows into it (every
    /// readable cell, with its timestamp).
    fn copy_table(&mut self, i: usize, table: &str, config: TableConfig) -> Result<()> {
        let rows = self.replicas[0]
            .read_db(|d| d.read_rows(table, &ReadRowsRequest::default())?.into_rows())?;
        let copy = CommittedWrite {
            table_id: table.to_string(),
            rows: rows
                .into_iter()
                .map(|r| RowMutations {
                    mutations: r
                        .cells
                        .into_iter()
                        .map(|c| {
                            // An aggregate family takes no SetCell: its cell is copied as a
                            // merge of its state into an empty cell, which is that state.
                            let aggregate = config
                                .families
                                .get(&c.family)
                                .is_some_and(|f| f.value_type.is_aggregate());
                            if aggregate {
                                Mutation::MergeToCell {
                                    family: c.family,
                                    qualifier: c.qualifier,
                                    timestamp_micros: c.timestamp_micros,
                                    state: c.value,
                                }
                            } else {
                                Mutation::SetCell {
                                    family: c.family,
                                    qualifier: c.qualifier,
                                    timestamp_micros: c.timestamp_micros,
                                    value: c.value,
                                }
                            }
                        })
                        .collect(),
                    row_key: r.key,
                })
                .filter(|r| !r.mutations.is_empty())
                .collect(),
            commit_micros: 0,
            sequence: 0,
        };
        self.replicas[i].write_db(|d| {
            d.create_table(table, config)?;
            if !copy.rows.is_empty() {
                d.apply_committed(&copy)?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::replication::{AppProfile, Isolation, Routing};
    use crate::model::schema::TableConfig;
    use crate::platform::clock::ManualClock;
    use crate::Code;
    use alloc::sync::Arc;
    use alloc::vec;

    const START: i64 = 1_700_000_000_000_000;
    const SECOND: i64 = 1_000_000;

    fn set(clusters: &[&str]) -> (Arc<ManualClock>, ReplicaSet<Database>) {
        let clock = Arc::new(ManualClock::new(START));
        let dbs = clusters
            .iter()
            .map(|id| (id.to_string(), Database::with_clock(clock.clone())))
            .collect();
        let mut s = ReplicaSet::new(dbs).unwrap();
        s.replica_mut(0)
            .unwrap()
            .create_table("t", TableConfig::with_families(["cf"]))
            .unwrap();
        s.replication_mut().set_profiles(vec![
            AppProfile {
                id: "to-c2".into(),
                routing: Routing::SingleCluster {
                    cluster_id: "c2".into(),
                    allow_transactional_writes: true,
                },
                isolation: Isolation::Standard,
            },
            AppProfile {
                id: "any".into(),
                routing: Routing::MultiCluster {
                    cluster_ids: vec![],
                    row_affinity: false,
                },
                isolation: Isolation::Standard,
            },
        ]);
        s.replication_mut().set_delay_micros(2 * SECOND).unwrap();
        s.pump().unwrap();
        (clock, s)
    }

    fn put(s: &mut ReplicaSet<Database>, i: usize, ts: i64, value: &str) {
        s.replica_mut(i)
            .unwrap()
            .mutate_row(
                "t",
                b"r",
                &[Mutation::set_cell(
                    "cf",
                    b"q".to_vec(),
                    ts,
                    value.as_bytes().to_vec(),
                )],
            )
            .unwrap();
        s.pump().unwrap();
    }

    fn values(s: &ReplicaSet<Database>, i: usize) -> Vec<String> {
        s.replica(i)
            .unwrap()
            .read_rows("t", &ReadRowsRequest::default())
            .unwrap()
            .into_rows()
            .unwrap()
            .into_iter()
            .flat_map(|r| r.cells)
            .map(|c| String::from_utf8(c.value).unwrap())
            .collect()
    }

    #[test]
    fn a_write_reaches_the_other_cluster_after_the_delay_and_the_token_follows() {
        let (clock, mut s) = set(&["c1", "c2"]);
        // The table created at the first cluster was copied to the second by the pump.
        assert!(s.replica(1).unwrap().get_table("t").is_ok());
        put(&mut s, 0, 1000, "v");
        let token = s.replication().consistency_token("t");
        assert_eq!(values(&s, 0), ["v"]);
        assert!(values(&s, 1).is_empty(), "stale until the delay passes");
        assert!(!s
            .replication()
            .check_consistency("t", &token, false)
            .unwrap());
        clock.advance_micros(2 * SECOND - 1);
        s.pump().unwrap();
        assert!(values(&s, 1).is_empty());
        clock.advance_micros(1);
        s.pump().unwrap();
        assert_eq!(values(&s, 1), ["v"]);
        assert!(s
            .replication()
            .check_consistency("t", &token, false)
            .unwrap());
    }

    #[test]
    fn conflicting_writes_at_one_time_converge_to_the_later_listed_cluster() {
        let (clock, mut s) = set(&["c1", "c2", "c3"]);
        put(&mut s, 2, 1000, "from-c3");
        put(&mut s, 0, 1000, "from-c1");
        put(&mut s, 1, 1000, "from-c2");
        clock.advance_micros(2 * SECOND);
        s.pump().unwrap();
        for i in 0..3 {
            assert_eq!(values(&s, i), ["from-c3"], "cluster {i}");
        }
    }

    #[test]
    fn a_down_cluster_fails_single_cluster_routing_and_catches_up() {
        let (clock, mut s) = set(&["c1", "c2"]);
        s.replication_mut().set_available("c2", false).unwrap();
        let e = s.route("to-c2", RequestKind::Write, b"r").unwrap_err();
        assert_eq!(e.code(), Code::Unavailable);
        assert_eq!(s.route("any", RequestKind::Write, b"r").unwrap(), 0);
        put(&mut s, 0, 1000, "v");
        clock.advance_micros(10 * SECOND);
        s.pump().unwrap();
        assert!(values(&s, 1).is_empty(), "a down cluster receives nothing");
        s.replication_mut().set_available("c2", true).unwrap();
        s.pump().unwrap();
        assert_eq!(values(&s, 1), ["v"]);
        assert_eq!(s.replication().in_flight(), 0);
    }

    #[test]
    fn changes_merge_every_clusters_log_in_commit_order() {
        let (clock, mut s) = set(&["c1", "c2"]);
        for i in 0..2 {
            s.replica_mut(i)
                .unwrap()
                .set_change_stream("t", Some(24 * 3600 * SECOND))
                .unwrap();
        }
        put(&mut s, 1, 1000, "a");
        clock.advance_micros(SECOND);
        put(&mut s, 0, 2000, "b");
        clock.advance_micros(5 * SECOND);
        s.pump().unwrap();
        let all = s.changes("t", &[]).unwrap();
        let sources: Vec<usize> = all.iter().map(|c| c.cluster).collect();
        // Replicated writes are not logged again at the cluster that received them.
        assert_eq!(sources, [1, 0]);
        assert!(all[0].record.commit_micros < all[1].record.commit_micros);
        let after = [all[1].record.sequence, all[0].record.sequence];
        assert!(s.changes("t", &after).unwrap().is_empty());
    }
}
