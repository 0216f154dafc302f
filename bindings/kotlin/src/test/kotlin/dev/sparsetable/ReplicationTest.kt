// What a user sees of a replicated instance from Kotlin: a write through a single-cluster
// profile reaches the other cluster only after the lag (on a ManualClock), CheckConsistency,
// transactions refused through a multi-cluster profile with Bigtable's message, failover of a
// multi-cluster profile, UNAVAILABLE through a single-cluster profile to a down cluster,
// injected faults, and the admin client's bookkeeping of clusters and profiles.
package dev.sparsetable

import dev.sparsetable.admin.AppProfile
import dev.sparsetable.admin.BigtableInstanceAdminClient
import dev.sparsetable.admin.BigtableTableAdminClient
import dev.sparsetable.admin.CreateAppProfileRequest
import dev.sparsetable.admin.CreateClusterRequest
import org.junit.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue

class ReplicationTest {
    private class Fixture(val instance: Sparsetable, val clock: ManualClock) {
        val control = InstanceControl.create(instance)
        val admin = BigtableInstanceAdminClient.create(instance)
        val clients = HashMap<String, BigtableDataClient>()

        fun client(profile: String) = clients.getOrPut(profile) {
            BigtableDataClient.create(BigtableDataSettings.newBuilder().setInstance(instance).setAppProfileId(profile).build())
        }

        fun write(profile: String, row: String, value: String) =
            client(profile).mutateRow(RowMutation.create("t", row).setCell("cf", "q", 1000, value))

        fun read(profile: String, row: String): String? = client(profile).readRow("t", row)?.cells?.firstOrNull()?.valueUtf8
    }

    /** An instance on a manual clock with table `t`, clusters cluster-1 and cluster-2, a 1 s lag, and profiles to-c1, to-c2, any. */
    private fun replicated(block: Fixture.() -> Unit) {
        val clock = ManualClock(T0)
        Sparsetable.inMemory(clock).use { instance ->
            BigtableTableAdminClient.create(instance).createTable("t") { addFamily("cf") }
            val f = Fixture(instance, clock)
            f.admin.createCluster(CreateClusterRequest.of("cluster-1"))
            f.admin.createCluster(CreateClusterRequest.of("cluster-2"))
            f.admin.deleteCluster(Sparsetable.DEFAULT_CLUSTER_ID)
            f.admin.createAppProfile(
                CreateAppProfileRequest.of("to-c1").setRoutingPolicy(AppProfile.SingleClusterRoutingPolicy.of("cluster-1", true)),
            )
            f.admin.createAppProfile(CreateAppProfileRequest.of("to-c2").setRoutingPolicy(AppProfile.SingleClusterRoutingPolicy.of("cluster-2")))
            f.admin.createAppProfile(CreateAppProfileRequest.of("any").setRoutingPolicy(AppProfile.MultiClusterRoutingPolicy.of()))
            f.control.setReplicationLagMicros(1_000_000)
            try {
                f.block()
            } finally {
                f.clients.values.forEach { it.close() }
            }
        }
    }

    @Test
    fun aWriteToC1IsNotVisibleThroughC2UntilTheLagPasses() = replicated {
        write("to-c1", "r", "v")
        // Handed to replication before mutateRow returned (no other call has run since).
        assertEquals(1L, control.inFlight)
        assertEquals("v", read("to-c1", "r"))
        assertNull(read("to-c2", "r"))
        clock.advanceMicros(999_999)
        assertNull(read("to-c2", "r"))
        assertEquals(1L, control.inFlight)
        clock.advanceMicros(1)
        assertEquals("v", read("to-c2", "r"))
        assertEquals(0L, control.inFlight)
    }

    @Test
    fun checkConsistencyIsFalseThenTrue() = replicated {
        write("to-c1", "r", "v")
        val token = control.generateConsistencyToken("t")
        assertFalse(control.checkConsistency("t", token))
        control.advanceMicros(1_000_000)
        assertTrue(control.checkConsistency("t", token))
        val e = assertFailsWith<InvalidArgumentException> { control.checkConsistency("t", "not-a-token") }
        assertEquals("INVALID_ARGUMENT", e.statusCode.name)
    }

    @Test
    fun awaitReplicationMovesTheManualClockUntilConsistent() = replicated {
        write("to-c2", "r", "v")
        assertNull(read("to-c1", "r"))
        BigtableTableAdminClient.create(instance).awaitReplication("t")
        assertEquals("v", read("to-c1", "r"))
        control.setClusterAvailable("cluster-1", false)
        write("to-c2", "r", "w")
        assertFailsWith<DeadlineExceededException> { control.awaitReplication("t", java.time.Duration.ofSeconds(5)) }
    }

