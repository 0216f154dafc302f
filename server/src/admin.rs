//! The Table Admin API (`google.bigtable.admin.v2.BigtableTableAdmin`) over the engine.
//!
//! Served: CreateTable (families, GC rules, aggregate value types, deletion protection, initial
//! splits), ListTables (with paging), GetTable, UpdateTable (deletion protection),
//! ModifyColumnFamilies (create, update, drop), DeleteTable, DropRowRange, GenerateConsistencyToken
//! and CheckConsistency (one copy of the data: a token is consistent once issued; a token not
//! issued for the table is INVALID_ARGUMENT), and backups: CreateBackup,
//! GetBackup, ListBackups, DeleteBackup, RestoreTable, and authorized views (create, get, list,
//! update, delete: see [`crate::authorized_views`]). RPCs that answer with a long-running
//! operation return it finished (see [`crate::operations`]). Every other RPC answers
//! UNIMPLEMENTED naming itself.
//!
//! This file holds the service, the tables' calls and the RPC table; the backups' calls and
//! their filter language are in `admin/backups.rs`, the IAM calls in `admin/iam.rs`.
//!
//! Paging: tables and backups are listed in id order; a page token is the id of the last item
//! of the previous page, so a page resumes right after it even if items came or went meanwhile.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use sparsetable::{DropRowRange, Error, Result};

mod backups;
mod iam;

