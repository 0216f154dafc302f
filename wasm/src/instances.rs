//! `InstanceModel`: the core's instance model ([`sparsetable::InstanceRecord`]) for
//! JavaScript. The npm package keeps each instance's metadata in one of these and stores its
//! bytes (`encode`, `InstanceModel.decode`: the core's `INSTANCE` file, versions 2 to 4,
//! docs/format/instance.md) beside the instance's data, so the rules and the file format
//! are the core's alone.
//!
//! The binding converts and nothing else: arguments arrive as the npm package's shapes
//! (`{id, location, nodes, storage}` clusters; app profiles in the Instance Admin's proto3
//! JSON routing shape), every rule is applied by the core, and errors are the core's
//! ([`to_js_error`]). Mutating methods change the model only when they succeed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sparsetable::api::instances::{decode_file, encode_file};
use sparsetable::{
    AppProfileRecord, Autoscaling, ClusterRecord, Error, InstanceRecord, InstanceType, Isolation,
    Routing, StorageType,
};
use wasm_bindgen::prelude::*;

use crate::error::{conversion_error, to_js_error};
use crate::proto::parse_text;

type JsResult<T> = Result<T, JsValue>;

fn err(e: Error) -> JsValue {
    to_js_error(e)
}

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** A cluster as the instance model takes and gives it: `location` is a zone. */
export interface ClusterJson {
  id: string; location?: string; nodes?: number; storage?: "ssd" | "hdd";
  autoscaling?: { minNodes: number; maxNodes: number; cpuPercent?: number; storageGibPerNode?: number };
}
/** An app profile as the instance model takes and gives it (exactly one routing). */
export interface AppProfileModelJson {
  id: string; description?: string; etag?: string;
  singleClusterRouting?: { clusterId: string; allowTransactionalWrites?: boolean };
  multiClusterRoutingUseAny?: { clusterIds?: string[]; rowAffinity?: Record<string, never> };
  dataBoostIsolationReadOnly?: Record<string, unknown>;
}
/** The whole instance, as `InstanceModel.toJson` gives it (app profiles as listed: the
 * stored ones and the implied `default`). */
export interface InstanceModelJson {
  project: string; id: string; name: string; displayName: string; labels: Record<string, string>;
  type: "PRODUCTION" | "DEVELOPMENT"; createTimeMicros: number;
  clusters: Required<Pick<ClusterJson, "id" | "location" | "nodes" | "storage">>[] & ClusterJson[];
  appProfiles: AppProfileModelJson[];
}
"#;

#[derive(Serialize, Deserialize, Clone, Copy)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AutoscalingJs {
    min_nodes: i32,
    max_nodes: i32,
    #[serde(default)]
    cpu_percent: i32,
    #[serde(default)]
    storage_gib_per_node: i32,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClusterJs {
    id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    location: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    nodes: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    storage: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    autoscaling: Option<AutoscalingJs>,
}

#[derive(Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct SingleJs {
    cluster_id: String,
    #[serde(default)]
    allow_transactional_writes: bool,
}

#[derive(Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct MultiJs {
    #[serde(default)]
    cluster_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    row_affinity: Option<serde_json::Value>,
}

