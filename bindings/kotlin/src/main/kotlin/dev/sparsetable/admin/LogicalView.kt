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
    /** The view's id. */
    val id: String,
    /** The id of the instance that has it. */
    val instanceId: String,
    /** Its query (GoogleSQL for Bigtable). */
    val query: String,
    /** Whether deleting it is refused. */
    val isDeletionProtected: Boolean,
    /** Changes whenever the view does; [UpdateLogicalViewRequest.of] of this view checks it. */
    val etag: String,
) {
    override fun toString() = "LogicalView(id=$id, query=$query, deletionProtected=$isDeletionProtected, etag=$etag)"

    internal companion object {
        fun fromNative(v: LogicalViewInfo, instanceId: String) =
            LogicalView(v.id, instanceId, v.query, v.deletionProtection, v.etag)
    }
}

/** A logical view to create: an id, a query ([setQuery], required) and deletion protection. */
class CreateLogicalViewRequest private constructor(
    /** The instance to create it in. */
    val instanceId: String,
    /** The new view's id. */
    val logicalViewId: String,
) {
    internal var query: String = ""
    internal var deletionProtection = false

    /** The view's query; it must prepare against the instance's tables and views. */
    fun setQuery(query: String): CreateLogicalViewRequest = apply { this.query = query }

    /** Refuse to delete the view while set. */
    fun setDeletionProtection(value: Boolean): CreateLogicalViewRequest = apply { deletionProtection = value }

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
