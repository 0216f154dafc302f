//! The Table Admin API's backups: CreateBackup, GetBackup, UpdateBackup, ListBackups (with the
//! filter language below), DeleteBackup and RestoreTable, as `AdminService` methods the RPCs in
//! `admin.rs` answer through. A backup is the engine's snapshot of a table; its record (expire
//! time, the cluster it was made in) lives in the instance's metadata.

use sparsetable::{Error, Result};

use super::AdminService;
use crate::convert::{backup_to_proto, timestamp_to_proto, TableView};
use crate::instance_meta::BackupRecord;
use crate::names::{BackupName, ClusterName, InstanceName, TableName};
use crate::operations::pack;
use crate::status::unimplemented;
use crate::stubs::admin_v2;
use googleapis_tonic_google_bigtable_admin_v2::google::longrunning;

impl AdminService {
    pub(super) fn create_backup_inner(
        &self,
        req: &admin_v2::CreateBackupRequest,
    ) -> Result<longrunning::Operation> {
        let cluster = ClusterName::parse("parent", &req.parent)?;
        let Some(backup) = &req.backup else {
            return Err(Error::invalid_argument("backup is required"));
        };
        let source = TableName::parse("backup.source_table", &backup.source_table)?;
        if source.instance != cluster.instance {
            return Err(Error::invalid_argument(format!(
                "backup.source_table {:?} must be a table of {}",
                backup.source_table, cluster.instance
            )));
        }
        if backup.expire_time.is_none() {
            return Err(Error::invalid_argument("backup.expire_time is required"));
        }
        let name = cluster.backup(&req.backup_id);
        let db = self.instances.database(&cluster.instance)?;
        let info = db.write(|db| db.create_backup(&source.table_id, &req.backup_id))?;
        self.instances.update_meta(&cluster.instance, |meta| {
            meta.set_backup(BackupRecord {
                backup_id: req.backup_id.clone(),
                cluster_id: cluster.cluster.clone(),
                expire_time: backup.expire_time,
            });
            Ok(())
        })?;
        let taken = Some(timestamp_to_proto(info.created_micros));
        let metadata = admin_v2::CreateBackupMetadata {
            name: name.to_string(),
            source_table: source.to_string(),
            start_time: taken,
            end_time: taken,
        };
        Ok(self.instances.operations().finished(
            &name.to_string(),
            pack("google.bigtable.admin.v2.CreateBackupMetadata", &metadata),
            pack(
                "google.bigtable.admin.v2.Backup",
                &backup_to_proto(&name, &info, backup.expire_time),
            ),
        ))
    }

    pub(super) fn get_backup_inner(
        &self,
        req: &admin_v2::GetBackupRequest,
    ) -> Result<admin_v2::Backup> {
        let name = BackupName::parse("name", &req.name)?;
        let db = self.instances.database(&name.cluster.instance)?;
        let info = db.read(|db| db.get_backup(&name.backup_id))?;
        let meta = self.instances.meta_of(&name.cluster.instance)?;
        let expire = meta.backup(&name.backup_id).and_then(|b| b.expire_time);
        Ok(backup_to_proto(&name, &info, expire))
    }

    /// UpdateBackup: the expire time is the one field a backup's owner can change.
    pub(super) fn update_backup_inner(
        &self,
        req: &admin_v2::UpdateBackupRequest,
    ) -> Result<admin_v2::Backup> {
        let Some(update) = &req.backup else {
            return Err(Error::invalid_argument("backup is required"));
        };
        let name = BackupName::parse("backup.name", &update.name)?;
        let paths = req
            .update_mask
            .as_ref()
            .map(|m| m.paths.as_slice())
            .unwrap_or_default();
        if paths != ["expire_time"] {
            return Err(Error::invalid_argument(
                "update_mask must be [\"expire_time\"]: the expire time is the one field UpdateBackup changes",
            ));
        }
        if update.expire_time.is_none() {
            return Err(Error::invalid_argument("backup.expire_time is required"));
        }
        let db = self.instances.database(&name.cluster.instance)?;
        let info = db.read(|db| db.get_backup(&name.backup_id))?;
        self.instances.update_meta(&name.cluster.instance, |meta| {
            let cluster_id = meta
                .backup(&name.backup_id)
                .map_or_else(|| name.cluster.cluster.clone(), |b| b.cluster_id.clone());
            meta.set_backup(BackupRecord {
                backup_id: name.backup_id.clone(),
                cluster_id,
                expire_time: update.expire_time,
            });
            Ok(())
        })?;
        Ok(backup_to_proto(&name, &info, update.expire_time))
    }

