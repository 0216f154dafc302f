// The instance admin client, shaped like `com.google.cloud.bigtable.admin.v2
// .BigtableInstanceAdminClient`: create, list, get, update and delete the clusters, app
// profiles, logical views (saved queries its SQL reads) and continuous materialized views of
// one embedded instance. Two or more clusters make the instance replicated: each keeps its own
// copy of every table, and data clients are routed by their app profile.
// Every rule (ids, ALREADY_EXISTS / NOT_FOUND, etags, the implied `default` profile, what may
// be removed) is the core's InstanceRecord, reached through the native InstanceAdmin, which
// also configures the data plane from the record after each change it accepts and changes
// nothing when it refuses one. This class converts values and errors only.
package dev.sparsetable.admin

import dev.sparsetable.BigtableDataClient
import dev.sparsetable.Sparsetable
import dev.sparsetable.native
import java.util.concurrent.CompletableFuture

/**
 * Administers the clusters and app profiles of one [Sparsetable] instance. Thread-safe.
 *
 * A fresh instance has one cluster, [Sparsetable.DEFAULT_CLUSTER_ID], and the implied `default`
 * app profile (one cluster: single-cluster routing with transactions; more: any cluster), which
 * [listAppProfiles] shows and [updateAppProfile] may change.
 */
