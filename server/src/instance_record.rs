//! The server's instance metadata ([`InstanceMeta`], the admin protos) and the core's
//! instance model ([`InstanceRecord`]) converted both ways, so that the `INSTANCE` file is the
//! core's (docs/format/instance.md, versions 2 to 4): the record first, then the server's own
//! protobuf [`InstanceMeta`] as the file's extension, which carries what only the server
//! keeps (IAM policies, backup records, authorized views, change stream settings, and admin
//! fields the model lacks, such as a profile's priority). Logical views and the definitions
//! of continuous materialized views are the record's (the core's file stores them, versions 3
//! and 4); the extension's copies are rewritten from the record. Servers before version 4
//! kept materialized views in the extension alone: [`decode_meta`] moves them into the
//! record when it reads such a file, and the next admin change writes them as version 4.
//!
//! Invariant: the record is authoritative for what it models. A file another front-end
//! rewrote (the npm package keeps the extension as it found it) may hold a record newer than
//! its extension; [`apply_record`] makes the extension's instance, clusters and app profiles
//! agree with the record, keeping the extension's other fields.

use std::collections::BTreeMap;

use sparsetable::{
    AppProfileRecord, Autoscaling, ClusterRecord, Error, InstanceRecord, InstanceType, Isolation,
    LogicalViewRecord, MaterializedViewRecord, Result, Routing, StorageType,
};

use prost::Message;

use crate::instance_meta::{last_id, InstanceMeta, INSTANCE_FILE, MAGIC};
use crate::names::InstanceName;
use crate::stubs::admin_v2;

fn micros_of(t: Option<&prost_types::Timestamp>) -> i64 {
    t.map_or(0, |t| {
        t.seconds
            .saturating_mul(1_000_000)
            .saturating_add(i64::from(t.nanos / 1000))
    })
}

fn timestamp_of(micros: i64) -> Option<prost_types::Timestamp> {
    (micros != 0).then(|| prost_types::Timestamp {
        seconds: micros.div_euclid(1_000_000),
        nanos: (micros.rem_euclid(1_000_000) * 1000) as i32,
    })
}

fn autoscaling_of(c: &admin_v2::Cluster) -> Option<Autoscaling> {
    use admin_v2::cluster::Config;
    let Some(Config::ClusterConfig(cc)) = &c.config else {
        return None;
    };
    let auto = cc.cluster_autoscaling_config?;
    let limits = auto.autoscaling_limits.unwrap_or_default();
    let targets = auto.autoscaling_targets.unwrap_or_default();
    Some(Autoscaling {
        min_nodes: limits.min_serve_nodes,
        max_nodes: limits.max_serve_nodes,
        cpu_percent: targets.cpu_utilization_percent,
        storage_gib_per_node: targets.storage_utilization_gib_per_node,
    })
}

/// The core's record of `meta`.
///
/// # Errors
/// `InvalidArgument` when `meta` breaks the model's invariants (it cannot, once built by the
/// Instance Admin service, which keeps them).
pub fn to_record(meta: &InstanceMeta) -> Result<InstanceRecord> {
    let instance = meta.instance();
    let name = InstanceName::parse("instance.name", &instance.name)?;
    let kind = if instance.r#type == admin_v2::instance::Type::Development as i32 {
        InstanceType::Development
    } else {
        InstanceType::Production
    };
    let labels: BTreeMap<String, String> = instance.labels.clone().into_iter().collect();
    let clusters = meta
        .clusters
        .iter()
        .map(|c| cluster_record(last_id(&c.name), c))
        .collect();
    let profiles = meta
        .app_profiles
        .iter()
        .map(|p| profile_record(last_id(&p.name), p))
        .collect();
    let mut record = InstanceRecord::assemble(
        &name.project,
        &name.instance,
        &instance.display_name,
        kind,
        labels,
        micros_of(instance.create_time.as_ref()),
        clusters,
        profiles,
    )?;
    record.set_logical_views(meta.logical_views.iter().map(view_record).collect())?;
    record.set_materialized_views(
        meta.materialized_views
            .iter()
            .map(materialized_view_record)
            .collect(),
    )?;
    Ok(record)
}

/// The core's form of a materialized view proto (its id from its name).
pub fn materialized_view_record(v: &admin_v2::MaterializedView) -> MaterializedViewRecord {
    MaterializedViewRecord {
        id: last_id(&v.name).to_string(),
        query: v.query.clone(),
        deletion_protection: v.deletion_protection,
        etag: v.etag.clone(),
    }
}

