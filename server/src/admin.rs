//! The Table Admin API (`google.bigtable.admin.v2.BigtableTableAdmin`) over the engine.
//!
//! Served: CreateTable (families, GC rules, deletion protection, initial splits), ListTables
//! (with paging), GetTable, ModifyColumnFamilies (create, update, drop) and DeleteTable.
//! Every other RPC answers UNIMPLEMENTED naming itself.
//!
//! Paging: tables are listed in id order; a page token is the id of the last table of the
//! previous page, so a page resumes right after it even if tables came or went meanwhile.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use sparsetable::{Error, Result};

use crate::convert::{
    modifications_from_proto, table_config_from_proto, table_to_proto, TableView,
};
use crate::names::{InstanceName, TableName};
use crate::registry::{lock, Instances};
use crate::status::{to_status, unimplemented};
use crate::stubs::admin::bigtable_table_admin_server::BigtableTableAdmin;
use crate::stubs::admin_v2;
use googleapis_tonic_google_bigtable_admin_v2::google::iam::v1 as iam;
use googleapis_tonic_google_bigtable_admin_v2::google::longrunning;

/// The Table Admin service.
#[derive(Debug, Clone)]
pub struct AdminService {
    instances: Arc<Instances>,
}

impl AdminService {
    /// A service over the instances' databases.
    pub fn new(instances: Arc<Instances>) -> Self {
        AdminService { instances }
    }

    fn create_table_inner(&self, req: &admin_v2::CreateTableRequest) -> Result<admin_v2::Table> {
        let instance = InstanceName::parse("parent", &req.parent)?;
        let config = table_config_from_proto(req.table.as_ref(), &req.initial_splits)?;
        let db = self.instances.database(&instance)?;
        let mut db = lock(&db)?;
        db.create_table(&req.table_id, config)?;
        Ok(table_to_proto(
            &instance,
            &db.get_table(&req.table_id)?,
            TableView::Schema,
        ))
    }

    fn list_tables_inner(
        &self,
        req: &admin_v2::ListTablesRequest,
    ) -> Result<admin_v2::ListTablesResponse> {
        let instance = InstanceName::parse("parent", &req.parent)?;
        let view = TableView::from_proto(req.view, TableView::NameOnly)?;
        let page_size = usize::try_from(req.page_size).map_err(|_| {
            Error::invalid_argument(format!("page_size {} must not be negative", req.page_size))
        })?;
        let db = self.instances.database(&instance)?;
        let tables = lock(&db)?.list_tables();
        let mut rest = tables
            .iter()
            .filter(|t| req.page_token.is_empty() || t.name.as_str() > req.page_token.as_str())
            .peekable();
        let mut page = Vec::new();
        while let Some(info) = rest.next_if(|_| page_size == 0 || page.len() < page_size) {
            page.push(table_to_proto(&instance, info, view));
        }
        let next_page_token = match rest.peek() {
            Some(_) => tables_last_id(&page, &instance),
            None => String::new(),
        };
        Ok(admin_v2::ListTablesResponse {
            tables: page,
            next_page_token,
        })
    }

    fn get_table_inner(&self, req: &admin_v2::GetTableRequest) -> Result<admin_v2::Table> {
        let table = TableName::parse("name", &req.name)?;
        let view = TableView::from_proto(req.view, TableView::Schema)?;
        let db = self.instances.database(&table.instance)?;
        let info = lock(&db)?.get_table(&table.table_id)?;
        Ok(table_to_proto(&table.instance, &info, view))
    }

    fn delete_table_inner(&self, req: &admin_v2::DeleteTableRequest) -> Result<()> {
        let table = TableName::parse("name", &req.name)?;
        let db = self.instances.database(&table.instance)?;
        let mut db = lock(&db)?;
        db.delete_table(&table.table_id)
    }

    fn modify_column_families_inner(
        &self,
        req: &admin_v2::ModifyColumnFamiliesRequest,
    ) -> Result<admin_v2::Table> {
        let table = TableName::parse("name", &req.name)?;
        let modifications = modifications_from_proto(&req.modifications)?;
        let db = self.instances.database(&table.instance)?;
        let mut db = lock(&db)?;
        let info = db.modify_column_families(&table.table_id, &modifications)?;
        Ok(table_to_proto(&table.instance, &info, TableView::Schema))
    }
}

