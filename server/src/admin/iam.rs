//! The Table Admin API's IAM calls on tables and backups: the instance a resource belongs to,
//! and SetIamPolicy storing the policy with a fresh etag (GetIamPolicy and TestIamPermissions
//! answer from what is stored, in `admin.rs`). Nothing is enforced: the server authenticates
//! no one, as Google's emulator.

use sparsetable::{Error, Result};

use super::AdminService;
use crate::instance_meta::next_etag;
use crate::names::{BackupName, InstanceName, TableName};
use googleapis_tonic_google_bigtable_admin_v2::google::iam::v1 as iam;

/// The etag of a resource's policy before anyone set one: Cloud IAM's (`ACAB` in base64),
/// which clients compare against.
pub(super) const EMPTY_POLICY_ETAG: &[u8] = &[0x00, 0x20, 0x01];

impl AdminService {
    /// The instance holding an IAM resource (a table or a backup), which must exist.
    pub(super) fn iam_instance(&self, field: &str, resource: &str) -> Result<InstanceName> {
        if let Ok(table) = TableName::parse(field, resource) {
            let db = self.instances.database(&table.instance)?;
            db.read(|db| db.get_table(&table.table_id))?;
            return Ok(table.instance);
        }
        let backup = BackupName::parse(field, resource).map_err(|_| {
            Error::invalid_argument(format!(
                "{field} {} must name a table or a backup",
                sparsetable::error::quoted(resource)
            ))
        })?;
        let db = self.instances.database(&backup.cluster.instance)?;
        db.read(|db| db.get_backup(&backup.backup_id))?;
        Ok(backup.cluster.instance)
    }

    /// SetIamPolicy: replaces the resource's policy, unless the request carries the etag of
    /// a policy that has since changed (ABORTED, as Cloud IAM answers a lost race).
    pub(super) fn set_iam_policy_inner(
        &self,
        req: &iam::SetIamPolicyRequest,
    ) -> Result<iam::Policy> {
        let instance = self.iam_instance("resource", &req.resource)?;
        let Some(policy) = &req.policy else {
            return Err(Error::invalid_argument("policy is required"));
        };
        self.instances.update_meta(&instance, |meta| {
            let current = meta
                .policy(&req.resource)
                .map_or_else(|| EMPTY_POLICY_ETAG.to_vec(), |p| p.etag.clone());
            if !policy.etag.is_empty() && policy.etag != current {
                return Err(Error::new(
                    sparsetable::Code::Aborted,
                    "the policy's etag does not match: it changed since it was read; read it again",
                ));
            }
            let mut stored = policy.clone();
            stored.version = stored.version.max(1);
            stored.etag = next_etag().into_bytes();
            meta.set_policy(&req.resource, stored.clone());
            Ok(stored)
        })
    }
}
