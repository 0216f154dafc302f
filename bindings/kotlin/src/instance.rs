//! The exported replicated instance: the core's [`sparsetable::InstanceData`] over a
//! [`Database`] (the first cluster's copy), for the Kotlin instance admin client, the data
//! client's app-profile routing and the replication control surface.
//!
//! Every rule is the core's: routing by app profile, the lag, outages, injected faults,
//! consistency tokens (`InstanceData`'s module docs and docs/replication.md hold them). This
//! module converts records and errors only. A data call asks [`InstancePlane::route`] where
//! it runs and runs on the returned [`RouteTarget::database`] with the very methods of
//! [`Database`]; that handle's writes call the core's `Routed::after_write` before they
//! return, as the core requires (one FFI call for the route, one for the request). The
//! injected latency is handed back, for the JVM to wait out with its own (interruptible)
//! sleep.
//!
//! On a durable database the other clusters' copies and the replication queue are on disk
//! next to it, in the server's layout (`replicas/CLUSTER/`, `replication/`; see `on_disk`),
//! so a reopened directory keeps every copy and every write still on its way.
//!
//! Invariant: no exported function panics on any input; bad input is the core's typed error.

use std::sync::Arc;

use sparsetable::{Code, FaultRule, InstanceData, Isolation, Routing};

use crate::clock::ManualClock;
use crate::database::Database;
use crate::error::{to_ffi, SparsetableError};
use crate::requests::DropRowRange;

type Result<T> = std::result::Result<T, SparsetableError>;

/// How an app profile routes (Google's `SingleClusterRouting` / `MultiClusterRoutingUseAny`).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum ProfileRouting {
    /// Every request to one cluster.
    SingleCluster {
        /// The cluster.
        cluster_id: String,
        /// Whether CheckAndMutateRow and ReadModifyWriteRow are allowed.
        allow_transactional_writes: bool,
    },
    /// Each request to the nearest available cluster of the list.
    MultiCluster {
        /// The clusters, nearest first; empty: every cluster of the instance.
        cluster_ids: Vec<String>,
        /// Requests for one row go to one cluster while it is available.
        row_affinity: bool,
    },
}

/// An app profile as the instance routes by it.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct AppProfileConfig {
    /// Its id (`default` replaces the instance's default rule).
    pub id: String,
    /// Its routing policy.
    pub routing: ProfileRouting,
    /// Data Boost read-only isolation (writes refused).
    pub data_boost: bool,
}

impl From<AppProfileConfig> for sparsetable::AppProfile {
    fn from(p: AppProfileConfig) -> Self {
        sparsetable::AppProfile {
            id: p.id,
            routing: match p.routing {
                ProfileRouting::SingleCluster {
                    cluster_id,
                    allow_transactional_writes,
                } => Routing::SingleCluster {
                    cluster_id,
                    allow_transactional_writes,
                },
                ProfileRouting::MultiCluster {
                    cluster_ids,
                    row_affinity,
                } => Routing::MultiCluster {
                    cluster_ids,
                    row_affinity,
                },
            },
            isolation: if p.data_boost {
                Isolation::DataBoostReadOnly
            } else {
                Isolation::Standard
            },
        }
    }
}

/// What a routed request does (the core's `RequestKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum RequestKind {
    /// ReadRows, SampleRowKeys, change stream reads.
    Read,
    /// MutateRow, MutateRows.
    Write,
    /// CheckAndMutateRow, ReadModifyWriteRow.
    Transaction,
}

impl From<RequestKind> for sparsetable::RequestKind {
    fn from(k: RequestKind) -> Self {
        match k {
            RequestKind::Read => sparsetable::RequestKind::Read,
            RequestKind::Write => sparsetable::RequestKind::Write,
            RequestKind::Transaction => sparsetable::RequestKind::Transaction,
        }
    }
}

/// An injected fault (the core's `FaultRule`).
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct FaultSpec {
    /// The RPC it applies to (`ReadRows`, `MutateRow`, ...); `None`: every RPC.
    pub rpc: Option<String>,
    /// The cluster it applies to; `None`: every cluster.
    pub cluster_id: Option<String>,
    /// The gRPC code name matching requests fail with; `None`: latency only.
    pub code: Option<String>,
    /// How many matching requests it affects; `None`: no limit.
    pub count: Option<u64>,
    /// The chance a matching request is affected, 0.0 to 1.0.
    pub probability: f64,
    /// Latency added to affected requests, in microseconds.
    pub latency_micros: u64,
}