/// The proto of a materialized view of `instance`, as GetMaterializedView returns it.
pub fn materialized_view_proto(
    instance: &InstanceName,
    v: &MaterializedViewRecord,
) -> admin_v2::MaterializedView {
    admin_v2::MaterializedView {
        name: format!("{instance}/materializedViews/{}", v.id),
        query: v.query.clone(),
        etag: v.etag.clone(),
        deletion_protection: v.deletion_protection,
    }
}

/// The core's form of a logical view proto (its id from its name).
pub fn view_record(v: &admin_v2::LogicalView) -> LogicalViewRecord {
    LogicalViewRecord {
        id: last_id(&v.name).to_string(),
        query: v.query.clone(),
        deletion_protection: v.deletion_protection,
        etag: v.etag.clone(),
    }
}

/// The proto of a logical view of `instance`.
pub fn view_proto(instance: &InstanceName, v: &LogicalViewRecord) -> admin_v2::LogicalView {
    admin_v2::LogicalView {
        name: format!("{instance}/logicalViews/{}", v.id),
        query: v.query.clone(),
        etag: v.etag.clone(),
        deletion_protection: v.deletion_protection,
    }
}

/// Makes `meta`'s instance, clusters and app profiles say what `record` says (see the
/// module docs), keeping the admin fields the record does not model.
pub fn apply_record(meta: &mut InstanceMeta, record: &InstanceRecord) {
    let name = InstanceName {
        project: record.project.clone(),
        instance: record.id.clone(),
    };
    let mut instance = meta.instance();
    instance.name = name.to_string();
    instance.display_name = record.display_name.clone();
    instance.r#type = match record.kind {
        InstanceType::Production => admin_v2::instance::Type::Production as i32,
        InstanceType::Development => admin_v2::instance::Type::Development as i32,
    };
    instance.state = admin_v2::instance::State::Ready as i32;
    instance.labels = record.labels.clone().into_iter().collect();
    if record.create_time_micros != 0 {
        instance.create_time = timestamp_of(record.create_time_micros);
    }
    meta.instance = Some(instance);

    let old_clusters = std::mem::take(&mut meta.clusters);
    meta.clusters = record
        .clusters()
        .iter()
        .map(|c| {
            let full = format!("{name}/clusters/{}", c.id);
            let mut out = old_clusters
                .iter()
                .find(|o| o.name == full)
                .cloned()
                .unwrap_or_default();
            out.name = full;
            out.location = format!("projects/{}/locations/{}", record.project, c.zone);
            out.state = admin_v2::cluster::State::Ready as i32;
            out.serve_nodes = c.serve_nodes;
            out.default_storage_type = match c.storage {
                StorageType::Ssd => admin_v2::StorageType::Ssd as i32,
                StorageType::Hdd => admin_v2::StorageType::Hdd as i32,
            };
            if autoscaling_of(&out) != c.autoscaling {
                use admin_v2::cluster::{ClusterAutoscalingConfig, ClusterConfig, Config};
                out.config = c.autoscaling.map(|a| {
                    Config::ClusterConfig(ClusterConfig {
                        cluster_autoscaling_config: Some(ClusterAutoscalingConfig {
                            autoscaling_limits: Some(admin_v2::AutoscalingLimits {
                                min_serve_nodes: a.min_nodes,
                                max_serve_nodes: a.max_nodes,
                            }),
                            autoscaling_targets: Some(admin_v2::AutoscalingTargets {
                                cpu_utilization_percent: a.cpu_percent,
                                storage_utilization_gib_per_node: a.storage_gib_per_node,
                            }),
                        }),
                    })
                });
            }
            out
        })
        .collect();

    meta.logical_views = record
        .logical_views()
        .iter()
        .map(|v| view_proto(&name, v))
        .collect();
    meta.materialized_views = record
        .materialized_views()
        .iter()
        .map(|v| materialized_view_proto(&name, v))
        .collect();

    let old_profiles = std::mem::take(&mut meta.app_profiles);
    meta.app_profiles = record
        .app_profiles()
        .iter()
        .map(|p| {
            use admin_v2::app_profile::{Isolation as Iso, RoutingPolicy, StandardIsolation};
            let mut out = profile_proto(&name, p);
            let old = old_profiles.iter().find(|o| o.name == out.name);
            // The record holds what routing needs; the stored proto may say more (the
            // affinity's own message, the isolation's fields, an explicit standard
            // isolation), and that is kept while the record agrees with it.
            if let (
                Some(RoutingPolicy::MultiClusterRoutingUseAny(m)),
                Some(RoutingPolicy::MultiClusterRoutingUseAny(kept)),
            ) = (
                &mut out.routing_policy,
                old.and_then(|o| o.routing_policy.as_ref()),
            ) {
                if m.affinity.is_some() && kept.affinity.is_some() {
                    m.affinity.clone_from(&kept.affinity);
                }
            }
            out.isolation = match (p.isolation, old.and_then(|o| o.isolation)) {
                (Isolation::DataBoostReadOnly, Some(keep @ Iso::DataBoostIsolationReadOnly(_))) => {
                    Some(keep)
                }
                (Isolation::DataBoostReadOnly, _) => out.isolation,
                (Isolation::Standard, Some(Iso::DataBoostIsolationReadOnly(_))) => {
                    Some(Iso::StandardIsolation(StandardIsolation::default()))
                }
                (Isolation::Standard, keep) => keep,
            };
            out
        })
        .collect();
}

