//! Bigtable resource names: `projects/{project}/instances/{instance}`,
//! `projects/{project}/instances/{instance}/tables/{table}`, and for backups
//! `projects/{project}/instances/{instance}/clusters/{cluster}` and
//! `.../clusters/{cluster}/backups/{backup}`.
//!
//! The engine has no clusters: an instance's backups live in its one database, so a backup
//! is found under any cluster id of its instance, and is named under the cluster the request
//! used (`-`, "every cluster" in list requests, included).
//!
//! Invariant: every parsed segment is non-empty and free of `/`; project and instance ids are
//! at most [`MAX_ID_CHARS`] letters, digits, `-`, `_` or `.`, not starting with `.` (they
//! name the instance's folder under `--data-dir` and a database in memory, so they are
//! checked on every request that names them). One exception: the project ids in
//! [`EMULATOR_PROJECT_PLACEHOLDERS`], which Google's clients send to an emulator when the user
//! gave no project, are accepted as they are, exactly and only as a project id (see
//! [`check_project_id`]). The table id itself is checked by the engine
//! (`validate_table_id`) wherever it is looked up, so its rules live once. Messages quote
//! names through `sparsetable::error::quoted`, so a huge name never makes a huge message.

use core::fmt;

use sparsetable::error::quoted;
use sparsetable::{Error, Result};

// The id rules live in the core's instance model; re-exported so the server's callers keep
// their paths. The placeholder list explains itself there (`{{projectId}}`: Google's Node.js
// client constructed without a project, against an emulator).
pub use sparsetable::api::instances::ids::{
    check_id, check_new_id, check_project_id, EMULATOR_PROJECT_PLACEHOLDERS, MAX_ID_CHARS,
};

/// The instance named by `project` and `instance`, both checked.
fn instance_name(field: &str, project: &str, instance: &str) -> Result<InstanceName> {
    Ok(InstanceName {
        project: check_project_id(field, project)?.to_string(),
        instance: check_id(field, "instance", instance)?.to_string(),
    })
}

/// A Bigtable instance: the unit that owns one engine `Database`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InstanceName {
    /// The project id.
    pub project: String,
    /// The instance id.
    pub instance: String,
}

/// A table inside an instance.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TableName {
    /// The owning instance.
    pub instance: InstanceName,
    /// The table id, as the engine knows it.
    pub table_id: String,
}

impl InstanceName {
    /// Parses `projects/P/instances/I`; `field` names the request field in errors.
    ///
    /// # Errors
    /// `InvalidArgument` naming `field` if `name` does not have that form.
    pub fn parse(field: &str, name: &str) -> Result<Self> {
        match segments(name).as_slice() {
            ["projects", project, "instances", instance] => instance_name(field, project, instance),
            _ => Err(Error::invalid_argument(format!(
                "{field} {} must have the form projects/{{project}}/instances/{{instance}}",
                quoted(name)
            ))),
        }
    }

    /// The full name of table `table_id` in this instance.
    pub fn table(&self, table_id: &str) -> TableName {
        TableName {
            instance: self.clone(),
            table_id: table_id.to_string(),
        }
    }
}

impl TableName {
    /// Parses `projects/P/instances/I/tables/T`; `field` names the request field in errors.
    ///
    /// # Errors
    /// `InvalidArgument` naming `field` if `name` does not have that form.
    pub fn parse(field: &str, name: &str) -> Result<Self> {
        match segments(name).as_slice() {
            ["projects", project, "instances", instance, "tables", table] => Ok(TableName {
                instance: instance_name(field, project, instance)?,
                table_id: table.to_string(),
            }),
            _ => Err(Error::invalid_argument(format!(
                "{field} {} must have the form projects/{{project}}/instances/{{instance}}/tables/{{table}}",
                quoted(name)
            ))),
        }
    }
}

/// An authorized view of a table.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AuthorizedViewName {
    /// The table it shows.
    pub table: TableName,
    /// The view id.
    pub view_id: String,
}

