//! The stored form of an [`InstanceRecord`]: the `INSTANCE` file of an instance's folder
//! (docs/format/instance.md). Version 2 is the base; version 3 adds the logical views after
//! the app profiles; version 4 adds the continuous materialized views' definitions after
//! those. A writer writes the lowest version that holds the record (an instance without
//! views stays version 2, readable by readers of version 2); a reader reads all three. It
//! carries the record and, after it, an extension:
//! bytes the core keeps but does not read, in which a front-end stores what only it knows
//! (the server: IAM policies, backup records, authorized views and the admin fields the
//! model does not have). A front-end that rewrites a file another front-end wrote keeps the
//! extension as it found it, so the npm package and the server can share a data directory.
//!
//! Invariants: [`decode_file`] never panics; it answers `DataLoss` for a file that is not a
//! version-2, -3 or -4 record (bad magic, checksum, truncation, trailing bytes, an enum out
//! of range) or whose record breaks the model's invariants (no cluster, an id twice, a
//! profile routing to a cluster the instance lacks). Version 1 (the server's protobuf form)
//! is recognised by its magic ([`INSTANCE_FILE_MAGIC_V1`]) and left to the server, which
//! wrote it.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use super::logical_views::LogicalViewRecord;
use super::materialized_views::MaterializedViewRecord;
use super::record::{
    AppProfileRecord, Autoscaling, ClusterRecord, InstanceRecord, InstanceType, StorageType,
};
use crate::api::replication::{Isolation, Routing};
use crate::codec::encoding::{
    put_bool, put_bytes, put_fixed32, put_len, put_str, put_u8, put_varint64, put_varint_i64,
    Decoder, CRC32C,
};
use crate::{Code, Error, Result};

/// The file's name in an instance's folder.
pub const INSTANCE_FILE: &str = "INSTANCE";
/// The first bytes of a version-2 file.
pub const INSTANCE_FILE_MAGIC: &[u8] = b"sparsetable-instance 2\n";
/// The first bytes of a version-3 file (version 2 with logical views).
pub const INSTANCE_FILE_MAGIC_V3: &[u8] = b"sparsetable-instance 3\n";
/// The first bytes of a version-4 file (version 3 with materialized views).
pub const INSTANCE_FILE_MAGIC_V4: &[u8] = b"sparsetable-instance 4\n";
/// The first bytes of a version-1 file (the server's protobuf form, read by the server).
pub const INSTANCE_FILE_MAGIC_V1: &[u8] = b"sparsetable-instance 1\n";
/// Largest file accepted.
pub const MAX_INSTANCE_FILE_BYTES: usize = 16 << 20;

/// A decoded file: the record and the extension bytes kept for the front-end that wrote them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredInstance {
    /// The instance.
    pub record: InstanceRecord,
    /// A front-end's own bytes (empty when none).
    pub extension: Vec<u8>,
}

/// The version of the file [`encode_file`] writes for `record`: the lowest that holds it.
pub fn file_version(record: &InstanceRecord) -> u8 {
    if !record.materialized_views.is_empty() {
        4
    } else if !record.logical_views.is_empty() {
        3
    } else {
        2
    }
}

/// The version of a file by its magic (1 to 4); `None` for bytes that are no instance file.
pub fn version_of(bytes: &[u8]) -> Option<u8> {
    [
        (INSTANCE_FILE_MAGIC_V1, 1),
        (INSTANCE_FILE_MAGIC, 2),
        (INSTANCE_FILE_MAGIC_V3, 3),
        (INSTANCE_FILE_MAGIC_V4, 4),
    ]
    .into_iter()
    .find(|(magic, _)| bytes.starts_with(magic))
    .map(|(_, v)| v)
}