/// The page token after `page`: its last table's id.
fn tables_last_id(page: &[admin_v2::Table], instance: &InstanceName) -> String {
    let prefix = format!("{instance}/tables/");
    page.last()
        .and_then(|t| t.name.strip_prefix(&prefix))
        .unwrap_or_default()
        .to_string()
}

fn unimplemented_rpc<T>(rpc: &str) -> std::result::Result<T, Status> {
    Err(to_status(unimplemented(format!(
        "RPC google.bigtable.admin.v2.BigtableTableAdmin/{rpc}"
    ))))
}

#[tonic::async_trait]
impl BigtableTableAdmin for AdminService {
    async fn create_table(
        &self,
        request: Request<admin_v2::CreateTableRequest>,
    ) -> std::result::Result<Response<admin_v2::Table>, Status> {
        self.create_table_inner(request.get_ref())
            .map(Response::new)
            .map_err(to_status)
    }

    async fn list_tables(
        &self,
        request: Request<admin_v2::ListTablesRequest>,
    ) -> std::result::Result<Response<admin_v2::ListTablesResponse>, Status> {
        self.list_tables_inner(request.get_ref())
            .map(Response::new)
            .map_err(to_status)
    }

    async fn get_table(
        &self,
        request: Request<admin_v2::GetTableRequest>,
    ) -> std::result::Result<Response<admin_v2::Table>, Status> {
        self.get_table_inner(request.get_ref())
            .map(Response::new)
            .map_err(to_status)
    }

    async fn delete_table(
        &self,
        request: Request<admin_v2::DeleteTableRequest>,
    ) -> std::result::Result<Response<()>, Status> {
        self.delete_table_inner(request.get_ref())
            .map(Response::new)
            .map_err(to_status)
    }

    async fn modify_column_families(
        &self,
        request: Request<admin_v2::ModifyColumnFamiliesRequest>,
    ) -> std::result::Result<Response<admin_v2::Table>, Status> {
        self.modify_column_families_inner(request.get_ref())
            .map(Response::new)
            .map_err(to_status)
    }

    // Everything below is not served yet.

    async fn create_table_from_snapshot(
        &self,
        _request: Request<admin_v2::CreateTableFromSnapshotRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        unimplemented_rpc("CreateTableFromSnapshot")
    }

    async fn update_table(
        &self,
        _request: Request<admin_v2::UpdateTableRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        unimplemented_rpc("UpdateTable")
    }

    async fn undelete_table(
        &self,
        _request: Request<admin_v2::UndeleteTableRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        unimplemented_rpc("UndeleteTable")
    }

    async fn create_authorized_view(
        &self,
        _request: Request<admin_v2::CreateAuthorizedViewRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        unimplemented_rpc("CreateAuthorizedView")
    }

    async fn list_authorized_views(
        &self,
        _request: Request<admin_v2::ListAuthorizedViewsRequest>,
    ) -> std::result::Result<Response<admin_v2::ListAuthorizedViewsResponse>, Status> {
        unimplemented_rpc("ListAuthorizedViews")
    }

    async fn get_authorized_view(
        &self,
        _request: Request<admin_v2::GetAuthorizedViewRequest>,
    ) -> std::result::Result<Response<admin_v2::AuthorizedView>, Status> {
        unimplemented_rpc("GetAuthorizedView")
    }

    async fn update_authorized_view(
        &self,
        _request: Request<admin_v2::UpdateAuthorizedViewRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        unimplemented_rpc("UpdateAuthorizedView")
    }

    async fn delete_authorized_view(
        &self,
        _request: Request<admin_v2::DeleteAuthorizedViewRequest>,
    ) -> std::result::Result<Response<()>, Status> {
        unimplemented_rpc("DeleteAuthorizedView")
    }

    async fn drop_row_range(
        &self,
        _request: Request<admin_v2::DropRowRangeRequest>,
    ) -> std::result::Result<Response<()>, Status> {
        unimplemented_rpc("DropRowRange")
    }

    async fn generate_consistency_token(
        &self,
        _request: Request<admin_v2::GenerateConsistencyTokenRequest>,
    ) -> std::result::Result<Response<admin_v2::GenerateConsistencyTokenResponse>, Status> {
        unimplemented_rpc("GenerateConsistencyToken")
    }

