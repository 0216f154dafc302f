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

/// Longest project or instance id accepted (Cloud Bigtable's are at most 30 and 33).
pub const MAX_ID_CHARS: usize = 64;

/// Project ids that Google's clients put in resource names when they talk to an emulator and
/// the user gave no project, accepted as a project id as Google's emulator accepts them:
///
/// - `{{projectId}}`: Google's Node.js client (`@google-cloud/bigtable`), constructed as
///   `new Bigtable()` without `projectId`, keeps this token in every name it sends to a custom
///   endpoint (`BIGTABLE_EMULATOR_HOST`); against Cloud Bigtable it would replace it with the
///   project its credentials name, but an emulator has none to ask for.
///
/// Google's Python client needs no exception: with no project it sends
/// `google-cloud-bigtable-emulator`, an ordinary id. The Java, Go and C++ clients require a
/// project. The placeholder is a project like any other (its instances are its own, and
/// persist under a folder of that name); anything else with braces is still refused.
pub const EMULATOR_PROJECT_PLACEHOLDERS: [&str; 1] = ["{{projectId}}"];

/// Checks a project id: [`check_id`]'s rule, or exactly one of
/// [`EMULATOR_PROJECT_PLACEHOLDERS`].
///
/// # Errors
/// As [`check_id`].
pub fn check_project_id<'a>(field: &str, id: &'a str) -> Result<&'a str> {
    if EMULATOR_PROJECT_PLACEHOLDERS.contains(&id) {
        return Ok(id);
    }
    check_id(field, "project", id)
}

/// Checks a project or instance id; `what` names it in the error.
///
/// # Errors
/// `InvalidArgument` for an id that is empty, too long, starts with `.` or holds a
/// character outside `[-_.a-zA-Z0-9]`.
pub fn check_id<'a>(field: &str, what: &str, id: &'a str) -> Result<&'a str> {
    let ok = !id.is_empty()
        && id.len() <= MAX_ID_CHARS
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok {
        Ok(id)
    } else {
        Err(Error::invalid_argument(format!(
            "{field}: {what} id {} must be 1 to {MAX_ID_CHARS} letters, digits, '-', '_' or '.', not starting with '.'",
            quoted(id)
        )))
    }
}

/// Cloud Bigtable's rule for the id of a resource a request creates (an instance: at most
/// 33 characters; a cluster: at most 30): 6 to `max_chars` characters, a lowercase letter
/// first, then lowercase letters, digits and hyphens, not ending with a hyphen. Stricter than
/// [`check_id`], which also accepts ids that other requests name implicitly, as Google's
/// emulator does.
///
/// # Errors
/// `InvalidArgument` naming `field` and quoting a bounded prefix of the id otherwise.
pub fn check_new_id(field: &str, id: &str, max_chars: usize) -> Result<()> {
    let b = id.as_bytes();
    let ok = (6..=max_chars).contains(&b.len())
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        && b[b.len() - 1] != b'-';
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "{field} {} must be 6 to {max_chars} characters: a lowercase letter, then lowercase letters, digits or '-', not ending with '-'",
            quoted(id)
        )))
    }
}

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
