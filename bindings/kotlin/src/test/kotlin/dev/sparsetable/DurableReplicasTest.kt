// A replicated instance on a durable directory keeps every cluster's copy and the queue of
// writes on their way on disk, in the server's layout (`replicas/CLUSTER/`, `replication/`):
// a write acknowledged before the directory is closed, and not yet delivered (the lag held
// it back), reaches the other cluster after the directory is reopened; and what a copy had
// is still there after a reopen.
package dev.sparsetable

import dev.sparsetable.admin.AppProfile
import dev.sparsetable.admin.BigtableInstanceAdminClient
import dev.sparsetable.admin.BigtableTableAdminClient
import dev.sparsetable.admin.CreateAppProfileRequest
import dev.sparsetable.admin.CreateClusterRequest
import org.junit.Test
import java.io.File
import java.nio.file.Files
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

class DurableReplicasTest {
    /** The value of `t/r cf:q` as the cluster [clusterId]'s copy has it. */
    private fun readAt(instance: Sparsetable, clusterId: String): String? =
        BigtableDataClient.create(instance, "at-$clusterId").use { c -> c.readRow("t", "r")?.cells?.single()?.valueUtf8 }

    @Test
    fun aQueuedWriteIsDeliveredAfterTheDirectoryIsReopened() {
        val root = Files.createTempDirectory("sparsetable-replicas").toFile()
        try {
            val dir = File(root, "db")
            Sparsetable.open(dir, Durability.NONE).use { instance ->
                BigtableTableAdminClient.create(instance).createTable("t") { addFamily("cf") }
                val admin = BigtableInstanceAdminClient.create(instance)
                admin.createCluster(CreateClusterRequest.of("west-c2"))
                for (c in listOf(Sparsetable.DEFAULT_CLUSTER_ID, "west-c2")) {
                    admin.createAppProfile(CreateAppProfileRequest.of("at-$c").setRoutingPolicy(AppProfile.SingleClusterRoutingPolicy.of(c)))
                }
                // Delivered at once: the west copy has the first value.
                BigtableDataClient.create(instance, "at-${Sparsetable.DEFAULT_CLUSTER_ID}").use { c ->
                    c.mutateRow("t", "r") { setCell("cf", "q", 1000L, "first") }
                }
                InstanceControl.create(instance).pump()
                assertEquals("first", readAt(instance, "west-c2"))
                // Then an hour of lag: the second write waits in the queue when the directory closes.
                InstanceControl.create(instance).setReplicationLag(java.time.Duration.ofHours(1))
                BigtableDataClient.create(instance, "at-${Sparsetable.DEFAULT_CLUSTER_ID}").use { c ->
                    c.mutateRow("t", "r") { deleteRow(); setCell("cf", "q", 2000L, "second") }
                }
                InstanceControl.create(instance).pump()
                assertEquals("first", readAt(instance, "west-c2"))
            }
            assertTrue(File(dir, "replicas/west-c2").isDirectory, "the west copy is on disk")
            assertTrue(File(dir, "replication").isDirectory, "the queue is on disk")
            Sparsetable.open(dir, Durability.NONE).use { instance ->
                // The copy is as it was (the lag is not kept: the queue waits for none now).
                assertEquals(listOf(Sparsetable.DEFAULT_CLUSTER_ID, "west-c2"), BigtableInstanceAdminClient.create(instance).listClusters().map { it.id }.sorted())
                InstanceControl.create(instance).pump()
                assertEquals("second", readAt(instance, "west-c2"))
                assertEquals("second", readAt(instance, Sparsetable.DEFAULT_CLUSTER_ID))
            }
            // And once more: the delivered write is in the west copy's own files.
            Sparsetable.open(dir, Durability.NONE).use { instance ->
                assertEquals("second", readAt(instance, "west-c2"))
                assertNull(BigtableDataClient.create(instance, "at-west-c2").use { c -> c.readRow("t", "missing") })
            }
        } finally {
            root.deleteRecursively()
        }
    }
}