/// A cluster and whether it is serving.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ClusterState {
    /// The cluster's id.
    pub cluster_id: String,
    /// Whether it is available.
    pub available: bool,
}

/// Where one data request runs: a handle on the routed cluster's database for that request
/// (its writes are handed to replication before they return), and the injected latency.
#[derive(Debug, uniffi::Record)]
pub struct RouteTarget {
    /// The routed cluster's database, for this request only.
    pub database: Arc<Database>,
    /// The routed cluster's id.
    pub cluster_id: String,
    /// Injected latency to wait out before running the request, in microseconds (0: none).
    pub latency_micros: u64,
}

/// One instance's clusters, app profiles, routing, faults and replication.
#[derive(Debug, uniffi::Object)]
pub struct InstancePlane {
    pub(crate) plane: InstanceData,
    /// The first database's directory, if durable (the instance admin's `INSTANCE` file).
    pub(crate) dir: Option<std::path::PathBuf>,
}

/// Keeps the copies of the clusters after the first, and the replication queue, in
/// `folder` as the server keeps a durable instance's (docs/format/replication_queue.md):
/// cluster `C`'s copy in `folder/replicas/C/` (a database opened with `options`, on `clock`),
/// the queue of writes on their way in `folder/replication/`. A reopened instance then finds
/// its copies as they were and delivers what was queued before it closed.
fn on_disk(
    plane: InstanceData,
    folder: &std::path::Path,
    options: sparsetable::OpenOptions,
    clock: Arc<dyn sparsetable::Clock>,
) -> InstanceData {
    use sparsetable::platform::storage::{FileStorage, Storage};
    let (replicas, queue) = (folder.join("replicas"), folder.join("replication"));
    plane
        .with_replica_opener(Box::new(move |cluster| {
            // A cluster id names a directory: only an id the record's rule accepts (no
            // separators, no leading dot) may.
            let id = sparsetable::api::instances::ids::check_id("cluster_id", "cluster", cluster)?;
            let storage = Arc::new(FileStorage::new(replicas.join(id))?);
            sparsetable::Database::open(storage, options.clone(), clock.clone())
        }))
        .with_queue_storage(Box::new(move || {
            let storage: Arc<dyn Storage> = Arc::new(FileStorage::new(&queue)?);
            Ok(storage)
        }))
}

#[uniffi::export]
impl InstancePlane {
    /// An instance of one cluster, `cluster_id`, whose copy is `database`; the copies of
    /// clusters added later are in memory, on `clock` (the system clock when `None`; give the
    /// database's own clock). A durable database whose directory has an `INSTANCE` file (the
    /// instance admin's, or the server's) starts with that file's clusters and profiles, so
    /// data calls route by them before any admin call.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for an empty cluster id; `DATA_LOSS` for a damaged `INSTANCE` file,
    /// `UNAVAILABLE` for one that cannot be read.
    #[uniffi::constructor]
    pub fn new(
        database: Arc<Database>,
        cluster_id: String,
        clock: Option<Arc<ManualClock>>,
    ) -> Result<Arc<Self>> {
        let clock: Arc<dyn sparsetable::Clock> = match clock {
            Some(c) => c.inner.clone(),
            None => Arc::new(sparsetable::SystemClock),
        };
        let mut plane = InstanceData::new(database.shared().clone(), &cluster_id, clock.clone())
            .map_err(to_ffi)?;
        if let (Some(dir), Some(options)) = (database.dir(), database.open_options()) {
            plane = on_disk(plane, dir, options.clone(), clock);
        }
        let dir = database.dir().map(std::path::Path::to_path_buf);
        if let Some(dir) = &dir {
            if let Some(stored) =
                sparsetable::api::instances::store::read_file(dir).map_err(to_ffi)?
            {
                let (clusters, profiles) = stored.record.routing();
                plane.configure(clusters, profiles).map_err(to_ffi)?;
            }
        }
        Ok(Arc::new(InstancePlane { plane, dir }))
    }

    /// Sets the clusters (the first database keeps its cluster while it exists) and the app
    /// profiles, all or nothing.
    ///
    /// # Errors
    /// As the core's `configure`: `INVALID_ARGUMENT` for no clusters, a repeated id or a bad
    /// profile.
    pub fn configure(
        &self,
        cluster_ids: Vec<String>,
        profiles: Vec<AppProfileConfig>,
    ) -> Result<()> {
        self.plane
            .configure(cluster_ids, profiles.into_iter().map(Into::into).collect())
            .map_err(to_ffi)
    }

