// Continuous materialized views as the instance admin client describes them, shaped like
// `com.google.cloud.bigtable.admin.v2.models.MaterializedView`, `CreateMaterializedViewRequest`
// and `UpdateMaterializedViewRequest`. Values only: every rule (ids, what a query may do,
// etags, deletion protection) is the core's, applied by the instance admin client; a data
// client reads a view's rows with `readRows(Query.create(MaterializedViewId.of(id)))`.
package dev.sparsetable.admin

import dev.sparsetable.ffi.MaterializedViewInfo

/**
 * A continuous materialized view: a GROUP BY query over a table whose result the engine keeps
 * up to date with every write. Its query is fixed once created.
 *
 * ```
 * admin.createMaterializedView(
 *     CreateMaterializedViewRequest.of(Sparsetable.INSTANCE_ID, "per_user")
 *         .setQuery("SELECT _key AS _key, COUNT(*) AS n FROM t GROUP BY _key"),
 * )
 * ```
 */
class MaterializedView internal constructor(
    id: String,
    instanceId: String,
    query: String,
    isDeletionProtected: Boolean,
    etag: String,
) : InstanceView(id, instanceId, query, isDeletionProtected, etag, "MaterializedView") {
    internal companion object {
        fun fromNative(v: MaterializedViewInfo, instanceId: String) =
            MaterializedView(v.id, instanceId, v.query, v.deletionProtection, v.etag)
    }
}

/**
 * A materialized view to create: an id, a query ([setQuery], required: the engine checks what
 * it may do and backfills the view from its table) and deletion protection.
 */
class CreateMaterializedViewRequest private constructor(
    instanceId: String,
    /** The new view's id. */
    val materializedViewId: String,
) : CreateViewRequest<CreateMaterializedViewRequest>(instanceId) {
    companion object {
        /** A request to create view [materializedViewId] in instance [instanceId]. */
        @JvmStatic
        fun of(instanceId: String, materializedViewId: String) = CreateMaterializedViewRequest(instanceId, materializedViewId)
    }
}

/**
 * A change to a materialized view's deletion protection (the one setting that changes). Made
 * [of] a view read before, it carries that view's etag, so it is refused (ABORTED) if the view
 * changed since.
 */
class UpdateMaterializedViewRequest private constructor(
    /** The instance that has the view. */
    val instanceId: String,
    /** The view's id. */
    val materializedViewId: String,
    /** The etag the view must still have (empty: any). */
    val etag: String,
    internal var deletionProtection: Boolean,
) {
    /** Turns the view's deletion protection on or off. */
    fun setDeletionProtection(deletionProtection: Boolean): UpdateMaterializedViewRequest =
        apply { this.deletionProtection = deletionProtection }

    companion object {
        /** A request to change [materializedView], as it was read (its etag is checked). */
        @JvmStatic
        fun of(materializedView: MaterializedView) = UpdateMaterializedViewRequest(
            materializedView.instanceId, materializedView.id, materializedView.etag, materializedView.isDeletionProtected,
        )

        /** A request to change view [materializedViewId] of instance [instanceId], whatever its etag. */
        @JvmStatic
        fun of(instanceId: String, materializedViewId: String) = UpdateMaterializedViewRequest(instanceId, materializedViewId, "", false)
    }
}