impl AuthorizedViewName {
    /// Parses `projects/P/instances/I/tables/T/authorizedViews/V`; `field` names the request
    /// field in errors. The table and view ids are syntax-checked.
    ///
    /// # Errors
    /// `InvalidArgument` naming `field` if `name` does not have that form.
    pub fn parse(field: &str, name: &str) -> Result<Self> {
        match name.rsplit_once("/authorizedViews/") {
            Some((table, view)) if !view.is_empty() && !view.contains('/') => {
                let table = TableName::parse(field, table)?;
                check_id(field, "table", &table.table_id)?;
                check_id(field, "authorized view", view)?;
                Ok(AuthorizedViewName {
                    table,
                    view_id: view.to_string(),
                })
            }
            _ => Err(Error::invalid_argument(format!(
                "{field} {} must have the form projects/{{project}}/instances/{{instance}}/tables/{{table}}/authorizedViews/{{authorized_view}}",
                quoted(name)
            ))),
        }
    }
}

impl fmt::Display for AuthorizedViewName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/authorizedViews/{}", self.table, self.view_id)
    }
}

/// A cluster of an instance (only a namespace for backups here).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClusterName {
    /// The owning instance.
    pub instance: InstanceName,
    /// The cluster id (`-` in a list request means every cluster).
    pub cluster: String,
}

/// A backup of a cluster.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BackupName {
    /// The cluster named in the request.
    pub cluster: ClusterName,
    /// The backup id, as the engine knows it.
    pub backup_id: String,
}

impl ClusterName {
    /// Parses `projects/P/instances/I/clusters/C`; `field` names the request field in errors.
    ///
    /// # Errors
    /// `InvalidArgument` naming `field` if `name` does not have that form.
    pub fn parse(field: &str, name: &str) -> Result<Self> {
        match segments(name).as_slice() {
            ["projects", project, "instances", instance, "clusters", cluster] => Ok(ClusterName {
                instance: instance_name(field, project, instance)?,
                cluster: cluster.to_string(),
            }),
            _ => Err(Error::invalid_argument(format!(
                "{field} {} must have the form projects/{{project}}/instances/{{instance}}/clusters/{{cluster}}",
                quoted(name)
            ))),
        }
    }

    /// The full name of backup `backup_id` in this cluster.
    pub fn backup(&self, backup_id: &str) -> BackupName {
        BackupName {
            cluster: self.clone(),
            backup_id: backup_id.to_string(),
        }
    }
}

impl BackupName {
    /// Parses `projects/P/instances/I/clusters/C/backups/B`; `field` names the request field.
    ///
    /// # Errors
    /// `InvalidArgument` naming `field` if `name` does not have that form.
    pub fn parse(field: &str, name: &str) -> Result<Self> {
        match name.rsplit_once("/backups/") {
            Some((cluster, backup)) if !backup.is_empty() && !backup.contains('/') => {
                Ok(ClusterName::parse(field, cluster)?.backup(backup))
            }
            _ => Err(Error::invalid_argument(format!(
                "{field} {} must have the form projects/{{project}}/instances/{{instance}}/clusters/{{cluster}}/backups/{{backup}}",
                quoted(name)
            ))),
        }
    }
}

impl fmt::Display for ClusterName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/clusters/{}", self.instance, self.cluster)
    }
}

impl fmt::Display for BackupName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/backups/{}", self.cluster, self.backup_id)
    }
}

/// The `/`-separated segments, or nothing if any segment is empty (so `a//b` never parses).
fn segments(name: &str) -> Vec<&str> {
    let parts: Vec<&str> = name.split('/').collect();
    if parts.iter().any(|p| p.is_empty()) {
        Vec::new()
    } else {
        parts
    }
}

impl fmt::Display for InstanceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "projects/{}/instances/{}", self.project, self.instance)
    }
}

