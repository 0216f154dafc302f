//! Shared replication vectors (tests/vectors/replication, format in its README.md): an
//! instance's clusters, app profiles and lag, then steps (writes, reads, increments, the
//! clock, consistency tokens, outages) each with what Bigtable's rules say it gives. The
//! loader is here; `replay_core` replays a vector through the core's `InstanceData` the way a
//! front-end uses it, applying no rule of its own.

use std::path::PathBuf;
use std::sync::Arc;

use serde::Deserialize;
use sparsetable::Clock as _;
use sparsetable::{
    AppProfile, Database, InstanceData, Isolation, ManualClock, Mutation, ReadModifyWriteRule,
    RequestKind, Routing, SharedDatabase, TableConfig,
};

/// A file of replication vectors.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplicationFile {
    vectors: Vec<ReplicationVector>,
}

/// One app profile as a vector states it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileSpec {
    /// The profile id.
    pub id: String,
    /// Single-cluster routing to this cluster.
    #[serde(default)]
    pub single: Option<String>,
    /// With single-cluster routing: whether transactions are allowed.
    #[serde(default)]
    pub transactions: bool,
    /// Multi-cluster routing over these clusters (empty: every cluster).
    #[serde(default)]
    pub multi: Option<Vec<String>>,
    /// Data Boost (read-only) isolation.
    #[serde(default)]
    pub data_boost: bool,
}

/// One step of a vector.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// `write`, `delete_row`, `read`, `increment`, `advance`, `token`, `check`,
    /// `set_available`, `set_lag`.
    pub op: String,
    /// The app profile a data step goes through (`""`: the default profile).
    #[serde(default)]
    pub profile: String,
    /// The row of a data step.
    #[serde(default)]
    pub row: String,
    /// `write`: the value of `cf:q`.
    #[serde(default)]
    pub value: Option<String>,
    /// `write`: the cell's timestamp (microseconds).
    #[serde(default)]
    pub timestamp: i64,
    /// `advance`, `set_lag`: microseconds.
    #[serde(default)]
    pub micros: i64,
    /// `token`, `check`: the token's name in the vector (`check` of a name never generated
    /// sends the name itself as the token).
    #[serde(default)]
    pub token: String,
    /// `set_available`: the cluster and whether it is up.
    #[serde(default)]
    pub cluster: String,
    /// `set_available`: up or down.
    #[serde(default)]
    pub up: bool,
    /// `read`: the value of `cf:q` the read returns (`null`: no such cell).
    #[serde(default)]
    pub expect_value: Option<String>,
    /// `check`: whether the token is consistent.
    #[serde(default)]
    pub expect_consistent: Option<bool>,
    /// `changes`: the change records read, each as one line (README: "Change lines").
    #[serde(default)]
    pub expect_changes: Option<Vec<String>>,
    /// The gRPC code the step fails with (`null`: it succeeds).
    #[serde(default)]
    pub expect_error: Option<String>,
}

/// A change as one line of a vector: `TYPE CLUSTER ROW: MUTATION; MUTATION` (README:
/// "Change lines"). Front-end runners write the same line from their own types.
pub fn change_line(
    kind: &str,
    source_cluster_id: &str,
    row_key: &[u8],
    mutations: &[Mutation],
) -> String {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let muts: Vec<String> = mutations
        .iter()
        .map(|m| match m {
            Mutation::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } => format!(
                "set {family}:{}@{timestamp_micros}={}",
                text(qualifier),
                text(value)
            ),
            Mutation::AddToCell {
                family,
                qualifier,
                timestamp_micros,
                input,
            } => format!(
                "add {family}:{}@{timestamp_micros}+{input}",
                text(qualifier)
            ),
            Mutation::MergeToCell {
                family, qualifier, ..
            } => format!("merge {family}:{}", text(qualifier)),
            Mutation::DeleteFromColumn {
                family, qualifier, ..
            } => format!("delete {family}:{}", text(qualifier)),
            Mutation::DeleteFromFamily { family } => format!("delete {family}"),
            Mutation::DeleteFromRow => "delete row".to_string(),
        })
        .collect();
    let cluster = if source_cluster_id.is_empty() {
        "-"
    } else {
        source_cluster_id
    };
    format!("{kind} {cluster} {}: {}", text(row_key), muts.join("; "))
}

