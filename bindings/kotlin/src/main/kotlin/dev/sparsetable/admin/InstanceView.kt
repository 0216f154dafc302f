// What a logical view and a continuous materialized view share as the instance admin client
// describes them: a named, etagged, protected view of an instance (the core's
// `api/instances/views.rs` is the same idea for the rules). Values only: each kind's class
// ([LogicalView], [MaterializedView]) and request classes say what is its own.
package dev.sparsetable.admin

/**
 * A view of an instance as the instance admin client returns it: its id, the instance that
 * has it, its query, its deletion protection and its etag. [LogicalView] and
 * [MaterializedView] are its two kinds.
 */
abstract class InstanceView internal constructor(
    /** The view's id. */
    val id: String,
    /** The id of the instance that has it. */
    val instanceId: String,
    /** Its query (GoogleSQL for Bigtable). */
    val query: String,
    /** Whether deleting it is refused. */
    val isDeletionProtected: Boolean,
    /** Changes whenever the view does; an update request made of this view checks it. */
    val etag: String,
    private val kind: String,
) {
    override fun toString() = "$kind(id=$id, query=$query, deletionProtected=$isDeletionProtected, etag=$etag)"
}

/**
 * What a request to create a view of either kind holds besides the new view's id: its
 * instance, its query ([setQuery], required; each kind's request class says how it is checked)
 * and deletion protection. The setters return the kind's own request type, for chaining.
 */
abstract class CreateViewRequest<R : CreateViewRequest<R>> internal constructor(
    /** The instance to create it in. */
    val instanceId: String,
) {
    internal var query: String = ""
    internal var deletionProtection = false

    @Suppress("UNCHECKED_CAST")
    private fun self(): R = this as R

    /** The view's query. */
    fun setQuery(query: String): R = self().also { this.query = query }

    /** Refuse to delete the view while set. */
    fun setDeletionProtection(value: Boolean): R = self().also { deletionProtection = value }
}
