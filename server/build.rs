//! Generates the SERVER side of Bigtable's `Bigtable` (data) and `BigtableTableAdmin` services,
//! of `google.longrunning.Operations` (clients poll admin operations there), and of the
//! server's own `sparsetable.testing.v1.TestClock` (messages defined in `src/test_clock.rs`).
//!
//! The message types come from the crates.io crates `googleapis-tonic-google-bigtable-v2` and
//! `googleapis-tonic-google-bigtable-admin-v2`, which ship clients only. tonic-build's manual
//! builder emits a `<service>_server` module (trait + tower service) over those types, so no
//! proto file enters the repository. The method lists below mirror the services' definitions in
//! googleapis (`google/bigtable/v2/bigtable.proto`,
//! `google/bigtable/admin/v2/bigtable_table_admin.proto`); route names are the wire names and
//! must never change.

use tonic_build::manual::{Builder, Method, Service};

/// Path prefix of the data API's message types.
const DATA: &str = "googleapis_tonic_google_bigtable_v2::google::bigtable::v2";
/// Path prefix of the admin API's message types (and the packages it re-exports).
const ADMIN: &str = "googleapis_tonic_google_bigtable_admin_v2::google";

/// (rust name, route name, input type, output type, server streaming) of `google.bigtable.v2.Bigtable`.
const DATA_METHODS: &[(&str, &str, &str, &str, bool)] = &[
    (
        "read_rows",
        "ReadRows",
        "crate::wire::ReadRowsRequest",
        "ReadRowsResponse",
        true,
    ),
    (
        "sample_row_keys",
        "SampleRowKeys",
        "crate::wire::SampleRowKeysRequest",
        "SampleRowKeysResponse",
        true,
    ),
    (
        "mutate_row",
        "MutateRow",
        "MutateRowRequest",
        "MutateRowResponse",
        false,
    ),
    (
        "mutate_rows",
        "MutateRows",
        "MutateRowsRequest",
        "MutateRowsResponse",
        true,
    ),
    (
        "check_and_mutate_row",
        "CheckAndMutateRow",
        "crate::wire::CheckAndMutateRowRequest",
        "CheckAndMutateRowResponse",
        false,
    ),
    (
        "ping_and_warm",
        "PingAndWarm",
        "PingAndWarmRequest",
        "PingAndWarmResponse",
        false,
    ),
    (
        "read_modify_write_row",
        "ReadModifyWriteRow",
        "ReadModifyWriteRowRequest",
        "ReadModifyWriteRowResponse",
        false,
    ),
    (
        "generate_initial_change_stream_partitions",
        "GenerateInitialChangeStreamPartitions",
        "GenerateInitialChangeStreamPartitionsRequest",
        "GenerateInitialChangeStreamPartitionsResponse",
        true,
    ),
    (
        "read_change_stream",
        "ReadChangeStream",
        "ReadChangeStreamRequest",
        "ReadChangeStreamResponse",
        true,
    ),
    (
        "prepare_query",
        "PrepareQuery",
        "PrepareQueryRequest",
        "PrepareQueryResponse",
        false,
    ),
    (
        "execute_query",
        "ExecuteQuery",
        "ExecuteQueryRequest",
        "ExecuteQueryResponse",
        true,
    ),
];

