// The instance admin client, shaped like `com.google.cloud.bigtable.admin.v2
// .BigtableInstanceAdminClient`: create, list, get and delete the clusters and app profiles of
// one embedded instance. Two or more clusters make the instance replicated: each keeps its own
// copy of every table, and data clients are routed by their app profile. This class keeps the
// profile list and hands the whole configuration to the core (InstanceData.configure), which
// validates it and applies every rule; errors become ApiException subclasses.
package dev.sparsetable.admin

import dev.sparsetable.BigtableDataClient
import dev.sparsetable.NotFoundException
import dev.sparsetable.Sparsetable
import dev.sparsetable.native

/**
 * Administers the clusters and app profiles of one [Sparsetable] instance. Thread-safe.
 *
 * A fresh instance has one cluster, [Sparsetable.DEFAULT_CLUSTER_ID], and no app profiles (the
 * default profile routes to any cluster).
 */
class BigtableInstanceAdminClient private constructor(
    /** The instance administered. */
    val instance: Sparsetable,
) : AutoCloseable {
    @Volatile
    private var closed = false

    private fun plane() = instance.plane().also { check(!closed) { "BigtableInstanceAdminClient is closed" } }

    /** Hands [clusters] and [profiles] to the core, and keeps the profiles if it accepts them. */
    private fun configure(clusters: List<String>, profiles: List<AppProfile>) {
        native { plane().configure(clusters, profiles.map { it.toNative() }) }
        instance.appProfiles.clear()
        instance.appProfiles.addAll(profiles)
    }

    /**
     * Adds a cluster; it gets a copy of every table.
     *
     * @throws dev.sparsetable.InvalidArgumentException for an empty or taken id.
     */
    fun createCluster(request: CreateClusterRequest): Cluster = synchronized(instance) {
        val ids = native { plane().clusterIds() }
        configure(ids + request.clusterId, instance.appProfiles.toList())
        getCluster(request.clusterId)
    }

    /** Every cluster, the first (the one holding the schema) first. */
    fun listClusters(): List<Cluster> = native { plane().availability() }.map { Cluster(it.clusterId, it.available) }

    /** One cluster. @throws NotFoundException for an unknown cluster. */
    fun getCluster(clusterId: String): Cluster =
        listClusters().firstOrNull { it.id == clusterId } ?: throw NotFoundException("NOT_FOUND: cluster \"$clusterId\" not found")

    /**
     * Deletes a cluster and its copy of the tables (what is on its way between the clusters
     * that are up is delivered first, as the core does).
     *
     * @throws NotFoundException for an unknown cluster.
     * @throws dev.sparsetable.InvalidArgumentException when it is the last one, or an app
     * profile still routes to it.
     */
    fun deleteCluster(clusterId: String): Unit = synchronized(instance) {
        val ids = native { plane().clusterIds() }
        if (clusterId !in ids) throw NotFoundException("NOT_FOUND: cluster \"$clusterId\" not found")
        configure(ids - clusterId, instance.appProfiles.toList())
    }

    /**
     * Creates an app profile.
     *
     * @throws dev.sparsetable.AlreadyExistsException if the id is taken.
     * @throws dev.sparsetable.InvalidArgumentException for a bad id or a policy naming an
     * unknown cluster.
     */
    fun createAppProfile(request: CreateAppProfileRequest): AppProfile = synchronized(instance) {
        val profile = request.toProfile()
        if (instance.appProfiles.any { it.id == profile.id }) {
            throw dev.sparsetable.AlreadyExistsException("ALREADY_EXISTS: app profile \"${profile.id}\" already exists")
        }
        configure(native { plane().clusterIds() }, instance.appProfiles + profile)
        profile
    }

    /** One app profile. @throws NotFoundException for an unknown id. */
    fun getAppProfile(appProfileId: String): AppProfile = synchronized(instance) {
        instance.appProfiles.firstOrNull { it.id == appProfileId }
            ?: throw NotFoundException("NOT_FOUND: app profile \"$appProfileId\" not found")
    }

    /** Every app profile, in creation order. */
    fun listAppProfiles(): List<AppProfile> = synchronized(instance) { instance.appProfiles.toList() }

    /** Deletes an app profile. @throws NotFoundException for an unknown id. */
    fun deleteAppProfile(appProfileId: String): Unit = synchronized(instance) {
        getAppProfile(appProfileId)
        configure(native { plane().clusterIds() }, instance.appProfiles.filter { it.id != appProfileId })
    }

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