use crate::authorized_views;
use crate::convert::{
    change_stream_config, change_stream_retention, modifications_from_proto,
    table_config_from_proto, table_to_proto, timestamp_to_proto, TableView,
};
use crate::family_order::CreateTableRequestInOrder;
use crate::names::{InstanceName, TableName};
use crate::operations::pack;
use crate::registry::Instances;
use crate::row_key_schema::row_key_schema_from_proto;
use crate::status::{to_status, unimplemented};
use crate::stubs::admin::bigtable_table_admin_server::BigtableTableAdmin;
use crate::stubs::admin_v2;
use crate::table_reply::{ListTablesReply, TableReply};
use googleapis_tonic_google_bigtable_admin_v2::google::iam::v1 as iam_v1;
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

    /// The message of table `info` of `instance` in `view`.
    fn table_reply(
        &self,
        instance: &InstanceName,
        info: &sparsetable::TableInfo,
        view: TableView,
    ) -> Result<TableReply> {
        let clusters = self.instances.clusters_of(instance)?;
        let mut reply = table_to_proto(instance, &clusters, info, view);
        if view.schema() {
            let retention = self.instances.change_stream_of(instance, &info.name)?;
            reply.set_change_stream_config(retention.map(change_stream_config));
        }
        Ok(reply)
    }

    fn create_table_inner(
        &self,
        req: &admin_v2::CreateTableRequest,
        family_order: &[String],
    ) -> Result<TableReply> {
        let instance = InstanceName::parse("parent", &req.parent)?;
        let config =
            table_config_from_proto(req.table.as_ref(), &req.initial_splits, family_order)?;
        let retention = change_stream_retention(
            req.table
                .as_ref()
                .and_then(|t| t.change_stream_config.as_ref()),
        )?;
        let db = self.instances.database(&instance)?;
        let info = db.write(|db| {
            db.create_table(&req.table_id, config)?;
            db.get_table(&req.table_id)
        })?;
        if retention.is_some() {
            self.instances
                .set_change_stream(&instance, &req.table_id, retention)?;
        }
        self.table_reply(&instance, &info, TableView::Schema)
    }

    fn list_tables_inner(&self, req: &admin_v2::ListTablesRequest) -> Result<ListTablesReply> {
        let instance = InstanceName::parse("parent", &req.parent)?;
        let view = TableView::from_proto(req.view, TableView::NameOnly)?;
        let page_size = usize::try_from(req.page_size).map_err(|_| {
            Error::invalid_argument(format!("page_size {} must not be negative", req.page_size))
        })?;
        let db = self.instances.database(&instance)?;
        let tables = db.read(|db| Ok(db.list_tables()))?;
        let mut rest = tables
            .iter()
            .filter(|t| req.page_token.is_empty() || t.name.as_str() > req.page_token.as_str())
            .peekable();
        let mut page = Vec::new();
        while let Some(info) = rest.next_if(|_| page_size == 0 || page.len() < page_size) {
            page.push(self.table_reply(&instance, info, view)?);
        }
        let next_page_token = match rest.peek() {
            Some(_) => tables_last_id(&page, &instance),
            None => String::new(),
        };
        Ok(ListTablesReply {
            tables: page,
            next_page_token,
        })
    }

    fn get_table_inner(&self, req: &admin_v2::GetTableRequest) -> Result<TableReply> {
        let table = TableName::parse("name", &req.name)?;
        let view = TableView::from_proto(req.view, TableView::Schema)?;
        let db = self.instances.database(&table.instance)?;
        let info = db.read(|db| db.get_table(&table.table_id))?;
        self.table_reply(&table.instance, &info, view)
    }

    fn delete_table_inner(&self, req: &admin_v2::DeleteTableRequest) -> Result<()> {
        let table = TableName::parse("name", &req.name)?;
        let db = self.instances.database(&table.instance)?;
        self.instances.with_meta(&table.instance, |meta| {
            authorized_views::check_table_deletable(meta, &table)
        })??;
        db.write(|db| db.delete_table(&table.table_id))?;
        // A table created again under the name starts without the old one's policy or views.
        let resource = table.to_string();
        self.instances.update_meta(&table.instance, |meta| {
            meta.forget_policies_under(&resource);
            meta.change_streams.retain(|c| c.table_id != table.table_id);
            authorized_views::forget_views_of(meta, &table);
            Ok(())
        })
    }

    fn modify_column_families_inner(
        &self,
        req: &admin_v2::ModifyColumnFamiliesRequest,
    ) -> Result<TableReply> {
        let table = TableName::parse("name", &req.name)?;
        let modifications = modifications_from_proto(&req.modifications)?;
        let db = self.instances.database(&table.instance)?;
        let info = db.write(|db| db.modify_column_families(&table.table_id, &modifications))?;
        self.table_reply(&table.instance, &info, TableView::Schema)
    }

    fn update_table_inner(
        &self,
        req: &admin_v2::UpdateTableRequest,
    ) -> Result<longrunning::Operation> {
        let Some(update) = &req.table else {
            return Err(Error::invalid_argument("table is required"));
        };
        let table = TableName::parse("table.name", &update.name)?;
        let paths = req
            .update_mask
            .as_ref()
            .map(|m| m.paths.as_slice())
            .unwrap_or_default();
        if paths.is_empty() {
            return Err(Error::invalid_argument(
                "update_mask must name at least one field to update",
            ));
        }
        let mut change_stream = None;
        let mut row_key_schema = None;
        for path in paths {
            match path.as_str() {
                "deletion_protection" => {}
                // An absent schema in the request removes the table's (with ignore_warnings).
                "row_key_schema" => {
                    row_key_schema = Some(
                        update
                            .row_key_schema
                            .as_ref()
                            .map(|s| row_key_schema_from_proto("table.row_key_schema", s))
                            .transpose()?,
                    );
                }
                "change_stream_config" | "change_stream_config.retention_period" => {
                    change_stream = Some(change_stream_retention(
                        update.change_stream_config.as_ref(),
                    )?);
                }
                "automated_backup_policy"
                | "automated_backup_policy.retention_period"
                | "automated_backup_policy.frequency"
                | "tiered_storage_config" => {
                    return Err(unimplemented(format!("UpdateTable of {path}")))
                }
                other => {
                    return Err(Error::invalid_argument(format!(
                        "update_mask path {other:?} is not an updatable Table field"
                    )))
                }
            }
        }
        let db = self.instances.database(&table.instance)?;
        db.read(|db| db.get_table(&table.table_id))?;
        if let Some(retention) = change_stream {
            self.instances
                .set_change_stream(&table.instance, &table.table_id, retention)?;
        }
        let protect = paths.iter().any(|p| p == "deletion_protection");
        let (info, now) = db.write(|db| {
            // The schema first: it is the change that can be refused, and a refused request
            // must change nothing.
            if let Some(schema) = row_key_schema {
                db.set_row_key_schema(&table.table_id, schema, req.ignore_warnings)?;
            }
            let info = if protect {
                db.set_deletion_protection(&table.table_id, update.deletion_protection)?
            } else {
                db.get_table(&table.table_id)?
            };
            Ok((info, db.now_micros()))
        })?;
        let now = Some(timestamp_to_proto(now));
        let metadata = admin_v2::UpdateTableMetadata {
            name: table.to_string(),
            start_time: now,
            end_time: now,
        };
        Ok(self.instances.operations().finished(
            &table.to_string(),
            pack("google.bigtable.admin.v2.UpdateTableMetadata", &metadata),
            pack(
                "google.bigtable.admin.v2.Table",
                &self.table_reply(&table.instance, &info, TableView::Schema)?,
            ),
        ))
    }

    fn drop_row_range_inner(&self, req: &admin_v2::DropRowRangeRequest) -> Result<()> {
        use admin_v2::drop_row_range_request::Target;
        let table = TableName::parse("name", &req.name)?;
        let range = match &req.target {
            Some(Target::RowKeyPrefix(prefix)) => DropRowRange::Prefix(prefix.clone()),
            Some(Target::DeleteAllDataFromTable(true)) => DropRowRange::All,
            Some(Target::DeleteAllDataFromTable(false)) => {
                return Err(Error::invalid_argument(
                    "delete_all_data_from_table must be true when set",
                ))
            }
            None => {
                return Err(Error::invalid_argument(
                    "one of row_key_prefix or delete_all_data_from_table is required",
                ))
            }
        };
        self.instances
            .plane(&table.instance)?
            .drop_row_range(&table.table_id, &range)
    }

    /// The table a consistency RPC names, checked to exist.
    fn existing_table(&self, name: &str) -> Result<TableName> {
        let table = TableName::parse("name", name)?;
        let db = self.instances.database(&table.instance)?;
        db.read(|db| db.get_table(&table.table_id))?;
        Ok(table)
    }
}