/// Same for `google.bigtable.admin.v2.BigtableTableAdmin`; types are relative to [`ADMIN`], and
/// `Empty` is `google.protobuf.Empty`, which prost maps to `()`; the manual builder wants a path,
/// so it names the alias `crate::stubs::Empty`. A type starting with `crate::` is the server's
/// own encoding of a message (`Table` replies: see `src/table_reply.rs`). None of these RPCs
/// streams.
const ADMIN_METHODS: &[(&str, &str, &str, &str)] = &[
    (
        "create_table",
        "CreateTable",
        // Decoded with the order of its families (server/src/family_order.rs).
        "crate::family_order::CreateTableRequestInOrder",
        "crate::table_reply::TableReply",
    ),
    (
        "create_table_from_snapshot",
        "CreateTableFromSnapshot",
        "bigtable::admin::v2::CreateTableFromSnapshotRequest",
        "longrunning::Operation",
    ),
    (
        "list_tables",
        "ListTables",
        "bigtable::admin::v2::ListTablesRequest",
        "crate::table_reply::ListTablesReply",
    ),
    (
        "get_table",
        "GetTable",
        "bigtable::admin::v2::GetTableRequest",
        "crate::table_reply::TableReply",
    ),
    (
        "update_table",
        "UpdateTable",
        "bigtable::admin::v2::UpdateTableRequest",
        "longrunning::Operation",
    ),
    (
        "delete_table",
        "DeleteTable",
        "bigtable::admin::v2::DeleteTableRequest",
        "Empty",
    ),
    (
        "undelete_table",
        "UndeleteTable",
        "bigtable::admin::v2::UndeleteTableRequest",
        "longrunning::Operation",
    ),
    (
        "create_authorized_view",
        "CreateAuthorizedView",
        "bigtable::admin::v2::CreateAuthorizedViewRequest",
        "longrunning::Operation",
    ),
    (
        "list_authorized_views",
        "ListAuthorizedViews",
        "bigtable::admin::v2::ListAuthorizedViewsRequest",
        "bigtable::admin::v2::ListAuthorizedViewsResponse",
    ),
    (
        "get_authorized_view",
        "GetAuthorizedView",
        "bigtable::admin::v2::GetAuthorizedViewRequest",
        "bigtable::admin::v2::AuthorizedView",
    ),
    (
        "update_authorized_view",
        "UpdateAuthorizedView",
        "bigtable::admin::v2::UpdateAuthorizedViewRequest",
        "longrunning::Operation",
    ),
    (
        "delete_authorized_view",
        "DeleteAuthorizedView",
        "bigtable::admin::v2::DeleteAuthorizedViewRequest",
        "Empty",
    ),
    (
        "modify_column_families",
        "ModifyColumnFamilies",
        "bigtable::admin::v2::ModifyColumnFamiliesRequest",
        "crate::table_reply::TableReply",
    ),
    (
        "drop_row_range",
        "DropRowRange",
        "bigtable::admin::v2::DropRowRangeRequest",
        "Empty",
    ),
    (
        "generate_consistency_token",
        "GenerateConsistencyToken",
        "bigtable::admin::v2::GenerateConsistencyTokenRequest",
        "bigtable::admin::v2::GenerateConsistencyTokenResponse",
    ),
    (
        "check_consistency",
        "CheckConsistency",
        "bigtable::admin::v2::CheckConsistencyRequest",
        "bigtable::admin::v2::CheckConsistencyResponse",
    ),
    (
        "snapshot_table",
        "SnapshotTable",
        "bigtable::admin::v2::SnapshotTableRequest",
        "longrunning::Operation",
    ),
    (
        "get_snapshot",
        "GetSnapshot",
        "bigtable::admin::v2::GetSnapshotRequest",
        "bigtable::admin::v2::Snapshot",
    ),
    (
        "list_snapshots",
        "ListSnapshots",
        "bigtable::admin::v2::ListSnapshotsRequest",
        "bigtable::admin::v2::ListSnapshotsResponse",
    ),
    (
        "delete_snapshot",
        "DeleteSnapshot",
        "bigtable::admin::v2::DeleteSnapshotRequest",
        "Empty",
    ),
    (
        "create_backup",
        "CreateBackup",
        "bigtable::admin::v2::CreateBackupRequest",
        "longrunning::Operation",
    ),
    (
        "get_backup",
        "GetBackup",
        "bigtable::admin::v2::GetBackupRequest",
        "bigtable::admin::v2::Backup",
    ),
    (
        "update_backup",
        "UpdateBackup",
        "bigtable::admin::v2::UpdateBackupRequest",
        "bigtable::admin::v2::Backup",
    ),
    (
        "delete_backup",
        "DeleteBackup",
        "bigtable::admin::v2::DeleteBackupRequest",
        "Empty",
    ),
    (
        "list_backups",
        "ListBackups",
        "bigtable::admin::v2::ListBackupsRequest",
        "bigtable::admin::v2::ListBackupsResponse",
    ),
    (
        "restore_table",
        "RestoreTable",
        "bigtable::admin::v2::RestoreTableRequest",
        "longrunning::Operation",
    ),
    (
        "copy_backup",
        "CopyBackup",
        "bigtable::admin::v2::CopyBackupRequest",
        "longrunning::Operation",
    ),
    (
        "get_iam_policy",
        "GetIamPolicy",
        "iam::v1::GetIamPolicyRequest",
        "iam::v1::Policy",
    ),
    (
        "set_iam_policy",
        "SetIamPolicy",
        "iam::v1::SetIamPolicyRequest",
        "iam::v1::Policy",
    ),
    (
        "test_iam_permissions",
        "TestIamPermissions",
        "iam::v1::TestIamPermissionsRequest",
        "iam::v1::TestIamPermissionsResponse",
    ),
    (
        "create_schema_bundle",
        "CreateSchemaBundle",
        "bigtable::admin::v2::CreateSchemaBundleRequest",
        "longrunning::Operation",
    ),
    (
        "update_schema_bundle",
        "UpdateSchemaBundle",
        "bigtable::admin::v2::UpdateSchemaBundleRequest",
        "longrunning::Operation",
    ),
    (
        "get_schema_bundle",
        "GetSchemaBundle",
        "bigtable::admin::v2::GetSchemaBundleRequest",
        "bigtable::admin::v2::SchemaBundle",
    ),
    (
        "list_schema_bundles",
        "ListSchemaBundles",
        "bigtable::admin::v2::ListSchemaBundlesRequest",
        "bigtable::admin::v2::ListSchemaBundlesResponse",
    ),
    (
        "delete_schema_bundle",
        "DeleteSchemaBundle",
        "bigtable::admin::v2::DeleteSchemaBundleRequest",
        "Empty",
    ),
];