/// The file for `record`, with `extension` after it, in the version [`file_version`] says.
pub fn encode_file(record: &InstanceRecord, extension: &[u8]) -> Vec<u8> {
    let version = file_version(record);
    let mut out = match version {
        4 => INSTANCE_FILE_MAGIC_V4.to_vec(),
        3 => INSTANCE_FILE_MAGIC_V3.to_vec(),
        _ => INSTANCE_FILE_MAGIC.to_vec(),
    };
    put_str(&mut out, &record.project);
    put_str(&mut out, &record.id);
    put_str(&mut out, &record.display_name);
    put_u8(
        &mut out,
        match record.kind {
            InstanceType::Production => 0,
            InstanceType::Development => 1,
        },
    );
    put_varint_i64(&mut out, record.create_time_micros);
    put_varint64(&mut out, record.etag_counter);
    put_len(&mut out, record.labels.len());
    for (k, v) in &record.labels {
        put_str(&mut out, k);
        put_str(&mut out, v);
    }
    put_len(&mut out, record.clusters.len());
    for c in &record.clusters {
        put_str(&mut out, &c.id);
        put_str(&mut out, &c.zone);
        put_varint_i64(&mut out, i64::from(c.serve_nodes));
        put_u8(
            &mut out,
            match c.storage {
                StorageType::Ssd => 0,
                StorageType::Hdd => 1,
            },
        );
        put_bool(&mut out, c.autoscaling.is_some());
        if let Some(a) = &c.autoscaling {
            for n in [
                a.min_nodes,
                a.max_nodes,
                a.cpu_percent,
                a.storage_gib_per_node,
            ] {
                put_varint_i64(&mut out, i64::from(n));
            }
        }
    }
    put_len(&mut out, record.app_profiles.len());
    for p in &record.app_profiles {
        put_str(&mut out, &p.id);
        put_str(&mut out, &p.description);
        put_str(&mut out, &p.etag);
        match &p.routing {
            Routing::SingleCluster {
                cluster_id,
                allow_transactional_writes,
            } => {
                put_u8(&mut out, 0);
                put_str(&mut out, cluster_id);
                put_bool(&mut out, *allow_transactional_writes);
            }
            Routing::MultiCluster {
                cluster_ids,
                row_affinity,
            } => {
                put_u8(&mut out, 1);
                put_len(&mut out, cluster_ids.len());
                for id in cluster_ids {
                    put_str(&mut out, id);
                }
                put_bool(&mut out, *row_affinity);
            }
        }
        put_u8(
            &mut out,
            match p.isolation {
                Isolation::Standard => 0,
                Isolation::DataBoostReadOnly => 1,
            },
        );
    }
    if version >= 3 {
        put_len(&mut out, record.logical_views.len());
        for v in &record.logical_views {
            put_str(&mut out, &v.id);
            put_str(&mut out, &v.query);
            put_str(&mut out, &v.etag);
            put_bool(&mut out, v.deletion_protection);
        }
    }
    if version >= 4 {
        put_len(&mut out, record.materialized_views.len());
        for v in &record.materialized_views {
            put_str(&mut out, &v.id);
            put_str(&mut out, &v.query);
            put_str(&mut out, &v.etag);
            put_bool(&mut out, v.deletion_protection);
        }
    }
    put_bytes(&mut out, extension);
    let crc = CRC32C.checksum(&out);
    put_fixed32(&mut out, crc);
    out
}

fn i32_field(d: &mut Decoder<'_>, what: &str) -> Result<i32> {
    let v = d.varint_i64(what)?;
    i32::try_from(v).map_err(|_| d.error(alloc::format!("{what} {v} is out of range")))
}

