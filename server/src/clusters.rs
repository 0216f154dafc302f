//! The clusters each instance reports: the ones CreateInstance asked for, or one default
//! cluster for an instance that exists implicitly.
//!
//! The engine keeps one copy of the data per instance, so clusters are names only: every
//! cluster is READY with the same data, and every table is READY in each of them (what
//! `Table.cluster_states` and the clients' replication calls read). Keeping the requested ids
//! matters because clients address clusters by the id they asked for (Node's
//! `instance.cluster(id).get()`, a backup's `clusters/{id}` parent, replication states keyed by
//! cluster id).
//!
//! Invariants: an instance has at least one cluster; ids are unique within an instance and
//! listed by id (the request's map has no order). The requested clusters live in memory: after a restart with a data directory, an
//! instance reports the default cluster again.

use std::collections::BTreeMap;
use std::sync::Mutex;

use sparsetable::{Code, Error, Result};

use crate::names::{check_new_id, InstanceName};

/// One cluster as the instance admin API describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterSpec {
    /// The cluster id (the last part of `projects/P/instances/I/clusters/ID`).
    pub id: String,
    /// `projects/P/locations/L`.
    pub location: String,
    /// Nodes, as requested (reported back unchanged).
    pub serve_nodes: i32,
    /// `StorageType` as its wire number.
    pub default_storage_type: i32,
}

impl ClusterSpec {
    /// The cluster an instance has when nobody created it explicitly: `{instance}-c1` in
    /// `projects/{project}/locations/local`, one node, SSD.
    pub fn default_for(instance: &InstanceName) -> Self {
        ClusterSpec {
            id: format!("{}-c1", instance.instance),
            location: format!("projects/{}/locations/local", instance.project),
            serve_nodes: 1,
            // StorageType::Ssd on the wire.
            default_storage_type: 1,
        }
    }
}

/// Longest cluster id Cloud Bigtable accepts.
pub const MAX_CLUSTER_ID_CHARS: usize = 30;

/// Cloud Bigtable's rule for a cluster id ([`check_new_id`] with at most 30 characters).
///
/// # Errors
/// `InvalidArgument` naming the id otherwise.
pub fn validate_cluster_id(id: &str) -> Result<()> {
    check_new_id("cluster id", id, MAX_CLUSTER_ID_CHARS)
}

/// The clusters of every instance that CreateInstance made.
#[derive(Debug, Default)]
pub struct Clusters {
    by_instance: Mutex<BTreeMap<InstanceName, Vec<ClusterSpec>>>,
}

impl Clusters {
    /// Records the clusters CreateInstance asked for (`clusters` is not empty).
    ///
    /// # Errors
    /// `Internal` if a panic poisoned the lock.
    pub fn set(&self, instance: &InstanceName, mut clusters: Vec<ClusterSpec>) -> Result<()> {
        clusters.sort_by(|a, b| a.id.cmp(&b.id));
        self.lock()?.insert(instance.clone(), clusters);
        Ok(())
    }

    /// The clusters of `instance`: the requested ones, or the default one.
    ///
    /// # Errors
    /// `Internal` if a panic poisoned the lock.
    pub fn of(&self, instance: &InstanceName) -> Result<Vec<ClusterSpec>> {
        Ok(self
            .lock()?
            .get(instance)
            .cloned()
            .unwrap_or_else(|| vec![ClusterSpec::default_for(instance)]))
    }

    /// Forgets an instance's clusters (it was deleted).
    ///
    /// # Errors
    /// `Internal` if a panic poisoned the lock.
    pub fn forget(&self, instance: &InstanceName) -> Result<()> {
        self.lock()?.remove(instance);
        Ok(())
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, BTreeMap<InstanceName, Vec<ClusterSpec>>>> {
        self.by_instance.lock().map_err(|_| {
            Error::new(
                Code::Internal,
                "the cluster registry's lock was poisoned by an earlier panic",
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance() -> InstanceName {
        InstanceName {
            project: "p".into(),
            instance: "inst".into(),
        }
    }

    #[test]
    fn an_implicit_instance_has_the_default_cluster_and_a_created_one_keeps_its_ids() {
        let clusters = Clusters::default();
        assert_eq!(
            clusters.of(&instance()).unwrap(),
            vec![ClusterSpec::default_for(&instance())]
        );
        let spec = |id: &str| ClusterSpec {
            id: id.into(),
            location: "projects/p/locations/us-central1-b".into(),
            serve_nodes: 3,
            default_storage_type: 2,
        };
        clusters
            .set(
                &instance(),
                vec![spec("west-cluster"), spec("east-cluster")],
            )
            .unwrap();
        let ids: Vec<_> = clusters
            .of(&instance())
            .unwrap()
            .into_iter()
            .map(|c| c.id)
            .collect();
        assert_eq!(ids, ["east-cluster", "west-cluster"]);
        clusters.forget(&instance()).unwrap();
        assert_eq!(clusters.of(&instance()).unwrap()[0].id, "inst-c1");
    }

    #[test]
    fn cluster_ids_follow_cloud_bigtables_syntax() {
        for ok in ["test-cluster", "abcdef", "c1-abc-9"] {
            validate_cluster_id(ok).unwrap();
        }
        for bad in [
            "short",
            "Upper-case",
            "1cluster",
            "ends-with-",
            "a_underscore",
            "",
        ] {
            let err = validate_cluster_id(bad).unwrap_err();
            assert_eq!(err.code(), Code::InvalidArgument, "{bad:?}");
        }
    }
}
