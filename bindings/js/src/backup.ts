// Backups as the generated table admin client describes them: the engine's backups plus what
// this layer records about each (its cluster and expiry time).

import { backupName, instanceNamed, timestampOut } from "./admin_common.js";
import { BigtableError, call } from "./errors.js";
import type { Instance } from "./instance.js";

/** What the layer records about a backup beyond the engine's own description: the cluster it
 * is under and its expiry time (microseconds), by instance registry key and backup id. Lives
 * for this JavaScript realm only. */
interface BackupRecord {
  cluster: string;
  expireMicros: bigint;
}
export const backupRecords = new Map<string, BackupRecord>();

export function backupKey(instance: Instance, backupId: string): string {
  return `${instance.bigtable.instanceKey(instance.id)}\u0000${backupId}`;
}

/** The backup proto (`google.bigtable.admin.v2.Backup`) of an engine backup. A backup the
 * layer has no record of (taken through the low-level `Database`, or before a restart with
 * `dataDir`) is under the instance's first cluster and has no expiry time. */
export function backupProto(instance: Instance, info: { name: string; sourceTable: string; createdMicros: string; sizeBytes: string }): Record<string, unknown> & { cluster: string } {
  const record = backupRecords.get(backupKey(instance, info.name));
  const cluster = record?.cluster ?? instance.existing().clusters[0].id;
  const created = timestampOut(BigInt(info.createdMicros));
  const out: Record<string, unknown> & { cluster: string } = {
    cluster,
    name: `${instance.name}/clusters/${cluster}/backups/${info.name}`,
    sourceTable: `${instance.name}/tables/${info.sourceTable}`,
    startTime: created,
    endTime: created,
    sizeBytes: info.sizeBytes,
    state: "READY",
    backupType: "STANDARD",
  };
  if (record) out.expireTime = timestampOut(record.expireMicros);
  return out;
}

/** The backup proto without the layer's bookkeeping field. */
export function publicBackup(b: Record<string, unknown> & { cluster: string }): Record<string, unknown> {
  const { cluster: _cluster, ...rest } = b;
  return rest;
}

/** The backup a backup name names: its instance, engine id and proto. NOT_FOUND if the
 * instance, the cluster or the backup (under that cluster) does not exist. */
export function findBackup(name: unknown, field: string): { instance: Instance; id: string; proto: Record<string, unknown> & { cluster: string } } {
  const n = backupName(name, field);
  const instance = instanceNamed(n.instance);
  const m = instance.existing();
  if (!m.clusters.some((c) => c.id === n.cluster)) throw new BigtableError("NOT_FOUND", `cluster ${n.instance}/clusters/${n.cluster} not found`);
  const info = call(() => instance.db.getBackup(n.backup));
  const proto = backupProto(instance, info);
  if (proto.cluster !== n.cluster) throw new BigtableError("NOT_FOUND", `backup ${String(name)} not found`);
  return { instance, id: n.backup, proto };
}