/// Reads a version-2, -3 or -4 file.
///
/// # Errors
/// `DataLoss` naming what is wrong (see the module docs); for a version-1 file, `DataLoss`
/// saying so (the server reads those itself).
pub fn decode_file(bytes: &[u8]) -> Result<StoredInstance> {
    let bad = |what: &str| Error::new(Code::DataLoss, alloc::format!("{INSTANCE_FILE}: {what}"));
    if bytes.len() > MAX_INSTANCE_FILE_BYTES {
        return Err(bad("larger than any instance file"));
    }
    if bytes.starts_with(INSTANCE_FILE_MAGIC_V1) {
        return Err(bad(
            "is version 1 (sparsetable-server's protobuf form), which only the server reads",
        ));
    }
    let body_len = bytes
        .len()
        .checked_sub(4)
        .filter(|&n| n >= INSTANCE_FILE_MAGIC.len())
        .ok_or_else(|| bad("too short"))?;
    let (body, crc) = bytes.split_at(body_len);
    let stored = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
    let (rest, version) = match version_of(body) {
        Some(v @ 2..=4) => (&body[INSTANCE_FILE_MAGIC.len()..], v),
        _ => return Err(bad("not an instance file (magic)")),
    };
    if CRC32C.checksum(body) != stored {
        return Err(bad("checksum mismatch"));
    }
    let mut d = Decoder::new(rest);
    let in_file = |e: Error| bad(e.message());
    let project = d.string("project").map_err(in_file)?;
    let id = d.string("instance id").map_err(in_file)?;
    let display_name = d.string("display name").map_err(in_file)?;
    let kind = match d.u8("type").map_err(in_file)? {
        0 => InstanceType::Production,
        1 => InstanceType::Development,
        _ => return Err(bad("unknown instance type")),
    };
    let create_time_micros = d.varint_i64("create time").map_err(in_file)?;
    let etag_counter = d.varint64("etag counter").map_err(in_file)?;
    let n = d.count(2, "label count").map_err(in_file)?;
    let mut labels = BTreeMap::new();
    for _ in 0..n {
        let k = d.string("label key").map_err(in_file)?;
        let v = d.string("label value").map_err(in_file)?;
        labels.insert(k, v);
    }
    let n = d.count(5, "cluster count").map_err(in_file)?;
    let mut clusters: Vec<ClusterRecord> = Vec::with_capacity(n);
    for _ in 0..n {
        let id = d.string("cluster id").map_err(in_file)?;
        let zone = d.string("zone").map_err(in_file)?;
        let serve_nodes = i32_field(&mut d, "serve nodes").map_err(in_file)?;
        let storage = match d.u8("storage type").map_err(in_file)? {
            0 => StorageType::Ssd,
            1 => StorageType::Hdd,
            _ => return Err(bad("unknown storage type")),
        };
        let autoscaling = if d.bool("autoscaling flag").map_err(in_file)? {
            Some(Autoscaling {
                min_nodes: i32_field(&mut d, "min nodes").map_err(in_file)?,
                max_nodes: i32_field(&mut d, "max nodes").map_err(in_file)?,
                cpu_percent: i32_field(&mut d, "cpu target").map_err(in_file)?,
                storage_gib_per_node: i32_field(&mut d, "storage target").map_err(in_file)?,
            })
        } else {
            None
        };
        clusters.push(ClusterRecord {
            id,
            zone,
            serve_nodes,
            storage,
            autoscaling,
        });
    }
    let n = d.count(5, "app profile count").map_err(in_file)?;
    let mut app_profiles: Vec<AppProfileRecord> = Vec::with_capacity(n);
    for _ in 0..n {
        let id = d.string("app profile id").map_err(in_file)?;
        let description = d.string("description").map_err(in_file)?;
        let etag = d.string("etag").map_err(in_file)?;
        let routing = match d.u8("routing").map_err(in_file)? {
            0 => Routing::SingleCluster {
                cluster_id: d.string("routing cluster").map_err(in_file)?,
                allow_transactional_writes: d.bool("transactions flag").map_err(in_file)?,
            },
            1 => {
                let m = d.count(1, "routing cluster count").map_err(in_file)?;
                let mut cluster_ids = Vec::with_capacity(m);
                for _ in 0..m {
                    cluster_ids.push(d.string("routing cluster").map_err(in_file)?);
                }
                Routing::MultiCluster {
                    cluster_ids,
                    row_affinity: d.bool("row affinity").map_err(in_file)?,
                }
            }
            _ => return Err(bad("unknown routing policy")),
        };
        let isolation = match d.u8("isolation").map_err(in_file)? {
            0 => Isolation::Standard,
            1 => Isolation::DataBoostReadOnly,
            _ => return Err(bad("unknown isolation")),
        };
        app_profiles.push(AppProfileRecord {
            id,
            description,
            etag,
            routing,
            isolation,
        });
    }
    let mut logical_views: Vec<LogicalViewRecord> = Vec::new();
    if version >= 3 {
        let n = d.count(4, "logical view count").map_err(in_file)?;
        for _ in 0..n {
            logical_views.push(LogicalViewRecord {
                id: d.string("logical view id").map_err(in_file)?,
                query: d.string("logical view query").map_err(in_file)?,
                etag: d.string("logical view etag").map_err(in_file)?,
                deletion_protection: d.bool("deletion protection").map_err(in_file)?,
            });
        }
    }
    let mut materialized_views: Vec<MaterializedViewRecord> = Vec::new();
    if version >= 4 {
        let n = d.count(4, "materialized view count").map_err(in_file)?;
        for _ in 0..n {
            materialized_views.push(MaterializedViewRecord {
                id: d.string("materialized view id").map_err(in_file)?,
                query: d.string("materialized view query").map_err(in_file)?,
                etag: d.string("materialized view etag").map_err(in_file)?,
                deletion_protection: d.bool("deletion protection").map_err(in_file)?,
            });
        }
    }
    let extension = d.byte_vec("extension").map_err(in_file)?;
    d.finish("instance file").map_err(in_file)?;
    let record = InstanceRecord {
        project,
        id,
        display_name,
        kind,
        labels,
        create_time_micros,
        clusters,
        app_profiles,
        logical_views,
        materialized_views,
        etag_counter,
    };
    record.check_invariants().map_err(|e| bad(e.message()))?;
    Ok(StoredInstance { record, extension })
}