/// Applies an Instance Admin operation the core's way: `meta` as the core's record, `op`
/// on it (the core's rules and errors), and the result back into `meta`. Nothing changes
/// when `op` fails.
///
/// # Errors
/// Whatever `op` returns; `InvalidArgument` if `meta` breaks the model's invariants.
pub fn with_record<T>(
    meta: &mut InstanceMeta,
    op: impl FnOnce(&mut InstanceRecord) -> Result<T>,
) -> Result<T> {
    let mut record = to_record(meta)?;
    let out = op(&mut record)?;
    apply_record(meta, &record);
    Ok(out)
}

/// The core's form of an app profile proto (its id from `id`).
pub fn profile_record(id: &str, p: &admin_v2::AppProfile) -> AppProfileRecord {
    use admin_v2::app_profile::{Isolation as Iso, RoutingPolicy};
    let routing = match &p.routing_policy {
        Some(RoutingPolicy::SingleClusterRouting(s)) => Routing::SingleCluster {
            cluster_id: s.cluster_id.clone(),
            allow_transactional_writes: s.allow_transactional_writes,
        },
        Some(RoutingPolicy::MultiClusterRoutingUseAny(m)) => Routing::MultiCluster {
            cluster_ids: m.cluster_ids.clone(),
            row_affinity: m.affinity.is_some(),
        },
        None => Routing::MultiCluster {
            cluster_ids: Vec::new(),
            row_affinity: false,
        },
    };
    AppProfileRecord {
        id: id.to_string(),
        description: p.description.clone(),
        etag: p.etag.clone(),
        routing,
        isolation: match p.isolation {
            Some(Iso::DataBoostIsolationReadOnly(_)) => Isolation::DataBoostReadOnly,
            _ => Isolation::Standard,
        },
    }
}

/// The core's form of a cluster proto (already checked by the service).
pub fn cluster_record(id: &str, c: &admin_v2::Cluster) -> ClusterRecord {
    ClusterRecord {
        id: id.to_string(),
        zone: last_id(&c.location).to_string(),
        serve_nodes: c.serve_nodes,
        storage: if c.default_storage_type == admin_v2::StorageType::Hdd as i32 {
            StorageType::Hdd
        } else {
            StorageType::Ssd
        },
        autoscaling: autoscaling_of(c),
    }
}

/// The app profile proto of a core record's profile that the server has not stored (the
/// implied `default`): its name, description, etag, routing and isolation.
pub fn profile_proto(instance: &InstanceName, p: &AppProfileRecord) -> admin_v2::AppProfile {
    use admin_v2::app_profile::{
        DataBoostIsolationReadOnly, Isolation as Iso, MultiClusterRoutingUseAny, RoutingPolicy,
        SingleClusterRouting,
    };
    admin_v2::AppProfile {
        name: format!("{instance}/appProfiles/{}", p.id),
        description: p.description.clone(),
        etag: p.etag.clone(),
        routing_policy: Some(match &p.routing {
            Routing::SingleCluster {
                cluster_id,
                allow_transactional_writes,
            } => RoutingPolicy::SingleClusterRouting(SingleClusterRouting {
                cluster_id: cluster_id.clone(),
                allow_transactional_writes: *allow_transactional_writes,
            }),
            Routing::MultiCluster {
                cluster_ids,
                row_affinity,
            } => RoutingPolicy::MultiClusterRoutingUseAny(MultiClusterRoutingUseAny {
                cluster_ids: cluster_ids.clone(),
                affinity: row_affinity.then(|| {
                    admin_v2::app_profile::multi_cluster_routing_use_any::Affinity::RowAffinity(
                        Default::default(),
                    )
                }),
            }),
        }),
        isolation: (p.isolation == Isolation::DataBoostReadOnly)
            .then(|| Iso::DataBoostIsolationReadOnly(DataBoostIsolationReadOnly::default())),
    }
}

