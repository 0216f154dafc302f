// A replicated instance on a durable directory keeps every cluster's copy and the queue of
// writes on their way on disk, in the server's layout (`replicas/CLUSTER/`, `replication/`):
// a write acknowledged at the second cluster before the directory is closed, and not yet
// delivered (the lag held it back), is still in that cluster's copy after a reopen and
// reaches the first cluster then.
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
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue

class DurableReplicasTest {
    /** The value of `t/r cf:q` as the cluster [clusterId]'s copy has it. */
    private fun readAt(instance: Sparsetable, clusterId: String): String? =
        BigtableDataClient.create(instance, "at-$clusterId").use { c -> c.readRow("t", "r")?.cells?.single()?.valueUtf8 }

    @Test
    fun aQueuedWriteIsDeliveredAfterTheDirectoryIsReopened() {
        val root = Files.createTempDirectory("sparsetable-replicas").toFile()
        val first = Sparsetable.DEFAULT_CLUSTER_ID
        try {
            val dir = File(root, "db")
            Sparsetable.open(dir, Durability.NONE).use { instance ->
                BigtableTableAdminClient.create(instance).createTable("t") { addFamily("cf") }
                val admin = BigtableInstanceAdminClient.create(instance)
                admin.createCluster(CreateClusterRequest.of("west-c2"))
                for (c in listOf(first, "west-c2")) {
                    admin.createAppProfile(CreateAppProfileRequest.of("at-$c").setRoutingPolicy(AppProfile.SingleClusterRoutingPolicy.of(c)))
                }
                // Delivered at once: both copies have the first value.
                BigtableDataClient.create(instance, "at-$first").use { c -> c.mutateRow("t", "r") { setCell("cf", "q", 1000L, "first") } }
                InstanceControl.create(instance).pump()
                assertEquals("first", readAt(instance, "west-c2"))
                // Then an hour of lag: a write at the west cluster waits in the queue for the
                // first cluster when the directory closes.
                InstanceControl.create(instance).setReplicationLag(java.time.Duration.ofHours(1))
                BigtableDataClient.create(instance, "at-west-c2").use { c ->
                    c.mutateRow("t", "r") { deleteRow(); setCell("cf", "q", 2000L, "second") }
                }
                InstanceControl.create(instance).pump()
                assertEquals("second", readAt(instance, "west-c2"))
                assertEquals("first", readAt(instance, first))
            }
            assertTrue(File(dir, "replicas/west-c2").isDirectory, "the west copy is on disk")
            assertTrue(File(dir, "replication").isDirectory, "the queue is on disk")
            Sparsetable.open(dir, Durability.NONE).use { instance ->
                // The west copy is its own (not rebuilt from the first cluster's), and the
                // queued write reaches the first cluster (the lag is not kept: none now).
                assertEquals("second", readAt(instance, "west-c2"))
                InstanceControl.create(instance).pump()
                assertEquals("second", readAt(instance, first))
            }
            // Once more: the delivery is in the first cluster's files, and nothing is left to send.
            Sparsetable.open(dir, Durability.NONE).use { instance ->
                assertEquals("second", readAt(instance, first))
                assertEquals("second", readAt(instance, "west-c2"))
                assertNull(BigtableDataClient.create(instance, "at-west-c2").use { c -> c.readRow("t", "missing") })
                // A deleted cluster's copy leaves the disk with it; added again, the cluster
                // has the first cluster's tables as they are now.
                val admin = BigtableInstanceAdminClient.create(instance)
                admin.deleteAppProfile("at-west-c2")
                BigtableDataClient.create(instance, "at-$first").use { c -> c.mutateRow("t", "r") { deleteRow(); setCell("cf", "q", 3000L, "third") } }
                admin.deleteCluster("west-c2")
                assertFalse(File(dir, "replicas/west-c2").exists(), "the deleted cluster's copy is gone")
                admin.createCluster(CreateClusterRequest.of("west-c2"))
                admin.createAppProfile(CreateAppProfileRequest.of("at-west-c2").setRoutingPolicy(AppProfile.SingleClusterRoutingPolicy.of("west-c2")))
                assertEquals("third", readAt(instance, "west-c2"))
            }
        } finally {
            root.deleteRecursively()
        }
    }
}
