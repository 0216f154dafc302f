// The instance admin client on the core's InstanceRecord: the implied `default` profile is
// listed, gettable and updatable; a stale etag is ABORTED; clusters are resized and
// autoscaled as the record keeps them; every refusal is the core's text word for word
// (core/src/api/instances/record.rs), and a refused operation changes nothing.
package dev.sparsetable

import dev.sparsetable.admin.AppProfile
import dev.sparsetable.admin.BigtableInstanceAdminClient
import dev.sparsetable.admin.BigtableTableAdminClient
import dev.sparsetable.admin.ClusterAutoscalingConfig
import dev.sparsetable.admin.CreateAppProfileRequest
import dev.sparsetable.admin.CreateClusterRequest
import dev.sparsetable.admin.UpdateAppProfileRequest
import org.junit.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertNotEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

class InstanceAdminTest {
    private val inst = "projects/sparsetable/instances/sparsetable"

    private fun withAdmin(body: (Sparsetable, BigtableInstanceAdminClient) -> Unit) =
        Sparsetable.inMemory(ManualClock(1_700_000_000_000_000)).use { instance ->
            BigtableTableAdminClient.create(instance).createTable("t") { addFamily("cf") }
            BigtableInstanceAdminClient.create(instance).use { body(instance, it) }
        }

    /** Everything the record holds, as the client shows it. */
    private fun state(admin: BigtableInstanceAdminClient) =
        admin.listClusters().map { it.toString() } + admin.listAppProfiles().map { "${it.id} ${it.policy} ${it.description} ${it.etag}" }

    @Test
    fun theImpliedDefaultProfileIsListedGettableAndUpdatable() = withAdmin { instance, admin ->
        val listed = admin.listAppProfiles()
        assertEquals(listOf("default"), listed.map { it.id })
        val d = admin.getAppProfile("default")
        assertEquals("", d.etag)
        // One cluster: single-cluster routing to it with transactions (the core's rule).
        val p = d.policy as AppProfile.SingleClusterRoutingPolicy
        assertEquals(Sparsetable.DEFAULT_CLUSTER_ID to true, p.clusterId to p.allowTransactionalWrites)
        // Two clusters: the implied default routes to any cluster.
        admin.createCluster(CreateClusterRequest.of("second-c2"))
        assertTrue(admin.getAppProfile("default").policy is AppProfile.MultiClusterRoutingPolicy)
        // Its first update stores it, with an etag; the data plane routes by it.
        val stored = admin.updateAppProfile(
            UpdateAppProfileRequest.of("default").setDescription("pinned")
                .setRoutingPolicy(AppProfile.SingleClusterRoutingPolicy.of("second-c2")),
        )
        assertEquals("pinned", stored.description)
        assertNotEquals("", stored.etag)
        assertEquals(stored.etag, admin.getAppProfile("default").etag)
        assertEquals(listOf("default"), admin.listAppProfiles().map { it.id })
        InstanceControl.create(instance).setClusterAvailable("second-c2", false)
        BigtableDataClient.create(instance).use { c ->
            assertFailsWith<UnavailableException> { c.readRow("t", "r") }
        }
    }

    @Test
    fun anUpdateWithAStaleEtagIsAbortedAndChangesNothing() = withAdmin { _, admin ->
        val created = admin.createAppProfile(CreateAppProfileRequest.of("reader").setDescription("one"))
        val updated = admin.updateAppProfile(UpdateAppProfileRequest.of(created).setDescription("two"))
        assertNotEquals(created.etag, updated.etag)
        val before = state(admin)
        val e = assertFailsWith<AbortedException> {
            admin.updateAppProfile(UpdateAppProfileRequest.of(created).setDescription("three"))
        }
        assertEquals("ABORTED: app profile \"reader\" changed since it was read (etag \"${created.etag}\" is stale)", e.message)
        assertEquals(before, state(admin))
        // The current etag, or none, is accepted.
        assertEquals("three", admin.updateAppProfile(UpdateAppProfileRequest.of(updated).setDescription("three")).description)
        assertEquals("four", admin.updateAppProfile(UpdateAppProfileRequest.of("reader").setDescription("four")).description)
    }

    @Test
    fun clustersAreResizedAndAutoscaledAsTheRecordKeepsThem() = withAdmin { _, admin ->
        val c = Sparsetable.DEFAULT_CLUSTER_ID
        assertEquals(1, admin.getCluster(c).serveNodes)
        assertEquals(5, admin.resizeCluster(c, 5).serveNodes)
        val scaled = admin.updateClusterAutoscalingConfig(
            ClusterAutoscalingConfig.of(c).setMinNodes(2).setMaxNodes(7).setCpuUtilizationTargetPercent(60),
        )
        assertEquals(listOf(5, 2, 7, 60, 0), with(scaled) {
            listOf(serveNodes, autoscalingMinServeNodes, autoscalingMaxServeNodes, autoscalingCpuPercentageTarget, storageUtilizationGibPerNode)
        })
        val off = admin.disableClusterAutoscalingAsync(c, 3).get()
        assertEquals(3, off.serveNodes)
        assertNull(off.autoscalingConfig)
        assertEquals(3, admin.listClustersAsync().get().single().serveNodes)
    }