impl fmt::Display for TableName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/tables/{}", self.instance, self.table_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparsetable::Code;

    #[test]
    fn table_names_round_trip() {
        let name = TableName::parse("table_name", "projects/p/instances/i/tables/t").unwrap();
        assert_eq!(name.instance.project, "p");
        assert_eq!(name.instance.instance, "i");
        assert_eq!(name.table_id, "t");
        assert_eq!(name.to_string(), "projects/p/instances/i/tables/t");
        assert_eq!(
            name.instance.table("u").to_string(),
            "projects/p/instances/i/tables/u"
        );
    }

    #[test]
    fn malformed_names_are_invalid_argument_naming_the_field() {
        for bad in [
            "",
            "t",
            "projects/p/instances/i",
            "projects/p/instances//tables/t",
            "projects/p/instances/i/tables/t/x",
        ] {
            let err = TableName::parse("table_name", bad).unwrap_err();
            assert_eq!(err.code(), Code::InvalidArgument, "{bad}");
            assert!(err.message().starts_with("table_name"), "{}", err.message());
        }
        let backup =
            BackupName::parse("name", "projects/p/instances/i/clusters/c/backups/b").unwrap();
        assert_eq!(backup.cluster.instance.instance, "i");
        assert_eq!(backup.cluster.cluster, "c");
        assert_eq!(backup.backup_id, "b");
        assert_eq!(
            backup.to_string(),
            "projects/p/instances/i/clusters/c/backups/b"
        );
        for bad in [
            "projects/p/instances/i/clusters/c/backups/",
            "projects/p/instances/i/backups/b",
            "projects/p/instances/i/clusters/c/backups/b/x",
        ] {
            assert_eq!(
                BackupName::parse("name", bad).unwrap_err().code(),
                Code::InvalidArgument,
                "{bad}"
            );
        }
        let err = InstanceName::parse("parent", "projects/p").unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        assert!(err.message().starts_with("parent"));
    }

    #[test]
    fn project_and_instance_ids_are_checked_and_quoted_briefly() {
        let long = "i".repeat(1 << 20);
        for bad in [
            "projects/p/instances/../tables/t".to_string(),
            "projects/p q/instances/i/tables/t".to_string(),
            format!("projects/p/instances/{long}/tables/t"),
        ] {
            let err = TableName::parse("table_name", &bad).unwrap_err();
            assert_eq!(err.code(), Code::InvalidArgument, "{}", err.message());
            assert!(err.message().len() < 400, "{}", err.message().len());
        }
        let huge = format!("x/{long}");
        let err = TableName::parse("table_name", &huge).unwrap_err();
        assert!(err.message().len() < 400);
        assert!(InstanceName::parse("name", "projects/my-project.1/instances/i_2").is_ok());
    }

    #[test]
    fn the_node_clients_project_placeholder_is_a_project_and_nothing_else() {
        let t = TableName::parse("table_name", "projects/{{projectId}}/instances/i/tables/t")
            .expect("the Node client's placeholder project");
        assert_eq!(t.instance.project, "{{projectId}}");
        assert_eq!(t.to_string(), "projects/{{projectId}}/instances/i/tables/t");
        assert!(InstanceName::parse("name", "projects/{{projectId}}/instances/i").is_ok());
        // Only the exact token, only as a project: malformed names stay refused.
        for bad in [
            "projects/{{projectid}}/instances/i",
            "projects/{{projectId}}x/instances/i",
            "projects/{projectId}/instances/i",
            "projects/{{instanceId}}/instances/i",
            "projects/p/instances/{{projectId}}",
            "projects/{{projectId}}/instances/",
        ] {
            let err = InstanceName::parse("name", bad).unwrap_err();
            assert_eq!(err.code(), Code::InvalidArgument, "{bad}");
        }
        assert!(
            crate::clusters::check_location("projects/{{projectId}}/locations/us-east1-b").is_ok()
        );
    }
}