/// An app profile in the Instance Admin's proto3 JSON: what `InstanceModel` and
/// `InstancePlane` (`replication.rs`) both take.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ProfileJs {
    id: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    etag: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    single_cluster_routing: Option<SingleJs>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    multi_cluster_routing_use_any: Option<MultiJs>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    data_boost_isolation_read_only: Option<serde_json::Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InstanceJs {
    project: String,
    id: String,
    name: String,
    display_name: String,
    labels: BTreeMap<String, String>,
    r#type: &'static str,
    create_time_micros: i64,
    clusters: Vec<ClusterJs>,
    app_profiles: Vec<ProfileJs>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CreateJs {
    #[serde(default)]
    display_name: Option<String>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    r#type: Option<String>,
    #[serde(default)]
    clusters: Vec<ClusterJs>,
}

fn from_js<T: for<'de> Deserialize<'de>>(argument: &str, value: JsValue) -> Result<T, Error> {
    serde_wasm_bindgen::from_value(value).map_err(|e| conversion_error(argument, e))
}

fn kind(text: Option<&str>) -> Result<InstanceType, Error> {
    match text.map(str::to_ascii_uppercase).as_deref() {
        None | Some("PRODUCTION") => Ok(InstanceType::Production),
        Some("DEVELOPMENT") => Ok(InstanceType::Development),
        Some(other) => Err(conversion_error(
            "type",
            format_args!("{other:?} is PRODUCTION or DEVELOPMENT"),
        )),
    }
}

fn cluster(c: ClusterJs) -> Result<ClusterRecord, Error> {
    let mut out = ClusterRecord::new(&c.id, c.location.as_deref().unwrap_or("local"));
    if let Some(n) = c.nodes {
        out.serve_nodes = i32::try_from(n)
            .map_err(|_| conversion_error("nodes", format_args!("{n} is out of range")))?;
    }
    out.storage = match c.storage.as_deref() {
        None | Some("ssd") => StorageType::Ssd,
        Some("hdd") => StorageType::Hdd,
        Some(other) => {
            return Err(conversion_error(
                "storage",
                format_args!("{other:?} is \"ssd\" or \"hdd\""),
            ))
        }
    };
    out.autoscaling = c.autoscaling.map(|a| Autoscaling {
        min_nodes: a.min_nodes,
        max_nodes: a.max_nodes,
        cpu_percent: a.cpu_percent,
        storage_gib_per_node: a.storage_gib_per_node,
    });
    Ok(out)
}

fn cluster_js(c: &ClusterRecord) -> ClusterJs {
    ClusterJs {
        id: c.id.clone(),
        location: Some(c.zone.clone()),
        nodes: Some(i64::from(c.serve_nodes)),
        storage: Some(
            match c.storage {
                StorageType::Ssd => "ssd",
                StorageType::Hdd => "hdd",
            }
            .into(),
        ),
        autoscaling: c.autoscaling.map(|a| AutoscalingJs {
            min_nodes: a.min_nodes,
            max_nodes: a.max_nodes,
            cpu_percent: a.cpu_percent,
            storage_gib_per_node: a.storage_gib_per_node,
        }),
    }
}

/// The core's record of an app profile given in proto3 JSON; `argument` names it in errors.
///
/// # Errors
/// `INVALID_ARGUMENT` unless exactly one routing policy is given.
pub(crate) fn profile(argument: &str, p: ProfileJs) -> Result<AppProfileRecord, Error> {
    let routing = match (p.single_cluster_routing, p.multi_cluster_routing_use_any) {
        (Some(s), None) => Routing::SingleCluster {
            cluster_id: s.cluster_id,
            allow_transactional_writes: s.allow_transactional_writes,
        },
        (None, Some(m)) => Routing::MultiCluster {
            cluster_ids: m.cluster_ids,
            row_affinity: m.row_affinity.is_some(),
        },
        _ => {
            return Err(conversion_error(
                argument,
                format_args!(
                    "app profile {:?} needs exactly one of singleClusterRouting and multiClusterRoutingUseAny",
                    p.id
                ),
            ))
        }
    };
    Ok(AppProfileRecord {
        id: p.id,
        description: p.description,
        etag: p.etag,
        routing,
        isolation: if p.data_boost_isolation_read_only.is_some() {
            Isolation::DataBoostReadOnly
        } else {
            Isolation::Standard
        },
    })
}

fn profile_js(p: &AppProfileRecord) -> ProfileJs {
    let (single, multi) = match &p.routing {
        Routing::SingleCluster {
            cluster_id,
            allow_transactional_writes,
        } => (
            Some(SingleJs {
                cluster_id: cluster_id.clone(),
                allow_transactional_writes: *allow_transactional_writes,
            }),
            None,
        ),
        Routing::MultiCluster {
            cluster_ids,
            row_affinity,
        } => (
            None,
            Some(MultiJs {
                cluster_ids: cluster_ids.clone(),
                row_affinity: row_affinity.then(|| serde_json::json!({})),
            }),
        ),
    };
    ProfileJs {
        id: p.id.clone(),
        description: p.description.clone(),
        etag: p.etag.clone(),
        single_cluster_routing: single,
        multi_cluster_routing_use_any: multi,
        data_boost_isolation_read_only: (p.isolation == Isolation::DataBoostReadOnly)
            .then(|| serde_json::json!({})),
    }
}

fn plain<T: Serialize>(value: &T) -> JsResult<JsValue> {
    let text = serde_json::to_string(value)
        .map_err(|e| err(Error::new(sparsetable::Code::Internal, e.to_string())))?;
    parse_text(&text).map_err(err)
}

/// One instance's metadata under the core's rules (see the module docs).
#[wasm_bindgen]
pub struct InstanceModel {
    record: InstanceRecord,
    extension: Vec<u8>,
}

impl InstanceModel {
    /// The core's record (for the plane, which routes by its clusters and profiles).
    pub(crate) fn record(&self) -> &InstanceRecord {
        &self.record
    }

    /// The core's record, to change (the logical view operations, `logical_views.rs`).
    pub(crate) fn record_mut(&mut self) -> &mut InstanceRecord {
        &mut self.record
    }
}

#[wasm_bindgen]
impl InstanceModel {
    /// A new instance (CreateInstance): `{displayName?, labels?, type?, clusters}`.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for anything the core's rules refuse.
    pub fn create(
        project: &str,
        id: &str,
        #[wasm_bindgen(
            unchecked_param_type = "{ displayName?: string; labels?: Record<string, string>; type?: string; clusters: ClusterJson[] }"
        )]
        options: JsValue,
        #[wasm_bindgen(js_name = "createTimeMicros")] create_time_micros: f64,
    ) -> JsResult<InstanceModel> {
        crate::panic::install_hook();
        let o: CreateJs = from_js("options", options).map_err(err)?;
        let clusters = o
            .clusters
            .into_iter()
            .map(cluster)
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        let record = InstanceRecord::create(
            project,
            id,
            o.display_name.as_deref(),
            kind(o.r#type.as_deref()).map_err(err)?,
            o.labels,
            clusters,
            create_time_micros as i64,
        )
        .map_err(err)?;
        Ok(InstanceModel {
            record,
            extension: Vec::new(),
        })
    }

    /// What an instance requests use without creating it is (one cluster `{id}-c1`).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for ids requests may not name.
    pub fn implicit(project: &str, id: &str) -> JsResult<InstanceModel> {
        crate::panic::install_hook();
        Ok(InstanceModel {
            record: InstanceRecord::implicit(project, id).map_err(err)?,
            extension: Vec::new(),
        })
    }

    /// Reads the bytes of an `INSTANCE` file.
    ///
    /// # Errors
    /// `DATA_LOSS` for bytes that are not a version-2 instance file.
    pub fn decode(bytes: &[u8]) -> JsResult<InstanceModel> {
        crate::panic::install_hook();
        let stored = decode_file(bytes).map_err(err)?;
        Ok(InstanceModel {
            record: stored.record,
            extension: stored.extension,
        })
    }

    /// The bytes of the `INSTANCE` file (an extension another front-end wrote is kept).
    pub fn encode(&self) -> Vec<u8> {
        encode_file(&self.record, &self.extension)
    }

    /// An independent copy (for changes that must not show until stored).
    #[wasm_bindgen(js_name = clone)]
    pub fn copy(&self) -> InstanceModel {
        InstanceModel {
            record: self.record.clone(),
            extension: self.extension.clone(),
        }
    }

    /// The whole instance as plain JSON (`InstanceModelJson`).
    #[wasm_bindgen(js_name = toJson, unchecked_return_type = "InstanceModelJson")]
    pub fn to_json(&self) -> JsResult<JsValue> {
        let r = &self.record;
        plain(&InstanceJs {
            project: r.project.clone(),
            id: r.id.clone(),
            name: r.name(),
            display_name: r.display_name.clone(),
            labels: r.labels.clone(),
            r#type: match r.kind {
                InstanceType::Production => "PRODUCTION",
                InstanceType::Development => "DEVELOPMENT",
            },
            create_time_micros: r.create_time_micros,
            clusters: r.clusters().iter().map(cluster_js).collect(),
            app_profiles: r.listed_app_profiles().iter().map(profile_js).collect(),
        })
    }

    /// Sets the display name (4 to 30 characters).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` otherwise.
    #[wasm_bindgen(js_name = setDisplayName)]
    pub fn set_display_name(&mut self, name: &str) -> JsResult<()> {
        self.record.set_display_name(name).map_err(err)
    }

    /// Replaces the labels.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a label the rules refuse.
    #[wasm_bindgen(js_name = setLabels)]
    pub fn set_labels(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Record<string, string>")] labels: JsValue,
    ) -> JsResult<()> {
        let labels: BTreeMap<String, String> = from_js("labels", labels).map_err(err)?;
        self.record.set_labels(labels).map_err(err)
    }

    /// Changes the type (DEVELOPMENT may become PRODUCTION, not back).
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` for PRODUCTION to DEVELOPMENT; `INVALID_ARGUMENT` for an
    /// unknown type.
    #[wasm_bindgen(js_name = setType)]
    pub fn set_type(&mut self, kind_name: &str) -> JsResult<()> {
        let k = kind(Some(kind_name)).map_err(err)?;
        self.record.set_kind(k).map_err(err)
    }

    /// Adds a cluster.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT`, `ALREADY_EXISTS` (the core's rules).
    #[wasm_bindgen(js_name = addCluster)]
    pub fn add_cluster(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "ClusterJson")] spec: JsValue,
    ) -> JsResult<()> {
        let c = cluster(from_js("cluster", spec).map_err(err)?).map_err(err)?;
        self.record.add_cluster(c).map_err(err)
    }

    /// Changes a cluster's nodes and autoscaling (`nodes` left out keeps the count,
    /// `autoscaling` left out keeps it); a `location` or `storage` given must be the
    /// cluster's (they are fixed at creation).
    ///
    /// # Errors
    /// `NOT_FOUND`, `INVALID_ARGUMENT` (the core's rules).
    #[wasm_bindgen(js_name = updateCluster)]
    pub fn update_cluster(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "ClusterJson")] spec: JsValue,
    ) -> JsResult<()> {
        let js: ClusterJs = from_js("cluster", spec).map_err(err)?;
        let Some(current) = self.record.cluster(&js.id).cloned() else {
            // The core's NOT_FOUND, with its message.
            return self.record.update_cluster(&js.id, 0, None).map_err(err);
        };
        let (location, storage, nodes, auto) = (
            js.location.clone(),
            js.storage.clone(),
            js.nodes,
            js.autoscaling,
        );
        let wanted = cluster(ClusterJs {
            location: location.clone().or(Some(current.zone.clone())),
            ..js
        })
        .map_err(err)?;
        if (location.is_some() && wanted.zone != current.zone)
            || (storage.is_some() && wanted.storage != current.storage)
        {
            return Err(err(Error::invalid_argument(format!(
                "cluster {}: a cluster's location and storage type cannot change",
                current.id
            ))));
        }
        let nodes = if nodes.is_some() {
            wanted.serve_nodes
        } else {
            current.serve_nodes
        };
        let auto = if auto.is_some() {
            wanted.autoscaling
        } else {
            current.autoscaling
        };
        self.record
            .update_cluster(&current.id, nodes, auto)
            .map_err(err)
    }

    /// Removes a cluster.
    ///
    /// # Errors
    /// `NOT_FOUND`, `FAILED_PRECONDITION` (the core's rules).
    #[wasm_bindgen(js_name = removeCluster)]
    pub fn remove_cluster(&mut self, id: &str) -> JsResult<()> {
        self.record.remove_cluster(id).map_err(err)
    }

    /// Stores a new app profile; answers it with its etag.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT`, `ALREADY_EXISTS` (the core's rules).
    #[wasm_bindgen(js_name = createAppProfile, unchecked_return_type = "AppProfileModelJson")]
    pub fn create_app_profile(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "AppProfileModelJson")] spec: JsValue,
    ) -> JsResult<JsValue> {
        let p = profile("appProfile", from_js("appProfile", spec).map_err(err)?).map_err(err)?;
        let stored = self.record.create_app_profile(p).map_err(err)?;
        plain(&profile_js(stored))
    }

    /// Replaces a stored app profile (a non-empty etag must be the stored one). The implied
    /// `default` profile is stored by its first update.
    ///
    /// # Errors
    /// `NOT_FOUND`, `ABORTED`, `INVALID_ARGUMENT` (the core's rules).
    #[wasm_bindgen(js_name = updateAppProfile, unchecked_return_type = "AppProfileModelJson")]
    pub fn update_app_profile(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "AppProfileModelJson")] spec: JsValue,
    ) -> JsResult<JsValue> {
        let p = profile("appProfile", from_js("appProfile", spec).map_err(err)?).map_err(err)?;
        let stored = self.record.update_app_profile(p).map_err(err)?;
        plain(&profile_js(stored))
    }

    /// Removes a stored app profile.
    ///
    /// # Errors
    /// `NOT_FOUND` for an id not stored.
    #[wasm_bindgen(js_name = deleteAppProfile)]
    pub fn delete_app_profile(&mut self, id: &str) -> JsResult<()> {
        self.record.delete_app_profile(id).map_err(err)
    }
}