    pub(super) fn list_backups_inner(
        &self,
        req: &admin_v2::ListBackupsRequest,
    ) -> Result<admin_v2::ListBackupsResponse> {
        let cluster = ClusterName::parse("parent", &req.parent)?;
        let filter = BackupFilter::parse(&req.filter)?;
        if !req.order_by.is_empty() {
            return Err(unimplemented("ListBackups' order_by"));
        }
        let page_size = usize::try_from(req.page_size).map_err(|_| {
            Error::invalid_argument(format!("page_size {} must not be negative", req.page_size))
        })?;
        let db = self.instances.database(&cluster.instance)?;
        let backups = db.read(|db| Ok(db.list_backups()))?;
        let meta = self.instances.meta_of(&cluster.instance)?;
        // A backup is listed under the cluster it was created in (`-` lists every cluster's).
        let named = |info: &sparsetable::BackupInfo| {
            let record = meta.backup(&info.name);
            let in_cluster = record.map_or(cluster.cluster.as_str(), |r| r.cluster_id.as_str());
            let wanted = cluster.cluster == "-" || cluster.cluster == in_cluster;
            let name = ClusterName {
                instance: cluster.instance.clone(),
                cluster: if cluster.cluster == "-" {
                    in_cluster.to_string()
                } else {
                    cluster.cluster.clone()
                },
            }
            .backup(&info.name);
            wanted.then(|| backup_to_proto(&name, info, record.and_then(|r| r.expire_time)))
        };
        let mut rest = backups
            .iter()
            .filter(|b| req.page_token.is_empty() || b.name.as_str() > req.page_token.as_str())
            .filter_map(|info| named(info).map(|proto| (info, proto)))
            .filter(|(_, proto)| filter.matches(proto))
            .peekable();
        let mut page = Vec::new();
        while let Some(item) = rest.next_if(|_| page_size == 0 || page.len() < page_size) {
            page.push(item);
        }
        let next_page_token = match (rest.peek(), page.last()) {
            (Some(_), Some((last, _))) => last.name.clone(),
            _ => String::new(),
        };
        Ok(admin_v2::ListBackupsResponse {
            backups: page.into_iter().map(|(_, proto)| proto).collect(),
            next_page_token,
        })
    }

    pub(super) fn delete_backup_inner(&self, req: &admin_v2::DeleteBackupRequest) -> Result<()> {
        let name = BackupName::parse("name", &req.name)?;
        let db = self.instances.database(&name.cluster.instance)?;
        db.write(|db| db.delete_backup(&name.backup_id))?;
        let resource = name.to_string();
        self.instances.update_meta(&name.cluster.instance, |meta| {
            meta.backups.retain(|b| b.backup_id != name.backup_id);
            meta.forget_policies_under(&resource);
            Ok(())
        })
    }

    pub(super) fn restore_table_inner(
        &self,
        req: &admin_v2::RestoreTableRequest,
    ) -> Result<longrunning::Operation> {
        use admin_v2::restore_table_request::Source;
        let instance = InstanceName::parse("parent", &req.parent)?;
        let Some(Source::Backup(backup)) = &req.source else {
            return Err(Error::invalid_argument("backup is required"));
        };
        let backup = BackupName::parse("backup", backup)?;
        if backup.cluster.instance != instance {
            return Err(unimplemented(
                "RestoreTable from a backup of another instance",
            ));
        }
        let db = self.instances.database(&instance)?;
        let (source, info) = db.write(|db| {
            let source = db.get_backup(&backup.backup_id)?;
            let info = db.restore_table(&backup.backup_id, &req.table_id)?;
            Ok((source, info))
        })?;
        let table = instance.table(&req.table_id);
        let taken = Some(timestamp_to_proto(source.created_micros));
        let metadata = admin_v2::RestoreTableMetadata {
            name: table.to_string(),
            source_type: admin_v2::RestoreSourceType::Backup as i32,
            source_info: Some(admin_v2::restore_table_metadata::SourceInfo::BackupInfo(
                admin_v2::BackupInfo {
                    backup: backup.backup_id.clone(),
                    start_time: taken,
                    end_time: taken,
                    source_table: instance.table(&source.source_table).to_string(),
                    source_backup: String::new(),
                },
            )),
            ..Default::default()
        };
        Ok(self.instances.operations().finished(
            &table.to_string(),
            pack("google.bigtable.admin.v2.RestoreTableMetadata", &metadata),
            pack(
                "google.bigtable.admin.v2.Table",
                &self.table_reply(&instance, &info, TableView::Schema)?,
            ),
        ))
    }
}

