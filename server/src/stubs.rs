//! The generated server side of Bigtable's gRPC services (see `build.rs`).
//!
//! `data` holds `bigtable_server::{Bigtable, BigtableServer}` for `google.bigtable.v2.Bigtable`;
//! `admin` holds `bigtable_table_admin_server::{BigtableTableAdmin, BigtableTableAdminServer}`
//! for `google.bigtable.admin.v2.BigtableTableAdmin`. The message types are the googleapis
//! crates', re-exported here as `v2` and `admin_v2` so the rest of the crate names them once.

/// `google.protobuf.Empty`, as prost maps it; named so the generated code can refer to a path.
pub type Empty = ();

/// Message types of the Data API (`google.bigtable.v2`).
pub use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;

/// `google.rpc` (`Status` of MutateRows entries).
pub use googleapis_tonic_google_bigtable_v2::google::rpc;

/// Message types of the Table Admin API (`google.bigtable.admin.v2`).
pub use googleapis_tonic_google_bigtable_admin_v2::google::bigtable::admin::v2 as admin_v2;

/// The server trait and service of `google.bigtable.v2.Bigtable`.
pub mod data {
    include!(concat!(env!("OUT_DIR"), "/google.bigtable.v2.Bigtable.rs"));
}

/// The server trait and service of `google.bigtable.admin.v2.BigtableTableAdmin`.
pub mod admin {
    include!(concat!(
        env!("OUT_DIR"),
        "/google.bigtable.admin.v2.BigtableTableAdmin.rs"
    ));
}

/// The server trait and service of the part of `google.bigtable.admin.v2.BigtableInstanceAdmin`
/// the server answers.
pub mod instance_admin {
    include!(concat!(
        env!("OUT_DIR"),
        "/google.bigtable.admin.v2.BigtableInstanceAdmin.rs"
    ));
}

/// The server trait and service of `google.longrunning.Operations`.
pub mod operations {
    include!(concat!(
        env!("OUT_DIR"),
        "/google.longrunning.Operations.rs"
    ));
}