/// Answers an RPC from its `*_inner` function through the one error mapping.
fn answer<T>(outcome: Result<T>) -> std::result::Result<Response<T>, Status> {
    outcome.map(Response::new).map_err(to_status)
}

/// The consistency token of `table` on a single-cluster instance. Writes are visible to every
/// later read at once (one copy of the data), so a token is consistent as soon as it is
/// issued; it names the table so that CheckConsistency can refuse a token that is not this
/// table's. A replicated instance's tokens are the core's (see `sparsetable::Replication`).
fn consistency_token(table: &TableName) -> String {
    format!("sparsetable:{table}")
}

/// The page token after `page`: its last table's id.
fn tables_last_id(page: &[TableReply], instance: &InstanceName) -> String {
    let prefix = format!("{instance}/tables/");
    page.last()
        .and_then(|t| t.name().strip_prefix(&prefix))
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
        request: Request<CreateTableRequestInOrder>,
    ) -> std::result::Result<Response<TableReply>, Status> {
        let r = request.get_ref();
        self.create_table_inner(&r.request, &r.family_order)
            .map(Response::new)
            .map_err(to_status)
    }

    async fn list_tables(
        &self,
        request: Request<admin_v2::ListTablesRequest>,
    ) -> std::result::Result<Response<ListTablesReply>, Status> {
        self.list_tables_inner(request.get_ref())
            .map(Response::new)
            .map_err(to_status)
    }

    async fn get_table(
        &self,
        request: Request<admin_v2::GetTableRequest>,
    ) -> std::result::Result<Response<TableReply>, Status> {
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
    ) -> std::result::Result<Response<TableReply>, Status> {
        self.modify_column_families_inner(request.get_ref())
            .map(Response::new)
            .map_err(to_status)
    }

    // Everything below is not served: the engine has no such feature.

    async fn create_table_from_snapshot(
        &self,
        _request: Request<admin_v2::CreateTableFromSnapshotRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        unimplemented_rpc("CreateTableFromSnapshot")
    }

    async fn update_table(
        &self,
        request: Request<admin_v2::UpdateTableRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        answer(self.update_table_inner(request.get_ref()))
    }

    async fn undelete_table(
        &self,
        _request: Request<admin_v2::UndeleteTableRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        unimplemented_rpc("UndeleteTable")
    }

    async fn create_authorized_view(
        &self,
        request: Request<admin_v2::CreateAuthorizedViewRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        answer(authorized_views::create(&self.instances, request.get_ref()))
    }

    async fn list_authorized_views(
        &self,
        request: Request<admin_v2::ListAuthorizedViewsRequest>,
    ) -> std::result::Result<Response<admin_v2::ListAuthorizedViewsResponse>, Status> {
        answer(authorized_views::list(&self.instances, request.get_ref()))
    }

    async fn get_authorized_view(
        &self,
        request: Request<admin_v2::GetAuthorizedViewRequest>,
    ) -> std::result::Result<Response<admin_v2::AuthorizedView>, Status> {
        answer(authorized_views::get(&self.instances, request.get_ref()))
    }

    async fn update_authorized_view(
        &self,
        request: Request<admin_v2::UpdateAuthorizedViewRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        answer(authorized_views::update(&self.instances, request.get_ref()))
    }

    async fn delete_authorized_view(
        &self,
        request: Request<admin_v2::DeleteAuthorizedViewRequest>,
    ) -> std::result::Result<Response<()>, Status> {
        answer(authorized_views::delete(&self.instances, request.get_ref()))
    }

    async fn drop_row_range(
        &self,
        request: Request<admin_v2::DropRowRangeRequest>,
    ) -> std::result::Result<Response<()>, Status> {
        answer(self.drop_row_range_inner(request.get_ref()))
    }

    async fn generate_consistency_token(
        &self,
        request: Request<admin_v2::GenerateConsistencyTokenRequest>,
    ) -> std::result::Result<Response<admin_v2::GenerateConsistencyTokenResponse>, Status> {
        answer(
            self.existing_table(&request.get_ref().name)
                .and_then(|table| {
                    let consistency_token = match self.instances.replicated(&table.instance)? {
                        Some(rep) => rep.consistency_token(&table.table_id)?,
                        None => consistency_token(&table),
                    };
                    Ok(admin_v2::GenerateConsistencyTokenResponse { consistency_token })
                }),
        )
    }

    async fn check_consistency(
        &self,
        request: Request<admin_v2::CheckConsistencyRequest>,
    ) -> std::result::Result<Response<admin_v2::CheckConsistencyResponse>, Status> {
        let req = request.get_ref();
        answer(self.existing_table(&req.name).and_then(|table| {
            if req.consistency_token.is_empty() {
                return Err(Error::invalid_argument("consistency_token is required"));
            }
            if let Some(rep) = self.instances.replicated(&table.instance)? {
                use admin_v2::check_consistency_request::Mode;
                let data_boost = matches!(req.mode, Some(Mode::DataBoostReadLocalWrites(_)));
                let consistent =
                    rep.check_consistency(&table.table_id, &req.consistency_token, data_boost)?;
                return Ok(admin_v2::CheckConsistencyResponse { consistent });
            }
            // As Cloud Bigtable: a token this table's GenerateConsistencyToken did not issue
            // is refused, not reported consistent.
            if req.consistency_token != consistency_token(&table) {
                return Err(Error::invalid_argument(format!(
                    "consistency_token {:?} was not issued for table {table}",
                    req.consistency_token.chars().take(64).collect::<String>()
                )));
            }
            Ok(admin_v2::CheckConsistencyResponse { consistent: true })
        }))
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
        request: Request<admin_v2::CreateBackupRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        answer(self.create_backup_inner(request.get_ref()))
    }

    async fn get_backup(
        &self,
        request: Request<admin_v2::GetBackupRequest>,
    ) -> std::result::Result<Response<admin_v2::Backup>, Status> {
        answer(self.get_backup_inner(request.get_ref()))
    }

    async fn update_backup(
        &self,
        request: Request<admin_v2::UpdateBackupRequest>,
    ) -> std::result::Result<Response<admin_v2::Backup>, Status> {
        self.update_backup_inner(request.get_ref())
            .map(Response::new)
            .map_err(to_status)
    }

    async fn delete_backup(
        &self,
        request: Request<admin_v2::DeleteBackupRequest>,
    ) -> std::result::Result<Response<()>, Status> {
        answer(self.delete_backup_inner(request.get_ref()))
    }

    async fn list_backups(
        &self,
        request: Request<admin_v2::ListBackupsRequest>,
    ) -> std::result::Result<Response<admin_v2::ListBackupsResponse>, Status> {
        answer(self.list_backups_inner(request.get_ref()))
    }

    async fn restore_table(
        &self,
        request: Request<admin_v2::RestoreTableRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        answer(self.restore_table_inner(request.get_ref()))
    }

    async fn copy_backup(
        &self,
        _request: Request<admin_v2::CopyBackupRequest>,
    ) -> std::result::Result<Response<longrunning::Operation>, Status> {
        unimplemented_rpc("CopyBackup")
    }

    async fn get_iam_policy(
        &self,
        request: Request<iam_v1::GetIamPolicyRequest>,
    ) -> std::result::Result<Response<iam_v1::Policy>, Status> {
        let req = request.get_ref();
        self.iam_instance("resource", &req.resource)
            .and_then(|instance| {
                let meta = self.instances.meta_of(&instance)?;
                // Before anyone sets one: version 0 and Cloud IAM's etag for it.
                Ok(meta
                    .policy(&req.resource)
                    .cloned()
                    .unwrap_or(iam_v1::Policy {
                        version: 0,
                        etag: iam::EMPTY_POLICY_ETAG.to_vec(),
                        ..Default::default()
                    }))
            })
            .map(Response::new)
            .map_err(to_status)
    }

    async fn set_iam_policy(
        &self,
        request: Request<iam_v1::SetIamPolicyRequest>,
    ) -> std::result::Result<Response<iam_v1::Policy>, Status> {
        let req = request.get_ref();
        self.set_iam_policy_inner(req)
            .map(Response::new)
            .map_err(to_status)
    }

    async fn test_iam_permissions(
        &self,
        request: Request<iam_v1::TestIamPermissionsRequest>,
    ) -> std::result::Result<Response<iam_v1::TestIamPermissionsResponse>, Status> {
        let req = request.get_ref();
        self.iam_instance("resource", &req.resource)
            .map(|_| {
                // This server authenticates nobody, so every caller holds every permission.
                Response::new(iam_v1::TestIamPermissionsResponse {
                    permissions: req.permissions.clone(),
                })
            })
            .map_err(to_status)
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