/// The app profiles ListAppProfiles shows for `meta`: the stored ones and, unless one is
/// stored under that id, the implied `default` (the core's `listed_app_profiles`), by id.
///
/// # Errors
/// As [`to_record`].
pub fn listed_profiles(meta: &InstanceMeta) -> Result<Vec<admin_v2::AppProfile>> {
    let record = to_record(meta)?;
    let name = InstanceName {
        project: record.project.clone(),
        instance: record.id.clone(),
    };
    Ok(record
        .listed_app_profiles()
        .iter()
        .map(|p| {
            meta.app_profiles
                .iter()
                .find(|s| last_id(&s.name) == p.id)
                .cloned()
                .unwrap_or_else(|| profile_proto(&name, p))
        })
        .collect())
}

/// The bytes of the `INSTANCE` file for `meta`: the core's file (version 2 to 4), the record first
/// and `meta`'s protobuf encoding as its extension.
///
/// # Errors
/// `InvalidArgument` if the metadata breaks the core model's invariants (the service never
/// stores such metadata).
pub fn encode_meta(meta: &InstanceMeta) -> Result<Vec<u8>> {
    let record = to_record(meta)?;
    Ok(sparsetable::api::instances::encode_file(
        &record,
        &meta.encode_to_vec(),
    ))
}

