// App profiles and clusters as the instance admin client describes them, shaped like
// `com.google.cloud.bigtable.admin.v2.models.AppProfile` (its routing and isolation policies),
// `CreateAppProfileRequest`, `Cluster` and `CreateClusterRequest`, for an embedded instance
// (no project or instance ids). Values only: every rule about them (ids, etags, routing, what a
// profile allows) is the core's InstanceRecord's, applied by the instance admin client.
package dev.sparsetable.admin

import dev.sparsetable.ffi.AppProfileInfo
import dev.sparsetable.ffi.AutoscalingConfig
import dev.sparsetable.ffi.ClusterInfo
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
    /** Changes whenever the profile does; [UpdateAppProfileRequest.setEtag] checks it. Empty for the implied `default`. */
    val etag: String = "",
) {
    internal fun toNative() = AppProfileInfo(id, description, etag, policy.toNative(), isolationPolicy is DataBoostIsolationReadOnlyPolicy)

    override fun toString() = "AppProfile(id=$id, policy=$policy, isolation=$isolationPolicy, etag=$etag)"

    internal companion object {
        fun fromNative(p: AppProfileInfo) = AppProfile(
            p.id,
            when (val r = p.routing) {
                is ProfileRouting.SingleCluster -> SingleClusterRoutingPolicy.of(r.clusterId, r.allowTransactionalWrites)
                is ProfileRouting.MultiCluster ->
                    if (r.rowAffinity) MultiClusterRoutingPolicy.withRowAffinity(*r.clusterIds.toTypedArray())
                    else MultiClusterRoutingPolicy.of(*r.clusterIds.toTypedArray())
            },
            if (p.dataBoost) DataBoostIsolationReadOnlyPolicy else StandardIsolationPolicy,
            p.description,
            p.etag,
        )
    }

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

/** What [BigtableInstanceAdminClient.updateAppProfile] changes: what is set replaces the profile's. */
class UpdateAppProfileRequest private constructor(
    /** The profile's id (`default` is the implied default profile until its first update stores it). */
    val appProfileId: String,
) {
    internal var policy: AppProfile.RoutingPolicy? = null
    internal var isolation: AppProfile.IsolationPolicy? = null
    internal var description: String? = null
    internal var etag: String = ""

    /** A new routing policy. */
    fun setRoutingPolicy(policy: AppProfile.RoutingPolicy): UpdateAppProfileRequest = apply { this.policy = policy }

    /** A new isolation policy. */
    fun setIsolationPolicy(policy: AppProfile.IsolationPolicy): UpdateAppProfileRequest = apply { isolation = policy }

    /** A new description. */
    fun setDescription(description: String): UpdateAppProfileRequest = apply { this.description = description }

    /** The etag the profile must still have (the update is ABORTED otherwise); empty: no check. */
    fun setEtag(etag: String): UpdateAppProfileRequest = apply { this.etag = etag }

    /** [current] with this request's changes. */
    internal fun applyTo(current: AppProfile) = AppProfile(
        current.id,
        policy ?: current.policy,
        isolation ?: current.isolationPolicy,
        description ?: current.description,
        etag,
    )

    companion object {
        /** A request to update profile [appProfileId]. */
        @JvmStatic
        fun of(appProfileId: String) = UpdateAppProfileRequest(appProfileId)

        /** A request to update [profile], checked against its etag. */
        @JvmStatic
        fun of(profile: AppProfile) = UpdateAppProfileRequest(profile.id).setEtag(profile.etag)
    }
}

/** A cluster of the instance: what the instance record keeps, and whether it is serving. */
class Cluster internal constructor(
    /** The cluster's id. */
    val id: String,
    /** Whether it serves requests (see [dev.sparsetable.InstanceControl.setClusterAvailable]). */
    val available: Boolean,
    /** Its zone. */
    val zone: String,
    /** Its node count (kept, not simulated). */
    val serveNodes: Int,
    /** Its autoscaling settings, or `null` when it is scaled by hand. */
    val autoscalingConfig: ClusterAutoscalingConfig?,
) {
    /** The autoscaling minimum (0 without autoscaling). */
    val autoscalingMinServeNodes: Int get() = autoscalingConfig?.minNodes ?: 0

    /** The autoscaling maximum (0 without autoscaling). */
    val autoscalingMaxServeNodes: Int get() = autoscalingConfig?.maxNodes ?: 0

    /** The autoscaling CPU target in percent (0: unset or no autoscaling). */
    val autoscalingCpuPercentageTarget: Int get() = autoscalingConfig?.cpuUtilizationTargetPercent ?: 0

    /** The autoscaling storage target in GiB per node (0: unset or no autoscaling). */
    val storageUtilizationGibPerNode: Int get() = autoscalingConfig?.storageUtilizationGibPerNode ?: 0

    override fun toString() = "Cluster(id=$id, available=$available, serveNodes=$serveNodes, autoscaling=$autoscalingConfig)"

    internal companion object {
        fun fromNative(c: ClusterInfo, available: Boolean) = Cluster(
            c.id,
            available,
            c.zone,
            c.serveNodes,
            c.autoscaling?.let {
                ClusterAutoscalingConfig.of(c.id).setMinNodes(it.minNodes).setMaxNodes(it.maxNodes)
                    .setCpuUtilizationTargetPercent(it.cpuPercent).setStorageUtilizationGibPerNode(it.storageGibPerNode)
            },
        )
    }
}

/** A cluster's autoscaling settings, for [BigtableInstanceAdminClient.updateClusterAutoscalingConfig]. */
class ClusterAutoscalingConfig private constructor(
    /** The cluster. */
    val clusterId: String,
) {
    /** The least node count (at least 1). */
    var minNodes: Int = 0
        private set

    /** The largest node count (at least [minNodes]). */
    var maxNodes: Int = 0
        private set

    /** The CPU target, 10 to 80 percent (0: unset). */
    var cpuUtilizationTargetPercent: Int = 0
        private set

    /** The storage target in GiB per node (0: unset). */
    var storageUtilizationGibPerNode: Int = 0
        private set

    /** Sets [minNodes]. */
    fun setMinNodes(n: Int): ClusterAutoscalingConfig = apply { minNodes = n }

    /** Sets [maxNodes]. */
    fun setMaxNodes(n: Int): ClusterAutoscalingConfig = apply { maxNodes = n }

    /** Sets [cpuUtilizationTargetPercent]. */
    fun setCpuUtilizationTargetPercent(p: Int): ClusterAutoscalingConfig = apply { cpuUtilizationTargetPercent = p }

    /** Sets [storageUtilizationGibPerNode]. */
    fun setStorageUtilizationGibPerNode(g: Int): ClusterAutoscalingConfig = apply { storageUtilizationGibPerNode = g }

    internal fun toNative() = AutoscalingConfig(minNodes, maxNodes, cpuUtilizationTargetPercent, storageUtilizationGibPerNode)

    override fun toString() =
        "ClusterAutoscalingConfig($clusterId, min=$minNodes, max=$maxNodes, cpu=$cpuUtilizationTargetPercent, storage=$storageUtilizationGibPerNode)"

    companion object {
        /** Autoscaling settings for cluster [clusterId] (set min and max before use). */
        @JvmStatic
        fun of(clusterId: String) = ClusterAutoscalingConfig(clusterId)
    }
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