    async fn check_consistency(
        &self,
        _request: Request<admin_v2::CheckConsistencyRequest>,
    ) -> std::result::Result<Response<admin_v2::CheckConsistencyResponse>, Status> {
        unimplemented_rpc("CheckConsistency")
    }

    async fn snapshot_table(
        &self,
        _request: Request<admin_v2::SnapshotTableRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        unimplemented_rpc("SnapshotTable")
    }

    async fn get_snapshot(
        &self,
        _request: Request<admin_v2::GetSnapshotRequest>,
    ) -> std::result::Result<Response<admin_v2::Snapshot>, Status> {
        unimplemented_rpc("GetSnapshot")
    }

    async fn list_snapshots(
        &self,
        _request: Request<admin_v2::ListSnapshotsRequest>,
    ) -> std::result::Result<Response<admin_v2::ListSnapshotsResponse>, Status> {
        unimplemented_rpc("ListSnapshots")
    }

    async fn delete_snapshot(
        &self,
        _request: Request<admin_v2::DeleteSnapshotRequest>,
    ) -> std::result::Result<Response<()>, Status> {
        unimplemented_rpc("DeleteSnapshot")
    }

    async fn create_backup(
        &self,
        _request: Request<admin_v2::CreateBackupRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        unimplemented_rpc("CreateBackup")
    }

    async fn get_backup(
        &self,
        _request: Request<admin_v2::GetBackupRequest>,
    ) -> std::result::Result<Response<admin_v2::Backup>, Status> {
        unimplemented_rpc("GetBackup")
    }

    async fn update_backup(
        &self,
        _request: Request<admin_v2::UpdateBackupRequest>,
    ) -> std::result::Result<Response<admin_v2::Backup>, Status> {
        unimplemented_rpc("UpdateBackup")
    }

    async fn delete_backup(
        &self,
        _request: Request<admin_v2::DeleteBackupRequest>,
    ) -> std::result::Result<Response<()>, Status> {
        unimplemented_rpc("DeleteBackup")
    }

    async fn list_backups(
        &self,
        _request: Request<admin_v2::ListBackupsRequest>,
    ) -> std::result::Result<Response<admin_v2::ListBackupsResponse>, Status> {
        unimplemented_rpc("ListBackups")
    }

    async fn restore_table(
        &self,
        _request: Request<admin_v2::RestoreTableRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        unimplemented_rpc("RestoreTable")
    }

    async fn copy_backup(
        &self,
        _request: Request<admin_v2::CopyBackupRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        unimplemented_rpc("CopyBackup")
    }

    async fn get_iam_policy(
        &self,
        _request: Request<iam::GetIamPolicyRequest>,
    ) -> std::result::Result<Response<iam::Policy>, Status> {
        unimplemented_rpc("GetIamPolicy")
    }

    async fn set_iam_policy(
        &self,
        _request: Request<iam::SetIamPolicyRequest>,
    ) -> std::result::Result<Response<iam::Policy>, Status> {
        unimplemented_rpc("SetIamPolicy")
    }

    async fn test_iam_permissions(
        &self,
        _request: Request<iam::TestIamPermissionsRequest>,
    ) -> std::result::Result<Response<iam::TestIamPermissionsResponse>, Status> {
        unimplemented_rpc("TestIamPermissions")
    }

    async fn create_schema_bundle(
        &self,
        _request: Request<admin_v2::CreateSchemaBundleRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        unimplemented_rpc("CreateSchemaBundle")
    }

    async fn update_schema_bundle(
        &self,
        _request: Request<admin_v2::UpdateSchemaBundleRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        unimplemented_rpc("UpdateSchemaBundle")
    }

    async fn get_schema_bundle(
        &self,
        _request: Request<admin_v2::GetSchemaBundleRequest>,
    ) -> std::result::Result<Response<admin_v2::SchemaBundle>, Status> {
        unimplemented_rpc("GetSchemaBundle")
    }

    async fn list_schema_bundles(
        &self,
        _request: Request<admin_v2::ListSchemaBundlesRequest>,
    ) -> std::result::Result<Response<admin_v2::ListSchemaBundlesResponse>, Status> {
        unimplemented_rpc("ListSchemaBundles")
    }

    async fn delete_schema_bundle(
        &self,
        _request: Request<admin_v2::DeleteSchemaBundleRequest>,
    ) -> std::result::Result<Response<()>, Status> {
        unimplemented_rpc("DeleteSchemaBundle")
    }
}
