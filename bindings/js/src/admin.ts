// `admin` and `v2` as the Node client exports them: the generated clients, `GcRuleBuilder`,
// and the handwritten `TableAdminClient` / `InstanceAdminClient`.

import { sleep } from "./callback.js";
import { showRule } from "./admin_common.js";
import { BigtableError } from "./errors.js";
import { BigtableInstanceAdminClient } from "./instance_admin.js";
import { BigtableTableAdminClient } from "./table_admin.js";

/** As `require("@google-cloud/bigtable").v2`: the generated clients (here the table admin's
 * table, backup and consistency calls, and the instance admin's instance, cluster and app
 * profile calls). */
export const v2 = { BigtableTableAdminClient, BigtableInstanceAdminClient };

/** A GC rule in the admin protos' JSON form, as `GcRuleBuilder` builds it. */
export type GcRuleProto = Record<string, unknown>;

/** What a GC rule object is: one condition (`maxNumVersions`, `maxAge`, ...), a grouping
 * (`union` or `intersection` alone), or neither (empty, mixed, or not an object). */
function gcRuleShape(rule: unknown): "condition" | "grouping" | "malformed" {
  if (rule === null || typeof rule !== "object" || Array.isArray(rule)) return "malformed";
  const keys = Object.keys(rule);
  const groupings = keys.filter((k) => k === "union" || k === "intersection").length;
  if (groupings === 1 && keys.length === 1) return "grouping";
  if (groupings === 0 && keys.length === 1) return "condition";
  return "malformed";
}

/** A member of a union or intersection: a condition or a grouping. */
function gcGroupMember(rule: GcRuleProto): GcRuleProto {
  if (gcRuleShape(rule) === "malformed") {
    throw new BigtableError(
      "INVALID_ARGUMENT",
      `a GC rule in a union or intersection must hold one condition or one grouping; got ${showRule(rule)}`,
    );
  }
  return rule;
}

/** As the client's `admin.GcRuleBuilder`: GC rules in the admin protos' form for the admin
 * clients' `createTable` and `modifyColumnFamilies`. `rule` takes one condition and returns
 * it; `union` and `intersection` take conditions or groupings and wrap them. A malformed rule
 * (several conditions in one object, a grouping where a condition belongs, an empty object)
 * throws INVALID_ARGUMENT here, before any request. */
export class GcRuleBuilder {
  static rule(rule: GcRuleProto): GcRuleProto {
    if (gcRuleShape(rule) !== "condition") {
      throw new BigtableError(
        "INVALID_ARGUMENT",
        `GcRuleBuilder.rule takes an object with exactly one condition (for more than one, use union or intersection); got ${showRule(rule)}`,
      );
    }
    return rule;
  }

  static union(...rules: GcRuleProto[]): GcRuleProto {
    return { union: { rules: rules.map(gcGroupMember) } };
  }

  static intersection(...rules: GcRuleProto[]): GcRuleProto {
    return { intersection: { rules: rules.map(gcGroupMember) } };
  }
}

/** As the client's `admin.TableAdminClient`: the generated table admin client's calls plus
 * `waitForConsistency`. */
export class TableAdminClient extends BigtableTableAdminClient {
  /** Resolves once table `name` is consistent for `consistencyToken` (one is generated when
   * none is given): CheckConsistency polled every 100 ms of real time (at once with one
   * cluster; on a manual clock the lag passes only when the clock is advanced). NOT_FOUND
   * for an unknown table. */
  async waitForConsistency(name: string, consistencyToken?: string): Promise<void> {
    const token = consistencyToken ?? (await this.generateConsistencyToken({ name }))[0].consistencyToken;
    while (!(await this.checkConsistency({ name, consistencyToken: token }))[0].consistent) await sleep(100);
  }
}

/** As the client's `admin.InstanceAdminClient`: the same calls as
 * `v2.BigtableInstanceAdminClient` here. */
export class InstanceAdminClient extends BigtableInstanceAdminClient {}

/** As `require("@google-cloud/bigtable").admin`. */
export const admin = { TableAdminClient, InstanceAdminClient, GcRuleBuilder, v2 };