    @Test
    fun everyRefusalIsTheCoresTextAndChangesNothing() = withAdmin { _, admin ->
        admin.createCluster(CreateClusterRequest.of("second-c2"))
        admin.createAppProfile(
            CreateAppProfileRequest.of("pinned").setRoutingPolicy(AppProfile.SingleClusterRoutingPolicy.of("second-c2")),
        )
        val before = state(admin)
        fun refused(expected: String, op: () -> Unit) {
            val e = assertFailsWith<ApiException> { op() }
            assertEquals(expected, e.message)
            assertEquals(before, state(admin), "after: $expected")
        }
        val c1 = Sparsetable.DEFAULT_CLUSTER_ID
        refused("INVALID_ARGUMENT: cluster id \"c2\" must be 6 to 30 characters: a lowercase letter, then lowercase letters, digits or '-', not ending with '-'") {
            admin.createCluster(CreateClusterRequest.of("c2"))
        }
        refused("ALREADY_EXISTS: cluster \"second-c2\" already exists in instance $inst") {
            admin.createCluster(CreateClusterRequest.of("second-c2"))
        }
        refused("NOT_FOUND: cluster \"nowhere\" not found in instance $inst") { admin.getCluster("nowhere") }
        refused("NOT_FOUND: cluster \"nowhere\" not found in instance $inst") { admin.resizeCluster("nowhere", 2) }
        refused("INVALID_ARGUMENT: cluster $c1: serve_nodes must not be negative") { admin.resizeCluster(c1, -1) }
        refused("NOT_FOUND: cluster \"nowhere\" not found in instance $inst") {
            admin.updateClusterAutoscalingConfig(ClusterAutoscalingConfig.of("nowhere").setMinNodes(1).setMaxNodes(2))
        }
        refused("INVALID_ARGUMENT: autoscaling_limits: min_serve_nodes must be at least 1 and at most max_serve_nodes") {
            admin.updateClusterAutoscalingConfig(ClusterAutoscalingConfig.of(c1).setMinNodes(3).setMaxNodes(2))
        }
        refused("FAILED_PRECONDITION: cluster \"second-c2\" is the cluster of single-cluster app profile \"pinned\"; route that profile elsewhere first") {
            admin.deleteCluster("second-c2")
        }
        refused("NOT_FOUND: cluster \"nowhere\" not found in instance $inst") { admin.deleteCluster("nowhere") }
        refused("ALREADY_EXISTS: app profile \"pinned\" already exists in instance $inst") {
            admin.createAppProfile(CreateAppProfileRequest.of("pinned"))
        }
        refused("INVALID_ARGUMENT: app profile routes to cluster \"nowhere\", which the instance does not have") {
            admin.createAppProfile(CreateAppProfileRequest.of("lost").setRoutingPolicy(AppProfile.MultiClusterRoutingPolicy.of("nowhere")))
        }
        refused("INVALID_ARGUMENT: app profile routes to cluster \"nowhere\", which the instance does not have") {
            admin.updateAppProfile(UpdateAppProfileRequest.of("pinned").setRoutingPolicy(AppProfile.SingleClusterRoutingPolicy.of("nowhere")))
        }
        refused("NOT_FOUND: app profile \"ghost\" not found in instance $inst") { admin.getAppProfile("ghost") }
        refused("NOT_FOUND: app profile \"ghost\" not found in instance $inst") {
            admin.updateAppProfile(UpdateAppProfileRequest.of("ghost").setDescription("x"))
        }
        refused("NOT_FOUND: app profile \"ghost\" not found in instance $inst") { admin.deleteAppProfile("ghost") }
        refused("NOT_FOUND: app profile \"default\" not found in instance $inst") { admin.deleteAppProfile("default") }
        // The last cluster: remove the pinned profile and the second cluster first.
        admin.deleteAppProfile("pinned")
        admin.deleteCluster("second-c2")
        val e = assertFailsWith<FailedPreconditionException> { admin.deleteCluster(c1) }
        assertEquals("FAILED_PRECONDITION: cluster \"$c1\" is the last cluster of instance $inst; delete the instance instead", e.message)
        assertEquals(listOf(c1), admin.listClusters().map { it.id })
    }
}