/// One vector.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplicationVector {
    /// A unique name.
    pub name: String,
    /// What it checks, and the rule's source.
    pub description: String,
    /// The instance's clusters, in order.
    pub clusters: Vec<String>,
    /// Its app profiles.
    #[serde(default)]
    pub app_profiles: Vec<ProfileSpec>,
    /// The replication lag in microseconds.
    #[serde(default)]
    pub lag_micros: i64,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// Every replication vector, from every file, in file order.
///
/// # Panics
/// On an unreadable or malformed file, or duplicate names.
pub fn load_replication() -> Vec<ReplicationVector> {
    let dir: PathBuf = crate::vectors_dir().join("replication");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read tests/vectors/replication")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut all: Vec<ReplicationVector> = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read vector file");
        let file: ReplicationFile =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for v in file.vectors {
            assert!(
                all.iter().all(|o| o.name != v.name),
                "duplicate replication vector name {}",
                v.name
            );
            all.push(v);
        }
    }
    all
}

/// A profile spec as the core's `AppProfile`.
///
/// # Errors
/// A spec that names neither or both routings.
pub fn profile(spec: &ProfileSpec) -> Result<AppProfile, String> {
    let routing = match (&spec.single, &spec.multi) {
        (Some(cluster), None) => Routing::SingleCluster {
            cluster_id: cluster.clone(),
            allow_transactional_writes: spec.transactions,
        },
        (None, Some(clusters)) => Routing::MultiCluster {
            cluster_ids: clusters.clone(),
            row_affinity: false,
        },
        _ => return Err(format!("profile {}: give single or multi", spec.id)),
    };
    Ok(AppProfile {
        id: spec.id.clone(),
        routing,
        isolation: if spec.data_boost {
            Isolation::DataBoostReadOnly
        } else {
            Isolation::Standard
        },
    })
}

/// The table every vector writes: `t` with family `cf`, cells in `cf:q`.
pub const TABLE: &str = "t";