/// `google.longrunning.Operations`; types relative to [`ADMIN`] as above.
const OPERATIONS_METHODS: &[(&str, &str, &str, &str)] = &[
    (
        "list_operations",
        "ListOperations",
        "longrunning::ListOperationsRequest",
        "longrunning::ListOperationsResponse",
    ),
    (
        "get_operation",
        "GetOperation",
        "longrunning::GetOperationRequest",
        "longrunning::Operation",
    ),
    (
        "delete_operation",
        "DeleteOperation",
        "longrunning::DeleteOperationRequest",
        "Empty",
    ),
    (
        "cancel_operation",
        "CancelOperation",
        "longrunning::CancelOperationRequest",
        "Empty",
    ),
    (
        "wait_operation",
        "WaitOperation",
        "longrunning::WaitOperationRequest",
        "longrunning::Operation",
    ),
];

/// The part of `google.bigtable.admin.v2.BigtableInstanceAdmin` that clients call on startup
/// or in test set-up and tear-down (does the instance exist, list instances and clusters,
/// create and delete an instance). Routes not listed here answer UNIMPLEMENTED.
const INSTANCE_ADMIN_METHODS: &[(&str, &str, &str, &str)] = &[
    (
        "list_hot_tablets",
        "ListHotTablets",
        "bigtable::admin::v2::ListHotTabletsRequest",
        "bigtable::admin::v2::ListHotTabletsResponse",
    ),
    (
        "create_instance",
        "CreateInstance",
        "bigtable::admin::v2::CreateInstanceRequest",
        "longrunning::Operation",
    ),
    (
        "get_instance",
        "GetInstance",
        "bigtable::admin::v2::GetInstanceRequest",
        "bigtable::admin::v2::Instance",
    ),
    (
        "list_instances",
        "ListInstances",
        "bigtable::admin::v2::ListInstancesRequest",
        "bigtable::admin::v2::ListInstancesResponse",
    ),
    (
        "delete_instance",
        "DeleteInstance",
        "bigtable::admin::v2::DeleteInstanceRequest",
        "Empty",
    ),
    (
        "get_cluster",
        "GetCluster",
        "bigtable::admin::v2::GetClusterRequest",
        "bigtable::admin::v2::Cluster",
    ),
    (
        "list_clusters",
        "ListClusters",
        "bigtable::admin::v2::ListClustersRequest",
        "bigtable::admin::v2::ListClustersResponse",
    ),
    (
        "update_instance",
        "UpdateInstance",
        "bigtable::admin::v2::Instance",
        "bigtable::admin::v2::Instance",
    ),
    (
        "partial_update_instance",
        "PartialUpdateInstance",
        "bigtable::admin::v2::PartialUpdateInstanceRequest",
        "longrunning::Operation",
    ),
    (
        "create_cluster",
        "CreateCluster",
        "bigtable::admin::v2::CreateClusterRequest",
        "longrunning::Operation",
    ),
    (
        "update_cluster",
        "UpdateCluster",
        "bigtable::admin::v2::Cluster",
        "longrunning::Operation",
    ),
    (
        "partial_update_cluster",
        "PartialUpdateCluster",
        "bigtable::admin::v2::PartialUpdateClusterRequest",
        "longrunning::Operation",
    ),
    (
        "delete_cluster",
        "DeleteCluster",
        "bigtable::admin::v2::DeleteClusterRequest",
        "Empty",
    ),
    (
        "create_app_profile",
        "CreateAppProfile",
        "bigtable::admin::v2::CreateAppProfileRequest",
        "bigtable::admin::v2::AppProfile",
    ),
    (
        "get_app_profile",
        "GetAppProfile",
        "bigtable::admin::v2::GetAppProfileRequest",
        "bigtable::admin::v2::AppProfile",
    ),
    (
        "list_app_profiles",
        "ListAppProfiles",
        "bigtable::admin::v2::ListAppProfilesRequest",
        "bigtable::admin::v2::ListAppProfilesResponse",
    ),
    (
        "update_app_profile",
        "UpdateAppProfile",
        "bigtable::admin::v2::UpdateAppProfileRequest",
        "longrunning::Operation",
    ),
    (
        "delete_app_profile",
        "DeleteAppProfile",
        "bigtable::admin::v2::DeleteAppProfileRequest",
        "Empty",
    ),
    (
        "create_logical_view",
        "CreateLogicalView",
        "bigtable::admin::v2::CreateLogicalViewRequest",
        "longrunning::Operation",
    ),
    (
        "get_logical_view",
        "GetLogicalView",
        "bigtable::admin::v2::GetLogicalViewRequest",
        "bigtable::admin::v2::LogicalView",
    ),
    (
        "list_logical_views",
        "ListLogicalViews",
        "bigtable::admin::v2::ListLogicalViewsRequest",
        "bigtable::admin::v2::ListLogicalViewsResponse",
    ),
    (
        "update_logical_view",
        "UpdateLogicalView",
        "bigtable::admin::v2::UpdateLogicalViewRequest",
        "longrunning::Operation",
    ),
    (
        "delete_logical_view",
        "DeleteLogicalView",
        "bigtable::admin::v2::DeleteLogicalViewRequest",
        "Empty",
    ),
];