    @Test
    fun anIncrementThroughAMultiClusterProfileIsRefused() = replicated {
        val e = assertFailsWith<FailedPreconditionException> {
            client("any").readModifyWriteRow(ReadModifyWriteRow.create("t", "r").increment("cf", "n", 1))
        }
        assertEquals("FAILED_PRECONDITION: Single-row transactions are not allowed by this app profile", e.message)
        // Through a single-cluster profile that allows transactions it runs.
        client("to-c1").readModifyWriteRow(ReadModifyWriteRow.create("t", "r").increment("cf", "n", 1))
        assertFailsWith<FailedPreconditionException> {
            client("to-c2").checkAndMutateRow(ConditionalRowMutation.create("t", "r").then(Mutation.create().deleteRow()))
        }
    }

    @Test
    fun aMultiClusterProfileFailsOverWhenAClusterIsDown() = replicated {
        control.setClusterAvailable("cluster-1", false)
        assertEquals(mapOf("cluster-1" to false, "cluster-2" to true), control.clusterAvailability())
        assertEquals(listOf(false, true), admin.listClusters().map { it.available })
        write("any", "r", "v")
        assertEquals("v", read("any", "r"))
        assertEquals("v", read("to-c2", "r"))
        control.setClusterAvailable("cluster-1", true)
        control.advanceMicros(1_000_000)
        assertEquals("v", read("to-c1", "r"))
    }

    @Test
    fun aSingleClusterProfileToADownClusterIsUnavailable() = replicated {
        control.setClusterAvailable("cluster-1", false)
        val e = assertFailsWith<UnavailableException> { write("to-c1", "r", "v") }
        assertEquals(
            "UNAVAILABLE: cluster \"cluster-1\" is unavailable; app profile \"to-c1\" routes only to it (single-cluster routing fails over by hand)",
            e.message,
        )
        assertTrue(e.isRetryable)
        assertFailsWith<UnavailableException> { read("to-c1", "r") }
    }

    @Test
    fun injectedFaultsFailTheNamedRpcAtTheNamedCluster() = replicated {
        control.injectFault(code = "UNAVAILABLE", rpc = "ReadRows", clusterId = "cluster-2", count = 2)
        assertEquals(1, control.faultCount)
        assertNull(read("to-c1", "r"))
        write("to-c2", "r", "v")
        repeat(2) { assertFailsWith<UnavailableException> { read("to-c2", "r") } }
        assertEquals("v", read("to-c2", "r"))
        control.clearFaults(seed = 7)
        assertEquals(0, control.faultCount)
        val e = assertFailsWith<InvalidArgumentException> { control.injectFault(code = "NOPE") }
        assertTrue(e.message!!.startsWith("INVALID_ARGUMENT: code \"NOPE\" cannot be injected"), e.message)
        assertFailsWith<NotFoundException> { control.injectFault(code = "UNAVAILABLE", clusterId = "c9") }
    }

    @Test
    fun codesOnlyAClientSeesCanBeInjectedAsGaxNamesThem() = replicated {
        control.injectFault(code = "UNAUTHENTICATED", rpc = "MutateRow", count = 1)
        val e = assertFailsWith<UnauthenticatedException> { write("to-c1", "r", "v") }
        assertEquals(StatusCode.UNAUTHENTICATED, e.statusCode)
        assertEquals(16, e.statusCode.value)
        assertTrue(e.message!!.startsWith("UNAUTHENTICATED: "), e.message)
        control.injectFault(code = "CANCELLED", rpc = "ReadRows", count = 1)
        val c = assertFailsWith<CancelledException> { read("to-c1", "r") }
        assertEquals(1, c.statusCode.value)
        control.injectFault(code = "UNKNOWN", rpc = "ReadRows", count = 1)
        assertEquals(StatusCode.UNKNOWN, assertFailsWith<UnknownException> { read("to-c1", "r") }.statusCode)
        control.injectFault(code = "PERMISSION_DENIED", rpc = "ReadRows", count = 1)
        assertFailsWith<PermissionDeniedException> { read("to-c1", "r") }
        write("to-c1", "r", "v")
        assertEquals("v", read("to-c1", "r"))
    }

    @Test
    fun anUnknownProfileIsNotFoundAndTheDefaultProfileRoutes() = replicated {
        assertFailsWith<NotFoundException> { read("nope", "r") }
        // A client without a profile (the default one) on a replicated instance is routed too.
        BigtableDataClient.create(instance).use { plain ->
            plain.mutateRow(RowMutation.create("t", "d").setCell("cf", "q", 1000, "x"))
            assertEquals("x", plain.readRow("t", "d")?.cells?.single()?.valueUtf8)
        }
        assertEquals(listOf("any", "default", "to-c1", "to-c2"), admin.listAppProfiles().map { it.id })
        admin.deleteAppProfile("any")
        assertFailsWith<NotFoundException> { admin.getAppProfile("any") }
        assertFailsWith<NotFoundException> { read("any", "r") }
    }
}
