//! The instance model: what an instance is besides its data (its id, display name, type,
//! labels and creation time), its clusters and its app profiles, the rules every id and
//! field follows, the operations the Instance Admin API applies to them, and their stored
//! form. Every front-end keeps instances through this one model: the server's Instance
//! Admin, the npm package's `Bigtable`/`Instance`/`Cluster`/`AppProfile`, and through them
//! the bindings. What the clusters and profiles *do* to data requests is
//! [`super::replication`] (routing, replication) and [`super::instance`] (the data plane);
//! [`InstanceRecord::routing`] hands them over.
//!
//! - [`ids`]: the id, name, label and location rules.
//! - [`record`]: [`InstanceRecord`] and its operations.
//! - [`logical_views`]: the instance's logical views (saved SQL queries) and their rules;
//!   [`logical_view_ops`] the operations on them.
//! - [`materialized_views`]: the definitions of the instance's continuous materialized views
//!   (their rows are the database's, [`super::materialized_views`]) and their rules;
//!   [`materialized_view_ops`] the operations on them.
//! - [`views`] and `view_ops.rs`: what both kinds of view share (a named, etagged,
//!   protected view; each kind says what is its own: the order of a create's checks, a limit,
//!   its error words) and the Create / Update / Delete steps written once over it.
//! - [`file`]: the stored form (docs/format/instance.md, versions 2 to 4).
//! - `store` (std only): that file in an instance's folder, read and replaced atomically,
//!   for every front-end with a directory (server, Python, Kotlin).
//!
//! # The rules, and where they come from
//! From Bigtable's documentation ("Instances, clusters, and nodes", "Create an instance",
//! "About app profiles", "Create and manage labels") and the admin protos'
//! field comments, in our words:
//! - An instance id is 6 to 33 characters, a cluster id 6 to 30: a lowercase letter first,
//!   then lowercase letters, digits and hyphens, not ending with a hyphen. A display name is
//!   4 to 30 characters.
//! - An instance has at least one cluster; cluster ids are unique within the instance.
//!   A cluster lives in one zone; its storage type (SSD or HDD) is fixed at creation.
//! - Labels: at most 64 per instance; keys 1 to 63 characters, a lowercase letter first,
//!   then lowercase letters, digits, `_` or `-`; values at most 63 of the same characters.
//! - An app profile id is 1 to 50 letters, digits, `_`, `-` or `.`, not starting with `-` or
//!   `.` ([`super::replication::validate_app_profile_id`]). A profile routes to clusters the
//!   instance has. The default profile's rule is routing's
//!   ([`super::replication`]); a profile stored under the id `default` replaces it.
//! - Autoscaling: a minimum of at least one node and a maximum no smaller; a CPU target of
//!   10 to 80 percent (0: unset).
//!
//! Where the documentation is silent, our choices:
//! - A cluster cannot be deleted while it is the instance's last one (`FAILED_PRECONDITION`)
//!   nor while a single-cluster profile routes to it (`FAILED_PRECONDITION`, naming the
//!   profile; Bigtable asks to change such profiles first). A multi-cluster profile that
//!   lists it forgets it; one left with no cluster routes to every cluster.
//! - Project and instance ids that requests only name (they are not being created) follow a
//!   looser rule, as Google's emulator does ([`ids::check_id`]); the placeholder project ids
//!   Google's clients send to an emulator are accepted ([`ids::EMULATOR_PROJECT_PLACEHOLDERS`]).
//!
//! Invariants of an [`InstanceRecord`] (every operation keeps them, and a failed operation
//! changes nothing): at least one cluster; clusters and app profiles sorted by id, ids
//! unique and valid; every cluster an app profile names exists; logical views and
//! materialized views each sorted by id, ids unique and valid.

pub mod file;
pub mod ids;
pub mod logical_view_ops;
pub mod logical_views;
pub mod materialized_view_ops;
pub mod materialized_views;
pub mod record;
#[cfg(feature = "std")]
pub mod store;
mod view_ops;
pub mod views;

pub use file::{decode_file, encode_file, StoredInstance, INSTANCE_FILE, INSTANCE_FILE_MAGIC};
pub use logical_views::{validate_logical_view_id, LogicalViewRecord, MAX_LOGICAL_VIEWS};
pub use materialized_views::{validate_materialized_view_id, MaterializedViewRecord};
pub use record::{
    AppProfileRecord, Autoscaling, ClusterRecord, InstanceRecord, InstanceType, StorageType,
};