/// `sparsetable.testing.v1.TestClock`, over the messages of `crate::test_clock`.
const TEST_CLOCK_METHODS: &[(&str, &str, &str, &str)] = &[
    ("set_time", "SetTime", "SetTimeRequest", "TimeResponse"),
    (
        "advance_time",
        "AdvanceTime",
        "AdvanceTimeRequest",
        "TimeResponse",
    ),
];

/// `sparsetable.testing.v1.ReplicationControl`, over the messages of
/// `crate::replication_control`.
const REPLICATION_CONTROL_METHODS: &[(&str, &str, &str, &str)] = &[
    (
        "get_replication",
        "GetReplication",
        "GetReplicationRequest",
        "ReplicationStatus",
    ),
    (
        "set_cluster_available",
        "SetClusterAvailable",
        "SetClusterAvailableRequest",
        "ReplicationStatus",
    ),
    (
        "set_replication_lag",
        "SetReplicationLag",
        "SetReplicationLagRequest",
        "ReplicationStatus",
    ),
    (
        "inject_fault",
        "InjectFault",
        "InjectFaultRequest",
        "ReplicationStatus",
    ),
    (
        "clear_faults",
        "ClearFaults",
        "ClearFaultsRequest",
        "ReplicationStatus",
    ),
    (
        "collect_garbage",
        "CollectGarbage",
        "CollectGarbageRequest",
        "ReplicationStatus",
    ),
];