class BigtableInstanceAdminClient private constructor(
    /** The instance administered. */
    val instance: Sparsetable,
) : AutoCloseable {
    @Volatile
    private var closed = false

    private fun admin() = instance.admin().also { check(!closed) { "BigtableInstanceAdminClient is closed" } }

    private fun available(): Map<String, Boolean> = native { instance.plane().availability() }.associate { it.clusterId to it.available }

    /**
     * Adds a cluster (one node, SSD); it gets a copy of every table.
     *
     * @throws dev.sparsetable.InvalidArgumentException for an id the core's rule refuses.
     * @throws dev.sparsetable.AlreadyExistsException for a taken id.
     */
    fun createCluster(request: CreateClusterRequest): Cluster {
        native { admin().addCluster(request.clusterId) }
        return getCluster(request.clusterId)
    }

    /** Every cluster, by id. */
    fun listClusters(): List<Cluster> {
        val clusters = native { admin().clusters() }
        val up = available()
        return clusters.map { Cluster.fromNative(it, up[it.id] ?: false) }
    }

    /** One cluster. @throws dev.sparsetable.NotFoundException for an unknown cluster (the core's message). */
    fun getCluster(clusterId: String): Cluster {
        val c = native { admin().cluster(clusterId) }
        return Cluster.fromNative(c, available()[c.id] ?: false)
    }

    /**
     * Sets a cluster's node count and turns its autoscaling off (Google's `resizeCluster`).
     *
     * @throws dev.sparsetable.NotFoundException for an unknown cluster.
     * @throws dev.sparsetable.InvalidArgumentException for a negative count.
     */
    fun resizeCluster(clusterId: String, numServeNodes: Int): Cluster {
        native { admin().updateCluster(clusterId, numServeNodes, null) }
        return getCluster(clusterId)
    }

    /** Turns a cluster's autoscaling off, with [numServeNodes] nodes (as [resizeCluster]). */
    fun disableClusterAutoscaling(clusterId: String, numServeNodes: Int): Cluster = resizeCluster(clusterId, numServeNodes)

    /**
     * Sets a cluster's autoscaling; its node count stays (read and kept in the same change,
     * so a resize from another thread is never undone).
     *
     * @throws dev.sparsetable.NotFoundException for an unknown cluster.
     * @throws dev.sparsetable.InvalidArgumentException for limits or targets the core refuses.
     */
    fun updateClusterAutoscalingConfig(config: ClusterAutoscalingConfig): Cluster {
        native { admin().setClusterAutoscaling(config.clusterId, config.toNative()) }
        return getCluster(config.clusterId)
    }

    /**
     * Deletes a cluster and its copy of the tables (what is on its way between the clusters
     * that are up is delivered first, as the core does); multi-cluster profiles forget it.
     *
     * @throws dev.sparsetable.NotFoundException for an unknown cluster.
     * @throws dev.sparsetable.FailedPreconditionException when it is the last one, or a
     * single-cluster app profile routes to it.
     */
    fun deleteCluster(clusterId: String) {
        native { admin().removeCluster(clusterId) }
    }

    /**
     * Creates an app profile.
     *
     * @throws dev.sparsetable.AlreadyExistsException if the id is stored.
     * @throws dev.sparsetable.InvalidArgumentException for a bad id or a policy naming an
     * unknown cluster.
     */
    fun createAppProfile(request: CreateAppProfileRequest): AppProfile =
        AppProfile.fromNative(native { admin().createAppProfile(request.toProfile().toNative()) })

    /** One app profile (`default` too while it is implied). @throws dev.sparsetable.NotFoundException for an unknown id. */
    fun getAppProfile(appProfileId: String): AppProfile = AppProfile.fromNative(native { admin().appProfile(appProfileId) })

    /** Every app profile, with the implied `default` unless one is stored, by id. */
    fun listAppProfiles(): List<AppProfile> = native { admin().listedAppProfiles() }.map { AppProfile.fromNative(it) }

    /**
     * Changes an app profile: what [request] sets replaces the profile's. A non-empty etag
     * ([UpdateAppProfileRequest.setEtag]) must be the profile's. The first update of the
     * implied `default` stores it.
     *
     * @throws dev.sparsetable.NotFoundException for an unknown id.
     * @throws dev.sparsetable.AbortedException for a stale etag.
     * @throws dev.sparsetable.InvalidArgumentException for a policy the core refuses.
     */
    fun updateAppProfile(request: UpdateAppProfileRequest): AppProfile {
        val current = getAppProfile(request.appProfileId)
        return AppProfile.fromNative(native { admin().updateAppProfile(request.applyTo(current).toNative()) })
    }

    /** Deletes a stored app profile. @throws dev.sparsetable.NotFoundException for an id not stored. */
    fun deleteAppProfile(appProfileId: String) {
        native { admin().deleteAppProfile(appProfileId) }
    }

    /** The admin of [instanceId], which must be this instance's id (NOT_FOUND otherwise). */
    private fun adminOf(instanceId: String) = admin().also { a -> native { a.checkInstance(instanceId) } }

    /**
     * Creates a logical view; its query is prepared against the instance's tables and views
     * first.
     *
     * @throws dev.sparsetable.NotFoundException for another instance's id.
     * @throws dev.sparsetable.InvalidArgumentException for a bad id, an empty query or one that
     * does not prepare (the SQL error's text).
     * @throws dev.sparsetable.AlreadyExistsException if the id is taken.
     */
    fun createLogicalView(request: CreateLogicalViewRequest): LogicalView {
        val a = adminOf(request.instanceId)
        val v = native { a.createLogicalView(request.logicalViewId, request.query, request.deletionProtection) }
        return LogicalView.fromNative(v, request.instanceId)
    }

    /** One logical view. @throws dev.sparsetable.NotFoundException for an unknown view or instance. */
    fun getLogicalView(instanceId: String, logicalViewId: String): LogicalView =
        LogicalView.fromNative(native { adminOf(instanceId).logicalView(logicalViewId) }, instanceId)

    /** Every logical view of the instance, by id. @throws dev.sparsetable.NotFoundException for another instance's id. */
    fun listLogicalViews(instanceId: String): List<LogicalView> =
        native { adminOf(instanceId).logicalViews() }.map { LogicalView.fromNative(it, instanceId) }

    /**
     * Changes a logical view: what [request] sets is changed. A request made of a view read
     * before carries its etag, which must still be the view's.
     *
     * @throws dev.sparsetable.NotFoundException for an unknown view or instance.
     * @throws dev.sparsetable.AbortedException for a stale etag.
     * @throws dev.sparsetable.InvalidArgumentException for a query that does not prepare.
     */
    fun updateLogicalView(request: UpdateLogicalViewRequest): LogicalView {
        val a = adminOf(request.instanceId)
        val v = native { a.updateLogicalView(request.logicalViewId, request.query, request.deletionProtection, request.etag) }
        return LogicalView.fromNative(v, request.instanceId)
    }

    /**
     * Deletes a logical view (a view that reads it then fails when queried).
     *
     * @throws dev.sparsetable.NotFoundException for an unknown view or instance.
     * @throws dev.sparsetable.FailedPreconditionException while it has deletion protection.
     */
    fun deleteLogicalView(instanceId: String, logicalViewId: String) {
        native { adminOf(instanceId).deleteLogicalView(logicalViewId, "") }
    }

    /**
     * Creates a continuous materialized view: the engine checks its query, computes it from its
     * table, and keeps it up to date with every write.
     *
     * @throws dev.sparsetable.NotFoundException for another instance's id, or the query's unknown table.
     * @throws dev.sparsetable.InvalidArgumentException for a bad id, an empty query or one the
     * engine does not maintain (the message names what).
     * @throws dev.sparsetable.AlreadyExistsException if the id is taken.
     */
    fun createMaterializedView(request: CreateMaterializedViewRequest): MaterializedView {
        val a = adminOf(request.instanceId)
        val v = native { a.createMaterializedView(request.materializedViewId, request.query, request.deletionProtection) }
        return MaterializedView.fromNative(v, request.instanceId)
    }

    /** One materialized view. @throws dev.sparsetable.NotFoundException for an unknown view or instance. */
    fun getMaterializedView(instanceId: String, materializedViewId: String): MaterializedView =
        MaterializedView.fromNative(native { adminOf(instanceId).materializedView(materializedViewId) }, instanceId)

    /** Every materialized view of the instance, by id. @throws dev.sparsetable.NotFoundException for another instance's id. */
    fun listMaterializedViews(instanceId: String): List<MaterializedView> =
        native { adminOf(instanceId).materializedViews() }.map { MaterializedView.fromNative(it, instanceId) }

    /**
     * Changes a materialized view's deletion protection. A request made of a view read before
     * carries its etag, which must still be the view's.
     *
     * @throws dev.sparsetable.NotFoundException for an unknown view or instance.
     * @throws dev.sparsetable.AbortedException for a stale etag.
     */
    fun updateMaterializedView(request: UpdateMaterializedViewRequest): MaterializedView {
        val a = adminOf(request.instanceId)
        val v = native { a.updateMaterializedView(request.materializedViewId, request.deletionProtection, request.etag) }
        return MaterializedView.fromNative(v, request.instanceId)
    }

    /**
     * Deletes a materialized view and its rows.
     *
     * @throws dev.sparsetable.NotFoundException for an unknown view or instance.
     * @throws dev.sparsetable.FailedPreconditionException while it has deletion protection.
     */
    fun deleteMaterializedView(instanceId: String, materializedViewId: String) {
        native { adminOf(instanceId).deleteMaterializedView(materializedViewId, "") }
    }

    // The Java client's ...Async variants: the same calls on the common ForkJoin pool, as
    // BigtableTableAdminClient's (CompletableFuture is the binding's future).
    private fun <T> async(block: () -> T): CompletableFuture<T> = CompletableFuture.supplyAsync(block)

    /** [createCluster], asynchronously. */
    fun createClusterAsync(request: CreateClusterRequest): CompletableFuture<Cluster> = async { createCluster(request) }

    /** [listClusters], asynchronously. */
    fun listClustersAsync(): CompletableFuture<List<Cluster>> = async { listClusters() }

    /** [getCluster], asynchronously. */
    fun getClusterAsync(clusterId: String): CompletableFuture<Cluster> = async { getCluster(clusterId) }

    /** [resizeCluster], asynchronously. */
    fun resizeClusterAsync(clusterId: String, numServeNodes: Int): CompletableFuture<Cluster> = async { resizeCluster(clusterId, numServeNodes) }

    /** [disableClusterAutoscaling], asynchronously. */
    fun disableClusterAutoscalingAsync(clusterId: String, numServeNodes: Int): CompletableFuture<Cluster> =
        async { disableClusterAutoscaling(clusterId, numServeNodes) }

    /** [updateClusterAutoscalingConfig], asynchronously. */
    fun updateClusterAutoscalingConfigAsync(config: ClusterAutoscalingConfig): CompletableFuture<Cluster> =
        async { updateClusterAutoscalingConfig(config) }

    /** [deleteCluster], asynchronously. */
    fun deleteClusterAsync(clusterId: String): CompletableFuture<Void?> = async { deleteCluster(clusterId); null }

    /** [createAppProfile], asynchronously. */
    fun createAppProfileAsync(request: CreateAppProfileRequest): CompletableFuture<AppProfile> = async { createAppProfile(request) }

    /** [getAppProfile], asynchronously. */
    fun getAppProfileAsync(appProfileId: String): CompletableFuture<AppProfile> = async { getAppProfile(appProfileId) }

    /** [listAppProfiles], asynchronously. */
    fun listAppProfilesAsync(): CompletableFuture<List<AppProfile>> = async { listAppProfiles() }

    /** [updateAppProfile], asynchronously. */
    fun updateAppProfileAsync(request: UpdateAppProfileRequest): CompletableFuture<AppProfile> = async { updateAppProfile(request) }

    /** [deleteAppProfile], asynchronously. */
    fun deleteAppProfileAsync(appProfileId: String): CompletableFuture<Void?> = async { deleteAppProfile(appProfileId); null }

    /** [createLogicalView], asynchronously. */
    fun createLogicalViewAsync(request: CreateLogicalViewRequest): CompletableFuture<LogicalView> = async { createLogicalView(request) }

    /** [getLogicalView], asynchronously. */
    fun getLogicalViewAsync(instanceId: String, logicalViewId: String): CompletableFuture<LogicalView> =
        async { getLogicalView(instanceId, logicalViewId) }

    /** [listLogicalViews], asynchronously. */
    fun listLogicalViewsAsync(instanceId: String): CompletableFuture<List<LogicalView>> = async { listLogicalViews(instanceId) }

    /** [updateLogicalView], asynchronously. */
    fun updateLogicalViewAsync(request: UpdateLogicalViewRequest): CompletableFuture<LogicalView> = async { updateLogicalView(request) }

    /** [deleteLogicalView], asynchronously. */
    fun deleteLogicalViewAsync(instanceId: String, logicalViewId: String): CompletableFuture<Void?> =
        async { deleteLogicalView(instanceId, logicalViewId); null }

    /** [createMaterializedView], asynchronously. */
    fun createMaterializedViewAsync(request: CreateMaterializedViewRequest): CompletableFuture<MaterializedView> =
        async { createMaterializedView(request) }

    /** [getMaterializedView], asynchronously. */
    fun getMaterializedViewAsync(instanceId: String, materializedViewId: String): CompletableFuture<MaterializedView> =
        async { getMaterializedView(instanceId, materializedViewId) }

    /** [listMaterializedViews], asynchronously. */
    fun listMaterializedViewsAsync(instanceId: String): CompletableFuture<List<MaterializedView>> = async { listMaterializedViews(instanceId) }

    /** [updateMaterializedView], asynchronously. */
    fun updateMaterializedViewAsync(request: UpdateMaterializedViewRequest): CompletableFuture<MaterializedView> =
        async { updateMaterializedView(request) }

    /** [deleteMaterializedView], asynchronously. */
    fun deleteMaterializedViewAsync(instanceId: String, materializedViewId: String): CompletableFuture<Void?> =
        async { deleteMaterializedView(instanceId, materializedViewId); null }

    /** Closes the client (the instance stays open). Idempotent. */
    override fun close() {
        closed = true
    }

    companion object {
        /** An instance admin client of [instance]. */
        @JvmStatic
        fun create(instance: Sparsetable) = BigtableInstanceAdminClient(instance)

        /** An instance admin client of the instance [client] works on. */
        @JvmStatic
        fun create(client: BigtableDataClient) = BigtableInstanceAdminClient(client.instance)
    }
}