/// Replays `v` through the core's `InstanceData` on a manual clock.
///
/// # Errors
/// The first step whose outcome differs from the vector's, described.
pub fn replay_core(v: &ReplicationVector) -> Result<(), String> {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000_000));
    let db = SharedDatabase::new(Database::with_clock(clock.clone()));
    db.write(|d| d.create_table(TABLE, TableConfig::with_families(["cf"])))
        .map_err(|e| e.to_string())?;
    let first = v.clusters.first().ok_or("a vector needs a cluster")?;
    let plane = InstanceData::new(db, first, clock.clone()).map_err(|e| e.to_string())?;
    let profiles = v
        .app_profiles
        .iter()
        .map(profile)
        .collect::<Result<Vec<_>, _>>()?;
    plane
        .configure(v.clusters.clone(), profiles)
        .map_err(|e| e.to_string())?;
    plane
        .set_delay_micros(v.lag_micros)
        .map_err(|e| e.to_string())?;
    let mut tokens = std::collections::BTreeMap::new();
    let mut marks = std::collections::BTreeMap::new();
    for (i, step) in v.steps.iter().enumerate() {
        let outcome: sparsetable::Result<Option<String>> = (|| {
            let row = step.row.as_bytes();
            match step.op.as_str() {
                "write" | "delete_row" => {
                    let routed =
                        plane.route(&step.profile, "MutateRow", RequestKind::Write, row)?;
                    let m = match &step.value {
                        Some(value) if step.op == "write" => {
                            Mutation::set_cell("cf", b"q", step.timestamp, value.as_bytes())
                        }
                        _ => Mutation::DeleteFromRow,
                    };
                    routed.db.mutate_row(TABLE, row, &[m])?;
                    routed.after_write()?;
                    Ok(None)
                }
                "increment" => {
                    let routed = plane.route(
                        &step.profile,
                        "ReadModifyWriteRow",
                        RequestKind::Transaction,
                        row,
                    )?;
                    routed.db.write(|d| {
                        d.read_modify_write_row(
                            TABLE,
                            row,
                            &[ReadModifyWriteRule::increment("cf", b"n".to_vec(), 1)],
                        )
                    })?;
                    routed.after_write()?;
                    Ok(None)
                }
                "read" => {
                    let routed = plane.route(&step.profile, "ReadRows", RequestKind::Read, row)?;
                    Ok(routed.db.read_row(TABLE, row)?.and_then(|r| {
                        r.cells
                            .iter()
                            .find(|c| c.family == "cf" && c.qualifier == b"q")
                            .map(|c| String::from_utf8_lossy(&c.value).into_owned())
                    }))
                }
                "advance" => {
                    clock.advance_micros(step.micros);
                    Ok(None)
                }
                "token" => {
                    tokens.insert(step.token.clone(), plane.consistency_token(TABLE)?);
                    Ok(None)
                }
                "check" => {
                    let token = tokens.get(&step.token).unwrap_or(&step.token);
                    let consistent = plane.check_consistency(TABLE, token, false)?;
                    Ok(Some(consistent.to_string()))
                }
                "set_available" => {
                    plane.set_available(&step.cluster, step.up)?;
                    Ok(None)
                }
                "set_lag" => {
                    plane.set_delay_micros(step.micros)?;
                    Ok(None)
                }
                "enable_changes" => {
                    plane.set_change_stream(TABLE, Some(step.micros))?;
                    Ok(None)
                }
                "mark" => {
                    marks.insert(step.token.clone(), clock.now_micros());
                    Ok(None)
                }
                "changes" => {
                    use sparsetable::api::change_stream_reader::{
                        partitions, ChangeStreamReader, StreamEvent, StreamStart,
                    };
                    let routed =
                        plane.route(&step.profile, "ReadChangeStream", RequestKind::Read, b"")?;
                    let start = *marks.get(&step.token).ok_or_else(|| {
                        sparsetable::Error::invalid_argument(format!("no mark {}", step.token))
                    })?;
                    let now = clock.now_micros();
                    let mut lines = Vec::new();
                    for partition in partitions(&routed.db, TABLE)? {
                        let mut reader = ChangeStreamReader::open(
                            plane.clusters()?,
                            routed.cluster,
                            TABLE,
                            partition,
                            StreamStart::Time(start),
                            Some(now),
                        )?;
                        // The end time is now, so the first poll returns everything and closes.
                        for event in reader.poll()? {
                            if let StreamEvent::Change {
                                record,
                                source_cluster_id,
                                tiebreaker,
                                ..
                            } = event
                            {
                                let kind = match record.kind {
                                    sparsetable::ChangeKind::User => "USER",
                                    sparsetable::ChangeKind::GarbageCollection => {
                                        "GARBAGE_COLLECTION"
                                    }
                                };
                                lines.push((
                                    record.commit_micros,
                                    tiebreaker,
                                    change_line(
                                        kind,
                                        &source_cluster_id,
                                        &record.row_key,
                                        &record.mutations,
                                    ),
                                ));
                            }
                        }
                    }
                    lines.sort();
                    let lines: Vec<String> = lines.into_iter().map(|l| l.2).collect();
                    Ok(Some(serde_json::to_string(&lines).unwrap_or_default()))
                }
                other => Err(sparsetable::Error::invalid_argument(format!(
                    "unknown step op {other}"
                ))),
            }
        })();
        let at = format!("step {i} ({})", step.op);
        match (outcome, &step.expect_error) {
            (Err(e), Some(code)) if e.code().as_str() == code => {}
            (Err(e), _) => {
                return Err(format!(
                    "{at}: failed with {e}, expected {:?}",
                    step.expect_error
                ))
            }
            (Ok(_), Some(code)) => return Err(format!("{at}: succeeded, expected {code}")),
            (Ok(got), None) => match step.op.as_str() {
                "read" if got != step.expect_value => {
                    return Err(format!(
                        "{at}: read {got:?}, expected {:?}",
                        step.expect_value
                    ))
                }
                "changes"
                    if got
                        != step
                            .expect_changes
                            .as_ref()
                            .map(|c| serde_json::to_string(c).unwrap_or_default()) =>
                {
                    return Err(format!(
                        "{at}: changes {}, expected {:?}",
                        got.unwrap_or_default(),
                        step.expect_changes
                    ))
                }
                "check"
                    if got.as_deref()
                        != step.expect_consistent.map(|b| b.to_string()).as_deref() =>
                {
                    return Err(format!(
                        "{at}: consistent {got:?}, expected {:?}",
                        step.expect_consistent
                    ))
                }
                _ => {}
            },
        }
    }
    Ok(())
}