fn method(name: &str, route: &str, input: String, output: String, streaming: bool) -> Method {
    let builder = Method::builder()
        .name(name)
        .route_name(route)
        .input_type(input)
        .output_type(output)
        .codec_path("crate::codec::BigtableCodec");
    if streaming {
        builder.server_streaming()
    } else {
        builder
    }
    .build()
}

/// A data API type's path: the crate's, or the server's own for a `crate::` path (requests
/// with fields newer than the crate, see `src/wire.rs`).
fn data_type(ty: &str) -> String {
    if ty.starts_with("crate::") {
        ty.to_string()
    } else {
        format!("{DATA}::{ty}")
    }
}

fn main() {
    let data = DATA_METHODS
        .iter()
        .fold(
            Service::builder()
                .name("Bigtable")
                .package("google.bigtable.v2"),
            |s, &(name, route, input, output, streaming)| {
                s.method(method(
                    name,
                    route,
                    data_type(input),
                    data_type(output),
                    streaming,
                ))
            },
        )
        .build();
    let qualify = |ty: &str| {
        if ty == "Empty" {
            "crate::stubs::Empty".to_string()
        } else if ty.starts_with("crate::") {
            ty.to_string()
        } else {
            format!("{ADMIN}::{ty}")
        }
    };
    let admin = ADMIN_METHODS
        .iter()
        .fold(
            Service::builder()
                .name("BigtableTableAdmin")
                .package("google.bigtable.admin.v2"),
            |s, &(name, route, input, output)| {
                s.method(method(name, route, qualify(input), qualify(output), false))
            },
        )
        .build();
    let instance_admin = INSTANCE_ADMIN_METHODS
        .iter()
        .fold(
            Service::builder()
                .name("BigtableInstanceAdmin")
                .package("google.bigtable.admin.v2"),
            |s, &(name, route, input, output)| {
                s.method(method(name, route, qualify(input), qualify(output), false))
            },
        )
        .build();
    let operations = OPERATIONS_METHODS
        .iter()
        .fold(
            Service::builder()
                .name("Operations")
                .package("google.longrunning"),
            |s, &(name, route, input, output)| {
                s.method(method(name, route, qualify(input), qualify(output), false))
            },
        )
        .build();
    let test_clock = TEST_CLOCK_METHODS
        .iter()
        .fold(
            Service::builder()
                .name("TestClock")
                .package("sparsetable.testing.v1"),
            |s, &(name, route, input, output)| {
                s.method(method(
                    name,
                    route,
                    format!("crate::test_clock::{input}"),
                    format!("crate::test_clock::{output}"),
                    false,
                ))
            },
        )
        .build();
    let replication_control = REPLICATION_CONTROL_METHODS
        .iter()
        .fold(
            Service::builder()
                .name("ReplicationControl")
                .package("sparsetable.testing.v1"),
            |s, &(name, route, input, output)| {
                s.method(method(
                    name,
                    route,
                    format!("crate::replication_control::{input}"),
                    format!("crate::replication_control::{output}"),
                    false,
                ))
            },
        )
        .build();
    // Clients too, for our own testing services only: tests (and users' test harnesses in
    // Rust) drive them.
    Builder::new()
        .build_client(false)
        .compile(&[data, admin, instance_admin, operations]);
    Builder::new()
        .build_client(true)
        .compile(&[test_clock, replication_control]);
    println!("cargo:rerun-if-changed=build.rs");
}
