// A durable instance (Sparsetable.open): data survives close and reopen, a second opener of
// the same directory gets FailedPreconditionException, and a writer JVM killed with SIGKILL in
// the middle of writing loses none of the writes it acknowledged. Its clusters and app
// profiles are kept in the directory's INSTANCE file (the server's and Python's).
package dev.sparsetable

import dev.sparsetable.admin.AppProfile
import dev.sparsetable.admin.BigtableInstanceAdminClient
import dev.sparsetable.admin.BigtableTableAdminClient
import dev.sparsetable.admin.CreateAppProfileRequest
import dev.sparsetable.admin.CreateClusterRequest
import org.junit.Test
import java.io.File
import java.nio.file.Files
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

class DurabilityTest {
    private val dirs = mutableListOf<File>()

    private fun tempDir(): File = Files.createTempDirectory("sparsetable-kt").toFile().also { dirs += it }

    @org.junit.After
    fun removeDirectories() {
        dirs.forEach { it.deleteRecursively() }
    }

    @Test
    fun clustersAndProfilesSurviveCloseAndReopenInTheInstanceFile() {
        val dir = File(tempDir(), "my-project/my-instance")
        Sparsetable.open(dir).use { instance ->
            BigtableInstanceAdminClient.create(instance).use { admin ->
                admin.createCluster(CreateClusterRequest.of("second-c2"))
                admin.createAppProfile(
                    CreateAppProfileRequest.of("east").setRoutingPolicy(AppProfile.SingleClusterRoutingPolicy.of("second-c2", true)),
                )
            }
        }
        assertTrue(File(dir, "INSTANCE").isFile)
        Sparsetable.open(dir).use { instance ->
            BigtableInstanceAdminClient.create(instance).use { admin ->
                assertEquals(listOf("second-c2", Sparsetable.DEFAULT_CLUSTER_ID), admin.listClusters().map { it.id })
                assertEquals(listOf("default", "east"), admin.listAppProfiles().map { it.id })
                val east = admin.getAppProfile("east").policy as AppProfile.SingleClusterRoutingPolicy
                assertEquals("second-c2" to true, east.clusterId to east.allowTransactionalWrites)
                // Named after the server's layout: the errors name projects/my-project/instances/my-instance.
                val e = assertFailsWith<NotFoundException> { admin.getCluster("missing-cluster") }
                assertTrue("projects/my-project/instances/my-instance" in e.message!!, e.message)
            }
        }
        // A damaged file is DATA_LOSS when the directory opens (it opens as the instance the
        // file records), and the failed open leaves the directory unlocked.
        File(dir, "INSTANCE").writeBytes("not an instance file".toByteArray())
        assertFailsWith<DataLossException> { Sparsetable.open(dir) }
        File(dir, "INSTANCE").delete()
        Sparsetable.open(dir).use { instance ->
            assertEquals(listOf(Sparsetable.DEFAULT_CLUSTER_ID), BigtableInstanceAdminClient.create(instance).listClusters().map { it.id })
        }
    }

    @Test
    fun dataSurvivesCloseAndReopen() {
        val dir = tempDir()
        Sparsetable.open(dir, Durability.SYNC).use { instance ->
            BigtableTableAdminClient.create(instance).createTable("t") { addFamily("cf") }
            BigtableDataClient.create(instance).use { c ->
                c.mutateRow(RowMutation.create("t", "a").setCell("cf", "q", 1_000, "one"))
                c.bulkMutateRows(BulkMutation.create("t").add("b", Mutation.create().setCell("cf", "q", 2_000, "two")))
            }
        }
        for (durability in listOf(Durability.NONE, Durability.intervalMicros(5_000))) {
            Sparsetable.open(dir.path, durability).use { instance ->
                BigtableDataClient.create(instance).use { c ->
                    assertEquals(listOf("a", "b"), c.readRows(Query.create("t")).keys())
                    assertEquals(listOf("one"), c.readRow("t", "a")!!.values())
                }
                instance.checkpoint()
            }
        }
    }

    @Test
    fun aSecondOpenerOfTheSameDirectoryIsRefused() {
        val dir = tempDir()
        Sparsetable.open(dir).use {
            val e = assertFailsWith<FailedPreconditionException> { Sparsetable.open(dir) }
            assertTrue(e.message!!.contains("in use"), e.message)
        }
        // Released on close.
        Sparsetable.open(dir).close()
    }

    @Test
    fun acknowledgedWritesSurviveAKilledWriterProcess() {
        val dir = tempDir()
        val java = File(System.getProperty("java.home"), "bin/java").path
        val cmd = mutableListOf(java, "-cp", System.getProperty("java.class.path"))
        System.getProperty("jna.library.path")?.let { cmd += "-Djna.library.path=$it" }
        cmd += listOf("dev.sparsetable.CrashWriter", dir.path)
        val child = ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start()
        var lastAck = -1
        try {
            val out = child.inputStream.bufferedReader()
            assertEquals("open", out.readLine())
            // While the child holds the directory, this process cannot open it.
            assertFailsWith<FailedPreconditionException> { Sparsetable.open(dir) }
            while (lastAck < 300) {
                val line = out.readLine() ?: break
                if (line.startsWith("ack ")) lastAck = line.removePrefix("ack ").toInt()
            }
        } finally {
            child.destroyForcibly() // SIGKILL: no shutdown hook, no close, mid-write
            child.waitFor(60, TimeUnit.SECONDS)
        }
        assertTrue(lastAck >= 300, "the child acknowledged only ${lastAck + 1} writes")
        Sparsetable.open(dir).use { instance ->
            BigtableDataClient.create(instance).use { c ->
                val keys = c.readRows(Query.create("t")).keys().toSet()
                val missing = (0..lastAck).map { "w$it" }.filter { it !in keys }
                assertEquals(emptyList(), missing, "acknowledged writes lost after the kill")
                // Writes go on after recovery.
                c.mutateRow(RowMutation.create("t", "after").setCell("cf", "q", 1_000, "x"))
                assertEquals(listOf("x"), c.readRow("t", "after")!!.values())
            }
        }
    }
}
