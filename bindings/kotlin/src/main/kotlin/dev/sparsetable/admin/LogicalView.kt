// Logical views as the instance admin client describes them, shaped like
// `com.google.cloud.bigtable.admin.v2.models.LogicalView`, `CreateLogicalViewRequest` and
// `UpdateLogicalViewRequest`. Values only: every rule (ids, a query checked by preparing it,
// etags, deletion protection) is the core's InstanceRecord's, applied by the instance admin
// client; a data client's SQL reads a view with `FROM view_id`.
package dev.sparsetable.admin

import dev.sparsetable.ffi.LogicalViewInfo

/**
 * A logical view: a query saved in the instance, which SQL reads as a table.
 *
 * ```
 * admin.createLogicalView(
 *     CreateLogicalViewRequest.of(Sparsetable.INSTANCE_ID, "names").setQuery("SELECT _key, cf['name'] AS name FROM t"),
 * )
 * client.executeQuery(Statement.of("SELECT name FROM names"))
 * ```
 */
class LogicalView internal constructor(
    id: String,
    instanceId: String,
    query: String,
    isDeletionProtected: Boolean,
    etag: String,
) : InstanceView(id, instanceId, query, isDeletionProtected, etag, "LogicalView") {
    internal companion object {
        fun fromNative(v: LogicalViewInfo, instanceId: String) =
            LogicalView(v.id, instanceId, v.query, v.deletionProtection, v.etag)
    }
}

/**
 * A logical view to create: an id, a query ([setQuery], required: it must prepare against the
 * instance's tables and views) and deletion protection.
 */
class CreateLogicalViewRequest private constructor(
    instanceId: String,
    /** The new view's id. */
    val logicalViewId: String,
) : CreateViewRequest<CreateLogicalViewRequest>(instanceId) {
    companion object {
        /** A request to create view [logicalViewId] in instance [instanceId]. */
        @JvmStatic
        fun of(instanceId: String, logicalViewId: String) = CreateLogicalViewRequest(instanceId, logicalViewId)
    }
}

/**
 * Changes to a logical view: what is set is changed, the rest kept. Made [of] a view read
 * before, it carries that view's etag, so the update is refused (ABORTED) if the view changed
 * since.
 */
class UpdateLogicalViewRequest private constructor(
    /** The instance that has the view. */
    val instanceId: String,
    /** The view's id. */
    val logicalViewId: String,
    /** The etag the view must still have (empty: any). */
    val etag: String,
) {
    internal var query: String? = null
    internal var deletionProtection: Boolean? = null

    /** Replaces the view's query; it must prepare as a new view's does. */
    fun setQuery(query: String): UpdateLogicalViewRequest = apply { this.query = query }

    /** Turns the view's deletion protection on or off. */
    fun setDeletionProtection(deletionProtection: Boolean): UpdateLogicalViewRequest =
        apply { this.deletionProtection = deletionProtection }

    companion object {
        /** A request to change [logicalView], as it was read (its etag is checked). */
        @JvmStatic
        fun of(logicalView: LogicalView) = UpdateLogicalViewRequest(logicalView.instanceId, logicalView.id, logicalView.etag)

        /** A request to change view [logicalViewId] of instance [instanceId], whatever its etag. */
        @JvmStatic
        fun of(instanceId: String, logicalViewId: String) = UpdateLogicalViewRequest(instanceId, logicalViewId, "")
    }
}
