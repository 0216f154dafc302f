//! The clusters each instance reports: the ones CreateInstance asked for, or one default
//! cluster for an instance that exists implicitly.
//!
//! An instance with one cluster keeps one copy of its data; one with two or more keeps a
//! copy per cluster and replicates between them (`crate::registry`, the core's
//! `ReplicatedInstance`). Every cluster reports READY, and every table READY in each of them
//! (what `Table.cluster_states` and the clients' replication calls read). Keeping the requested ids
//! matters because clients address clusters by the id they asked for (Node's
//! `instance.cluster(id).get()`, a backup's `clusters/{id}` parent, replication states keyed by
//! cluster id).
//!
//! Invariants: an instance has at least one cluster; ids are unique within an instance and
//! listed by id (the request's map has no order). With a data directory, the requested
//! clusters are also kept in the instance's folder ([`CLUSTERS_FILE`], specified in
//! docs/format/clusters.md), so an instance reports the same clusters after a restart;
//! [`encode`] and [`decode`] are that file's format, and the registry does its I/O.

use sparsetable::error::quoted;
use sparsetable::{Code, Error, Result};

use crate::names::InstanceName;

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

pub use sparsetable::api::instances::ids::{validate_cluster_id, MAX_CLUSTER_ID_CHARS};

/// The name of the file in an instance's folder that keeps its requested clusters.
pub const CLUSTERS_FILE: &str = "CLUSTERS";

/// The first line of [`CLUSTERS_FILE`]: the format and its version.
const HEADER: &str = "sparsetable-clusters 1";

/// Most clusters one file may list (Cloud Bigtable allows a handful per instance).
const MAX_CLUSTERS: usize = 64;

/// The contents of [`CLUSTERS_FILE`] for `clusters` (ids and locations already checked, so
/// they hold no tab or line break).
pub fn encode(clusters: &[ClusterSpec]) -> String {
    let mut out = format!("{HEADER}\n");
    for c in clusters {
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\n",
            c.id, c.location, c.serve_nodes, c.default_storage_type
        ));
    }
    out
}

/// Reads the contents of a [`CLUSTERS_FILE`]: the clusters, listed by id.
///
/// # Errors
/// `DataLoss` naming what is wrong for a file that is not in the format (unknown header or
/// version, a line without four fields, a bad id, location or number, no cluster, a
/// repeated id, too many clusters).
pub fn decode(text: &str) -> Result<Vec<ClusterSpec>> {
    let bad = |what: String| Error::new(Code::DataLoss, format!("{CLUSTERS_FILE}: {what}"));
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(bad(format!("does not start with {HEADER:?}")));
    }
    let mut clusters: Vec<ClusterSpec> = Vec::new();
    for (n, line) in lines.enumerate() {
        let line_no = n + 2;
        let fields: Vec<&str> = line.split('\t').collect();
        let [id, location, nodes, storage] = fields[..] else {
            return Err(bad(format!(
                "line {line_no} has {} fields, not 4",
                fields.len()
            )));
        };
        validate_cluster_id(id).map_err(|e| bad(format!("line {line_no}: {}", e.message())))?;
        check_location(location).map_err(|e| bad(format!("line {line_no}: {}", e.message())))?;
        let number = |s: &str| {
            s.parse::<i32>()
                .map_err(|_| bad(format!("line {line_no}: {} is not a number", quoted(s))))
        };
        clusters.push(ClusterSpec {
            id: id.to_string(),
            location: location.to_string(),
            serve_nodes: number(nodes)?,
            default_storage_type: number(storage)?,
        });
        if clusters.len() > MAX_CLUSTERS {
            return Err(bad(format!("more than {MAX_CLUSTERS} clusters")));
        }
    }
    if clusters.is_empty() {
        return Err(bad("lists no cluster".into()));
    }
    clusters.sort_by(|a, b| a.id.cmp(&b.id));
    if clusters.windows(2).any(|w| w[0].id == w[1].id) {
        return Err(bad("lists a cluster id twice".into()));
    }
    Ok(clusters)
}

/// Cloud Bigtable's form of a cluster's location, `projects/{project}/locations/{zone}`
/// (the core's rule, `zone_of_location`).
///
/// # Errors
/// `InvalidArgument` quoting a bounded prefix of the location otherwise.
pub fn check_location(location: &str) -> Result<()> {
    sparsetable::api::instances::ids::zone_of_location(location).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(id: &str) -> ClusterSpec {
        ClusterSpec {
            id: id.into(),
            location: "projects/p/locations/us-east1-c".into(),
            serve_nodes: 5,
            default_storage_type: 2,
        }
    }

    #[test]
    fn the_clusters_file_reads_back_what_was_written() {
        let clusters = vec![spec("east-cluster"), spec("west-cluster")];
        let text = encode(&clusters);
        assert!(text.starts_with("sparsetable-clusters 1\n"), "{text}");
        assert_eq!(decode(&text).unwrap(), clusters);
    }

    #[test]
    fn a_damaged_clusters_file_is_data_loss_never_a_panic() {
        let good = encode(&[spec("east-cluster")]);
        let cases = [
            String::new(),
            "sparsetable-clusters 2\n".to_string(),
            "sparsetable-clusters 1\n".to_string(),
            good.replace("\t5\t", "\tfive\t"),
            good.replace("east-cluster", "East"),
            good.replace("projects/p/locations/us-east1-c", "nowhere"),
            good.replace("\t2\n", "\n"),
            format!("{good}{}", good.lines().nth(1).unwrap()),
            good[..good.len() - 9].to_string(),
        ];
        for text in cases {
            let err = decode(&text).unwrap_err();
            assert_eq!(err.code(), Code::DataLoss, "{text:?}: {err}");
        }
        // Every prefix of a good file (a torn write) is refused or read whole, never a panic.
        for end in 0..good.len() {
            let _ = decode(&good[..end]);
        }
    }

    #[test]
    fn locations_have_cloud_bigtables_form() {
        check_location("projects/p/locations/us-central1-b").unwrap();
        for bad in [
            "",
            "us-central1-b",
            "projects/p/locations/",
            "projects/p/locations/Zone",
            "projects/p/locations/a\tb",
            "projects//locations/z",
            "projects/p/zones/z",
        ] {
            assert_eq!(
                check_location(bad).unwrap_err().code(),
                Code::InvalidArgument,
                "{bad:?}"
            );
        }
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