    /// The cluster ids, the first cluster's first.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn cluster_ids(&self) -> Result<Vec<String>> {
        self.plane.cluster_ids().map_err(to_ffi)
    }

    /// Where a data request of `rpc` through `app_profile_id` (`""`: the default profile)
    /// runs; see the core's `InstanceData::route`.
    ///
    /// # Errors
    /// The core's routing errors (`NOT_FOUND`, `FAILED_PRECONDITION`, `UNAVAILABLE`) and
    /// injected errors.
    pub fn route(
        &self,
        app_profile_id: String,
        rpc: String,
        kind: RequestKind,
        row_key: Vec<u8>,
    ) -> Result<RouteTarget> {
        self.plane
            .route(&app_profile_id, &rpc, kind.into(), &row_key)
            .map(|routed| RouteTarget {
                cluster_id: routed.cluster_id.clone(),
                latency_micros: routed.latency_micros,
                database: Database::from_routed(routed),
            })
            .map_err(to_ffi)
    }

    /// ReadChangeStream through `routed` (the database a route of `ReadChangeStream` gave):
    /// one partition of the routed cluster, over every cluster's copy, as the core's
    /// `ChangeStreamReader`.
    ///
    /// # Errors
    /// As the core's `ChangeStreamReader::open`.
    pub fn read_change_stream(
        &self,
        routed: Arc<Database>,
        table_id: String,
        partition: crate::types::RowRange,
        start_micros: Option<i64>,
        tokens: Vec<crate::change_stream::ContinuationToken>,
        end_micros: Option<i64>,
    ) -> Result<Arc<crate::change_stream::ChangeStream>> {
        let clusters = self.plane.clusters().map_err(to_ffi)?;
        crate::change_stream::ChangeStream::open(
            clusters,
            routed.routed_cluster(),
            &table_id,
            partition,
            start_micros,
            tokens,
            end_micros,
        )
    }

    /// Takes a cluster down or brings it back (it catches up).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown cluster; `FAILED_PRECONDITION` with one cluster.
    pub fn set_available(&self, cluster_id: String, available: bool) -> Result<()> {
        self.plane
            .set_available(&cluster_id, available)
            .map_err(to_ffi)
    }

    /// Each cluster and whether it is available, the first cluster's first.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn availability(&self) -> Result<Vec<ClusterState>> {
        Ok(self
            .plane
            .availability()
            .map_err(to_ffi)?
            .into_iter()
            .map(|(cluster_id, available)| ClusterState {
                cluster_id,
                available,
            })
            .collect())
    }

    /// Sets the replication lag, in microseconds of the engine's clock.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a negative lag.
    pub fn set_delay_micros(&self, micros: i64) -> Result<()> {
        self.plane.set_delay_micros(micros).map_err(to_ffi)
    }

    /// The replication lag in microseconds.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn delay_micros(&self) -> Result<i64> {
        self.plane.delay_micros().map_err(to_ffi)
    }

    /// Adds an injected fault.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a code that is not a gRPC code name or a bad rule; `NOT_FOUND`
    /// for an unknown cluster.
    pub fn add_fault(&self, fault: FaultSpec) -> Result<()> {
        let code = match fault.code {
            Some(name) => Some(Code::from_name(&name).ok_or_else(|| {
                to_ffi(sparsetable::Error::invalid_argument(format!(
                    "code {name:?} cannot be injected: use one of {}",
                    Code::ALL.map(Code::as_str).join(", ")
                )))
            })?),
            None => None,
        };
        self.plane
            .add_fault(FaultRule {
                rpc: fault.rpc,
                cluster_id: fault.cluster_id,
                code,
                remaining: fault.count,
                probability: fault.probability,
                latency_micros: fault.latency_micros,
            })
            .map_err(to_ffi)
    }

    /// Removes every injected fault and reseeds their random draws with `seed`.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn clear_faults(&self, seed: u64) -> Result<()> {
        self.plane.clear_faults(seed).map_err(to_ffi)
    }

    /// How many fault rules are in force.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn fault_count(&self) -> Result<u64> {
        self.plane.fault_count().map(|n| n as u64).map_err(to_ffi)
    }

    /// How many committed writes are still on their way to some cluster.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn in_flight(&self) -> Result<u64> {
        self.plane.in_flight().map(|n| n as u64).map_err(to_ffi)
    }

    /// Delivers what replication has due.
    ///
    /// # Errors
    /// Storage errors delivering.
    pub fn pump(&self) -> Result<()> {
        self.plane.pump().map_err(to_ffi)
    }

    /// GenerateConsistencyToken for `table_id`.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn consistency_token(&self, table_id: String) -> Result<String> {
        self.plane.consistency_token(&table_id).map_err(to_ffi)
    }

    /// CheckConsistency: whether every write acknowledged before `token` was generated has
    /// reached every cluster (`data_boost_local`: the Data Boost mode, as the core defines it).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed token or one of another table.
    pub fn check_consistency(
        &self,
        table_id: String,
        token: String,
        data_boost_local: bool,
    ) -> Result<bool> {
        self.plane
            .check_consistency(&table_id, &token, data_boost_local)
            .map_err(to_ffi)
    }

    /// Enables, changes or (`None`) disables a table's change stream on every cluster's copy.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for a retention out of range.
    pub fn set_change_stream(&self, table_id: String, retention_micros: Option<i64>) -> Result<()> {
        self.plane
            .set_change_stream(&table_id, retention_micros)
            .map_err(to_ffi)
    }

    /// DropRowRange at every cluster's copy.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for an empty prefix.
    pub fn drop_row_range(&self, table_id: String, range: DropRowRange) -> Result<()> {
        self.plane
            .drop_row_range(&table_id, &range.into())
            .map_err(to_ffi)
    }

    /// Runs garbage collection now on every cluster's copy of `table_id` (every table when
    /// `None`).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; the storage's errors.
    pub fn collect_garbage(&self, table_id: Option<String>) -> Result<()> {
        self.plane
            .collect_garbage(table_id.as_deref())
            .map_err(to_ffi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::requests::{RowRead, RowWrite};
    use crate::types::{
        ColumnFamily, FamilySettings, GcRule, GcRuleNode, Granularity, Mutation, TableConfig,
        ValueType,
    };

    fn single(id: &str, cluster: &str) -> AppProfileConfig {
        AppProfileConfig {
            id: id.into(),
            routing: ProfileRouting::SingleCluster {
                cluster_id: cluster.into(),
                allow_transactional_writes: true,
            },
            data_boost: false,
        }
    }

    #[test]
    fn a_write_reaches_the_other_cluster_after_the_lag() {
        let clock = ManualClock::new(1_000_000);
        let db = Database::with_manual_clock(clock.clone());
        db.create_table(
            "t".into(),
            TableConfig {
                families: vec![ColumnFamily {
                    name: "cf".into(),
                    settings: FamilySettings {
                        gc_rule: GcRule::leaf(GcRuleNode::Never),
                        value_type: ValueType::Bytes,
                    },
                }],
                granularity: Granularity::Millis,
                deletion_protection: false,
                initial_splits: vec![],
                max_value_bytes: None,
                row_key_schema: None,
            },
        )
        .unwrap();
        let plane = InstancePlane::new(db, "c1".into(), Some(clock.clone())).unwrap();
        plane
            .configure(
                vec!["c1".into(), "c2".into()],
                vec![single("p1", "c1"), single("p2", "c2")],
            )
            .unwrap();
        plane.set_delay_micros(1_000).unwrap();
        let w = plane
            .route(
                "p1".into(),
                "MutateRow".into(),
                RequestKind::Write,
                b"r".to_vec(),
            )
            .unwrap();
        assert_eq!(w.cluster_id, "c1");
        w.database
            .mutate_row(RowWrite {
                table_id: "t".into(),
                row_key: b"r".to_vec(),
                mutations: vec![Mutation::SetCell {
                    family: "cf".into(),
                    qualifier: b"q".to_vec(),
                    timestamp_micros: 5_000,
                    value: b"v".to_vec(),
                }],
            })
            .unwrap();
        let read = |p: &str| {
            plane
                .route(
                    p.into(),
                    "ReadRows".into(),
                    RequestKind::Read,
                    b"r".to_vec(),
                )
                .unwrap()
                .database
                .read_row(RowRead {
                    table_id: "t".into(),
                    row_key: b"r".to_vec(),
                    filter: None,
                })
                .unwrap()
        };
        assert!(read("p2").is_none());
        clock.advance_micros(1_000);
        assert!(read("p2").is_some());
        let err = plane
            .add_fault(FaultSpec {
                rpc: None,
                cluster_id: None,
                code: Some("NOPE".into()),
                count: None,
                probability: 1.0,
                latency_micros: 0,
            })
            .unwrap_err();
        assert_eq!(err.code(), "INVALID_ARGUMENT");
    }
}