/// Reads an `INSTANCE` file: versions 2 to 4 (the core's; [`encode_meta`]) or version 1
/// (written by earlier servers, [`InstanceMeta::decode_version_1`]; rewritten by the next
/// admin change).
///
/// # Errors
/// `DataLoss` for a file that is not one of these, is damaged, or breaks an invariant.
pub fn decode_meta(bytes: &[u8]) -> Result<InstanceMeta> {
    if bytes.starts_with(MAGIC) {
        return InstanceMeta::decode_version_1(bytes);
    }
    let stored = sparsetable::api::instances::decode_file(bytes)?;
    let mut meta = if stored.extension.is_empty() {
        InstanceMeta::default_for(&InstanceName {
            project: stored.record.project.clone(),
            instance: stored.record.id.clone(),
        })
    } else {
        InstanceMeta::decode(stored.extension.as_slice()).map_err(|e| {
            Error::new(
                sparsetable::Code::DataLoss,
                format!("the {INSTANCE_FILE} file's server extension is damaged: {e}"),
            )
        })?
    };
    let mut record = stored.record;
    let before_v4 = sparsetable::api::instances::file::version_of(bytes).is_some_and(|v| v < 4);
    if before_v4 && !meta.materialized_views.is_empty() {
        // An older server kept the definitions in its extension alone: they move into the
        // record (and the next admin change writes them as version 4).
        let views = meta
            .materialized_views
            .iter()
            .map(materialized_view_record)
            .collect();
        record.set_materialized_views(views).map_err(|e| {
            Error::new(
                sparsetable::Code::DataLoss,
                format!(
                    "the {INSTANCE_FILE} file's materialized views are damaged: {}",
                    e.message()
                ),
            )
        })?;
    }
    apply_record(&mut meta, &record);
    InstanceMeta::check_decoded(meta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use googleapis_tonic_google_bigtable_admin_v2::google::iam::v1 as iam;
    use sparsetable::Code;

    fn instance() -> InstanceName {
        InstanceName {
            project: "p".into(),
            instance: "inst".into(),
        }
    }

    #[test]
    fn the_instance_file_reads_back_what_was_written() {
        let mut meta = InstanceMeta::default_for(&instance());
        meta.app_profiles.push(admin_v2::AppProfile {
            name: "projects/p/instances/inst/appProfiles/a".into(),
            description: "d".into(),
            etag: "e1".into(),
            routing_policy: Some(admin_v2::app_profile::RoutingPolicy::SingleClusterRouting(
                admin_v2::app_profile::SingleClusterRouting {
                    cluster_id: "inst-c1".into(),
                    allow_transactional_writes: true,
                },
            )),
            isolation: Some(admin_v2::app_profile::Isolation::StandardIsolation(
                admin_v2::app_profile::StandardIsolation { priority: 3 },
            )),
        });
        meta.set_policy(
            "projects/p/instances/inst/tables/t",
            iam::Policy {
                version: 1,
                etag: vec![1, 2],
                ..Default::default()
            },
        );
        let bytes = encode_meta(&meta).unwrap();
        assert!(bytes.starts_with(sparsetable::api::instances::INSTANCE_FILE_MAGIC));
        let back = decode_meta(&bytes).unwrap();
        assert_eq!(back, meta);
        // A version-1 file (earlier servers) still reads.
        let mut v1 = MAGIC.to_vec();
        v1.extend(meta.encode_to_vec());
        assert_eq!(decode_meta(&v1).unwrap(), meta);
    }

    #[test]
    fn the_record_is_authoritative_when_another_front_end_rewrote_it() {
        use sparsetable::api::instances::{decode_file, encode_file};
        let mut meta = InstanceMeta::default_for(&instance());
        meta.set_policy(
            "projects/p/instances/inst/tables/t",
            iam::Policy {
                version: 1,
                ..Default::default()
            },
        );
        // What the npm package does: decode, change through the core, encode with the
        // extension as it found it.
        let mut stored = decode_file(&encode_meta(&meta).unwrap()).unwrap();
        stored.record.set_display_name("Renamed by npm").unwrap();
        stored
            .record
            .add_cluster(sparsetable::ClusterRecord::new("inst-c2", "us-east1-b"))
            .unwrap();
        stored
            .record
            .create_app_profile(sparsetable::AppProfileRecord::any_cluster("web"))
            .unwrap();
        let back = decode_meta(&encode_file(&stored.record, &stored.extension)).unwrap();
        assert_eq!(back.instance().display_name, "Renamed by npm");
        let ids: Vec<&str> = back.clusters.iter().map(|c| last_id(&c.name)).collect();
        assert_eq!(ids, ["inst-c1", "inst-c2"]);
        assert_eq!(back.clusters[1].location, "projects/p/locations/us-east1-b");
        assert_eq!(back.app_profiles.len(), 1);
        assert_eq!(
            back.app_profiles[0].name,
            "projects/p/instances/inst/appProfiles/web"
        );
        assert!(
            back.policy("projects/p/instances/inst/tables/t").is_some(),
            "the server's own records are kept"
        );
        // A file with no extension (written by the npm package alone) reads too.
        let bare = decode_meta(&encode_file(&stored.record, &[])).unwrap();
        assert_eq!(bare.instance().display_name, "Renamed by npm");
        assert_eq!(bare.clusters.len(), 2);
    }

    #[test]
    fn a_profile_another_front_end_wrote_keeps_its_row_affinity_and_isolation() {
        use admin_v2::app_profile::{Isolation as Iso, RoutingPolicy};
        use sparsetable::api::instances::{decode_file, encode_file};
        let meta = InstanceMeta::default_for(&instance());
        let mut stored = decode_file(&encode_meta(&meta).unwrap()).unwrap();
        let mut sticky = sparsetable::AppProfileRecord::any_cluster("sticky");
        sticky.routing = Routing::MultiCluster {
            cluster_ids: Vec::new(),
            row_affinity: true,
        };
        sticky.isolation = Isolation::DataBoostReadOnly;
        stored.record.create_app_profile(sticky).unwrap();
        let back = decode_meta(&encode_file(&stored.record, &[])).unwrap();
        let p = &back.app_profiles[0];
        match &p.routing_policy {
            Some(RoutingPolicy::MultiClusterRoutingUseAny(m)) => {
                assert!(m.affinity.is_some(), "row affinity was dropped")
            }
            other => panic!("routing {other:?}"),
        }
        assert!(matches!(
            p.isolation,
            Some(Iso::DataBoostIsolationReadOnly(_))
        ));
        // Listed and read back through the record again, nothing changes.
        assert_eq!(listed_profiles(&back).unwrap()[1], *p);
    }

    #[test]
    fn a_short_instance_ids_default_cluster_and_views_read_back() {
        // `i-c1` is shorter than a requested cluster id may be, but it is the server's own
        // default and must read back (it once made the file "damaged").
        let short = InstanceName {
            project: "p".into(),
            instance: "i".into(),
        };
        let mut meta = InstanceMeta::default_for(&short);
        meta.authorized_views.push(admin_v2::AuthorizedView {
            name: "projects/p/instances/i/tables/t/authorizedViews/v".into(),
            etag: "e".into(),
            ..Default::default()
        });
        let back = decode_meta(&encode_meta(&meta).unwrap()).unwrap();
        assert_eq!(back, meta);
    }

    #[test]
    fn materialized_views_live_in_the_record_and_an_older_servers_move_into_it() {
        use sparsetable::api::instances::{decode_file, encode_file, INSTANCE_FILE_MAGIC};
        let mut meta = InstanceMeta::default_for(&instance());
        meta.materialized_views.push(admin_v2::MaterializedView {
            name: "projects/p/instances/inst/materializedViews/mv".into(),
            query: "SELECT cf['g'] AS _key, COUNT(*) AS n FROM t GROUP BY _key".into(),
            etag: "5f3a9c".into(),
            deletion_protection: true,
        });
        // What a server before version 4 wrote: a record without the view, the view in the
        // extension alone.
        let mut bare = to_record(&meta).unwrap();
        bare.set_materialized_views(Vec::new()).unwrap();
        let old = encode_file(&bare, &meta.encode_to_vec());
        assert!(old.starts_with(INSTANCE_FILE_MAGIC), "version 2");
        let back = decode_meta(&old).unwrap();
        assert_eq!(back.materialized_views, meta.materialized_views);
        // Written again, the record holds it (version 4), with its etag and protection.
        let new = encode_meta(&back).unwrap();
        assert!(new.starts_with(b"sparsetable-instance 4\n"));
        let stored = decode_file(&new).unwrap();
        let views = stored.record.materialized_views();
        assert_eq!(views.len(), 1);
        assert_eq!(
            (views[0].id.as_str(), views[0].etag.as_str()),
            ("mv", "5f3a9c")
        );
        assert!(views[0].deletion_protection);
        assert_eq!(decode_meta(&new).unwrap(), back);
        // The core's rules apply through the record; deleting the last view leaves no copy
        // in the extension that a later read could take for an older server's.
        let mut gone = back.clone();
        let e = with_record(&mut gone, |r| r.delete_materialized_view("mv", "")).unwrap_err();
        assert_eq!(e.code(), Code::FailedPrecondition);
        with_record(&mut gone, |r| {
            r.update_materialized_view("mv", false, "5f3a9c")?;
            r.delete_materialized_view("mv", "")
        })
        .unwrap();
        let written = encode_meta(&gone).unwrap();
        assert!(
            written.starts_with(INSTANCE_FILE_MAGIC),
            "back to version 2"
        );
        assert!(decode_meta(&written).unwrap().materialized_views.is_empty());
        // An older server's views with an id the rules refuse make the file damaged.
        let mut bad = meta.clone();
        bad.materialized_views[0].name = "projects/p/instances/inst/materializedViews/-x".into();
        let e = decode_meta(&encode_file(&bare, &bad.encode_to_vec())).unwrap_err();
        assert_eq!(e.code(), Code::DataLoss, "{e}");
    }

    #[test]
    fn a_damaged_instance_file_is_data_loss_never_a_panic() {
        let good = encode_meta(&InstanceMeta::default_for(&instance())).unwrap();
        let v1 = |meta: &InstanceMeta| {
            let mut out = MAGIC.to_vec();
            out.extend(meta.encode_to_vec());
            out
        };
        let mut cases: Vec<Vec<u8>> = vec![
            Vec::new(),
            b"sparsetable-instance 2\n".to_vec(),
            MAGIC.to_vec(),
            good[..good.len() - 3].to_vec(),
        ];
        for i in 0..good.len() {
            let mut flipped = good.clone();
            flipped[i] ^= 0xff;
            cases.push(flipped);
        }
        let mut no_cluster = InstanceMeta::default_for(&instance());
        no_cluster.clusters.clear();
        assert!(encode_meta(&no_cluster).is_err(), "never written");
        cases.push(v1(&no_cluster));
        let mut twice = InstanceMeta::default_for(&instance());
        twice.clusters.push(twice.clusters[0].clone());
        assert!(encode_meta(&twice).is_err(), "never written");
        cases.push(v1(&twice));
        for bytes in &cases {
            // Version 2 is checksummed: every flipped byte is caught.
            let e = decode_meta(bytes).unwrap_err();
            assert_eq!(e.code(), Code::DataLoss, "{e}");
        }
    }
}