/// A ListBackups filter: comparisons joined by `AND` (Cloud Bigtable's filter language, the
/// part of it that applies to one machine's backups). Each comparison is `field op value`,
/// the value optionally in double quotes: `name` and `source_table` with `:` (contains), `=`
/// or `!=`; `state` with `:`, `=` or `!=` (`READY`, `CREATING`); `size_bytes` with `=`, `!=`, `<`,
/// `<=`, `>` or `>=`. Anything else (`OR`, parentheses, the time fields) is INVALID_ARGUMENT
/// naming what is not supported, never a silently wrong list.
struct BackupFilter {
    terms: Vec<(String, String, String)>,
}

impl BackupFilter {
    fn parse(filter: &str) -> Result<Self> {
        let mut terms = Vec::new();
        for term in filter
            .split(" AND ")
            .map(str::trim)
            .filter(|t| !t.is_empty())
        {
            // `(a) AND (b)`, as Google's clients join a table's filter with the caller's.
            let term = term
                .strip_prefix('(')
                .and_then(|t| t.strip_suffix(')'))
                .map_or(term, str::trim);
            let bad = |why: &str| {
                Error::invalid_argument(format!(
                    "filter: {why} in {}",
                    sparsetable::error::quoted(term)
                ))
            };
            if term.contains(" OR ") || term.contains(['(', ')']) || term.starts_with("NOT ") {
                return Err(bad("only comparisons joined by AND are supported"));
            }
            let at = term
                .find(['=', '!', '<', '>', ':'])
                .ok_or_else(|| bad("no comparison operator"))?;
            let (field, rest) = term.split_at(at);
            let op_len =
                if rest.starts_with("!=") || rest.starts_with("<=") || rest.starts_with(">=") {
                    2
                } else {
                    1
                };
            let (op, value) = rest.split_at(op_len);
            let field = field.trim();
            let value = value.trim();
            let value = value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or(value);
            let allowed: &[&str] = match field {
                "name" | "source_table" => &[":", "=", "!="],
                "state" => &[":", "=", "!="],
                "size_bytes" => &["=", "!=", "<", "<=", ">", ">="],
                _ => {
                    return Err(bad(
                        "the field can be name, source_table, state or size_bytes",
                    ))
                }
            };
            if !allowed.contains(&op) {
                return Err(bad("this operator does not apply to the field"));
            }
            if field == "size_bytes" && value.parse::<i64>().is_err() {
                return Err(bad("size_bytes compares with an integer"));
            }
            if field == "state" && !matches!(value, "READY" | "CREATING") {
                return Err(bad("state is READY or CREATING"));
            }
            terms.push((field.to_string(), op.to_string(), value.to_string()));
        }
        Ok(BackupFilter { terms })
    }

    fn matches(&self, backup: &admin_v2::Backup) -> bool {
        self.terms.iter().all(|(field, op, value)| {
            let text = |actual: &str| match op.as_str() {
                ":" if field == "state" => actual == value,
                ":" => actual.contains(value.as_str()),
                "=" => actual == value,
                _ => actual != value,
            };
            match field.as_str() {
                "name" => text(&backup.name),
                "source_table" => text(&backup.source_table),
                "state" => {
                    let state = admin_v2::backup::State::try_from(backup.state)
                        .map_or("", |s| s.as_str_name());
                    text(state)
                }
                _ => {
                    let wanted: i64 = value.parse().unwrap_or(0);
                    let size = backup.size_bytes;
                    match op.as_str() {
                        "=" => size == wanted,
                        "!=" => size != wanted,
                        "<" => size < wanted,
                        "<=" => size <= wanted,
                        ">" => size > wanted,
                        _ => size >= wanted,
                    }
                }
            }
        })
    }
}
