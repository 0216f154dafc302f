// App profiles and clusters as the instance admin client describes them, shaped like
// `com.google.cloud.bigtable.admin.v2.models.AppProfile` (its routing and isolation policies),
// `CreateAppProfileRequest`, `Cluster` and `CreateClusterRequest`, for an embedded instance
// (no project or instance ids, no zones or nodes). Values only: every rule about them (ids,
// routing, what a profile allows) is the core's, applied when the instance is configured.
package dev.sparsetable.admin

import dev.sparsetable.ffi.AppProfileConfig
import dev.sparsetable.ffi.ProfileRouting

/**
 * An app profile: how the data calls of a client that names it reach the clusters.
 *
 * ```
 * admin.createAppProfile(
 *     CreateAppProfileRequest.of("to-c1").setRoutingPolicy(AppProfile.SingleClusterRoutingPolicy.of("c1", true)),
 * )
 * ```
 */
class AppProfile internal constructor(
    /** The profile's id. */
    val id: String,
    /** How its requests are routed. */
    val policy: RoutingPolicy,
    /** Its isolation; [DataBoostIsolationReadOnlyPolicy] refuses writes. */
    val isolationPolicy: IsolationPolicy,
    /** A free-form description. */
    val description: String,
) {
    internal fun toNative() = AppProfileConfig(id, policy.toNative(), isolationPolicy is DataBoostIsolationReadOnlyPolicy)

    override fun toString() = "AppProfile(id=$id, policy=$policy, isolation=$isolationPolicy)"

    /** A routing policy: [SingleClusterRoutingPolicy] or [MultiClusterRoutingPolicy]. */
    sealed interface RoutingPolicy {
        /** The native form. */
        fun toNative(): ProfileRouting
    }

    /** Every request goes to one cluster; transactions only if [allowTransactionalWrites]. */
    class SingleClusterRoutingPolicy private constructor(
        /** The cluster. */
        val clusterId: String,
        /** Whether CheckAndMutateRow and ReadModifyWriteRow are allowed. */
        val allowTransactionalWrites: Boolean,
    ) : RoutingPolicy {
        override fun toNative(): ProfileRouting = ProfileRouting.SingleCluster(clusterId, allowTransactionalWrites)

        override fun toString() = "SingleClusterRoutingPolicy($clusterId, allowTransactionalWrites=$allowTransactionalWrites)"

        companion object {
            /** Routes to [clusterId] without transactions. */
            @JvmStatic
            fun of(clusterId: String) = SingleClusterRoutingPolicy(clusterId, false)

            /** Routes to [clusterId], with transactions if [allowTransactionalWrites]. */
            @JvmStatic
            fun of(clusterId: String, allowTransactionalWrites: Boolean) = SingleClusterRoutingPolicy(clusterId, allowTransactionalWrites)
        }
    }

    /** Each request goes to the nearest available cluster of [clusterIds] (none: any cluster). */
    class MultiClusterRoutingPolicy private constructor(
        /** The clusters, nearest first; empty: every cluster of the instance. */
        val clusterIds: List<String>,
        /** Requests for one row go to one cluster while it is available. */
        val rowAffinity: Boolean,
    ) : RoutingPolicy {
        override fun toNative(): ProfileRouting = ProfileRouting.MultiCluster(clusterIds, rowAffinity)

        override fun toString() = "MultiClusterRoutingPolicy($clusterIds, rowAffinity=$rowAffinity)"

        companion object {
            /** Any cluster of the instance. */
            @JvmStatic
            fun of() = MultiClusterRoutingPolicy(emptyList(), false)

            /** The listed clusters, nearest first. */
            @JvmStatic
            fun of(vararg clusterIds: String) = MultiClusterRoutingPolicy(clusterIds.toList(), false)

            /** The listed clusters (none: any), with row affinity. */
            @JvmStatic
            fun withRowAffinity(vararg clusterIds: String) = MultiClusterRoutingPolicy(clusterIds.toList(), true)
        }
    }

    /** An isolation policy: [StandardIsolationPolicy] or [DataBoostIsolationReadOnlyPolicy]. */
    sealed interface IsolationPolicy

    /** Requests run on the clusters' nodes (reads and writes). */
    object StandardIsolationPolicy : IsolationPolicy {
        override fun toString() = "StandardIsolationPolicy"
    }

    /** Data Boost: reads only; writes through the profile are refused. */
    object DataBoostIsolationReadOnlyPolicy : IsolationPolicy {
        override fun toString() = "DataBoostIsolationReadOnlyPolicy"
    }
}

/** What [BigtableInstanceAdminClient.createAppProfile] creates. */
class CreateAppProfileRequest private constructor(
    /** The new profile's id. */
    val appProfileId: String,
) {
    private var policy: AppProfile.RoutingPolicy = AppProfile.MultiClusterRoutingPolicy.of()
    private var isolation: AppProfile.IsolationPolicy = AppProfile.StandardIsolationPolicy
    private var description = ""

    /** How its requests are routed (default: any cluster). */
    fun setRoutingPolicy(policy: AppProfile.RoutingPolicy): CreateAppProfileRequest = apply { this.policy = policy }

    /** Its isolation (default: standard). */
    fun setIsolationPolicy(policy: AppProfile.IsolationPolicy): CreateAppProfileRequest = apply { isolation = policy }

    /** A free-form description. */
    fun setDescription(description: String): CreateAppProfileRequest = apply { this.description = description }

    internal fun toProfile() = AppProfile(appProfileId, policy, isolation, description)

    companion object {
        /** A request to create profile [appProfileId]. */
        @JvmStatic
        fun of(appProfileId: String) = CreateAppProfileRequest(appProfileId)
    }
}

/** A cluster of the instance and whether it is serving. */
class Cluster internal constructor(
    /** The cluster's id. */
    val id: String,
    /** Whether it serves requests (see [dev.sparsetable.InstanceControl.setClusterAvailable]). */
    val available: Boolean,
) {
    override fun toString() = "Cluster(id=$id, available=$available)"
}

/** What [BigtableInstanceAdminClient.createCluster] creates. */
class CreateClusterRequest private constructor(
    /** The new cluster's id. */
    val clusterId: String,
) {
    companion object {
        /** A request to create cluster [clusterId]; it gets a copy of every table. */
        @JvmStatic
        fun of(clusterId: String) = CreateClusterRequest(clusterId)
    }
}
