// A column family, as the client's `Family`.

import type { ProtoTable } from "./wasm/sparsetable_wasm.js";
import { settle } from "./callback.js";
import type { Callback } from "./callback.js";
import { BigtableError, call } from "./errors.js";
import { fromGcRule, toGcRule } from "./gc_rule.js";
import type { GcRuleInput } from "./gc_rule.js";
import type { TableHandle } from "./handles.js";

/** A column family, as the client's `Family`. */
export class Family<T extends TableHandle = TableHandle> {
  metadata: { gcRule?: unknown } = {};
  constructor(public table: T, public id: string) {}

  create(options?: { rule?: GcRuleInput } | Callback<[this, unknown]>, cb?: Callback<[this, unknown]>): Promise<[this, unknown]> {
    if (typeof options === "function") [cb, options] = [options, undefined];
    return settle(() => {
      const rule = (options as { rule?: GcRuleInput } | undefined)?.rule;
      const t = call(() => this.table.db.modifyColumnFamiliesJson(this.table.id, [{ id: this.id, create: rule ? { gcRule: toGcRule(rule) } : {} }])) as ProtoTable;
      this.metadata = { gcRule: fromGcRule(t.columnFamilies?.[this.id]?.gcRule) };
      return [this, t] as [this, unknown];
    }, cb);
  }

  setMetadata(metadata: { rule?: GcRuleInput }, cb?: Callback<[unknown]>): Promise<[unknown]> {
    return settle(() => {
      const t = call(() => this.table.db.modifyColumnFamiliesJson(this.table.id, [{ id: this.id, update: metadata.rule ? { gcRule: toGcRule(metadata.rule) } : {} }])) as ProtoTable;
      this.metadata = { gcRule: fromGcRule(t.columnFamilies?.[this.id]?.gcRule) };
      return [t] as [unknown];
    }, cb);
  }

  getMetadata(cb?: Callback<[unknown]>): Promise<[unknown]> {
    return settle(() => {
      const t = call(() => this.table.db.getTableJson(this.table.id)) as ProtoTable;
      const f = t.columnFamilies?.[this.id];
      if (!f) throw new BigtableError("NOT_FOUND", `column family ${this.id} not found`);
      this.metadata = { gcRule: fromGcRule(f.gcRule) };
      return [this.metadata] as [unknown];
    }, cb);
  }

  exists(cb?: Callback<[boolean]>): Promise<[boolean]> {
    return settle(() => {
      const t = call(() => this.table.db.getTableJson(this.table.id)) as ProtoTable;
      return [Boolean(t.columnFamilies && this.id in t.columnFamilies)] as [boolean];
    }, cb);
  }

  delete(cb?: Callback<[unknown]>): Promise<[unknown]> {
    return settle(() => {
      call(() => this.table.db.modifyColumnFamiliesJson(this.table.id, [{ id: this.id, drop: true }]));
      return [{}] as [unknown];
    }, cb);
  }
}
