// The README's replication example: an in-memory instance with two clusters on a manual
// clock, clients routed by app profile, the replication lag, an outage and consistency tokens.
// scripts/suites/kotlin.sh compiles and runs it, and checks that the README's "Replication"
// block is this file's text, so both stay true.
import dev.sparsetable.BigtableDataClient
import dev.sparsetable.BigtableDataSettings
import dev.sparsetable.InstanceControl
import dev.sparsetable.ManualClock
import dev.sparsetable.RowMutation
import dev.sparsetable.Sparsetable
import dev.sparsetable.UnavailableException
import dev.sparsetable.admin.AppProfile
import dev.sparsetable.admin.BigtableInstanceAdminClient
import dev.sparsetable.admin.BigtableTableAdminClient
import dev.sparsetable.admin.CreateAppProfileRequest
import dev.sparsetable.admin.CreateClusterRequest

fun main() {
    val clock = ManualClock(1_700_000_000_000_000)
    Sparsetable.inMemory(clock).use { instance ->
        BigtableTableAdminClient.create(instance).createTable("t") { addFamily("cf") }
        val admin = BigtableInstanceAdminClient.create(instance)
        admin.createCluster(CreateClusterRequest.of("sparsetable-c2"))   // next to the first cluster, sparsetable-c1
        admin.createAppProfile(CreateAppProfileRequest.of("east")
            .setRoutingPolicy(AppProfile.SingleClusterRoutingPolicy.of(Sparsetable.DEFAULT_CLUSTER_ID, true)))
        admin.createAppProfile(CreateAppProfileRequest.of("west")
            .setRoutingPolicy(AppProfile.SingleClusterRoutingPolicy.of("sparsetable-c2")))
        val control = InstanceControl.create(instance)
        control.setReplicationLagMicros(2_000_000)            // writes reach the other cluster 2 s later

        val east = BigtableDataClient.create(instance, "east")
        val west = BigtableDataClient.create(
            BigtableDataSettings.newBuilder().setInstance(instance).setAppProfileId("west").build())
        east.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", 1_000, "v"))
        val token = control.generateConsistencyToken("t")
        println("west before the lag: ${west.readRow("t", "r")?.cells?.first()?.valueUtf8}")
        println("consistent: ${control.checkConsistency("t", token)}")
        control.advanceMicros(2_000_000)                      // moves the clock and delivers
        println("west after the lag: ${west.readRow("t", "r")?.cells?.first()?.valueUtf8}")
        println("consistent: ${control.checkConsistency("t", token)}")

        control.setClusterAvailable("sparsetable-c2", false)
        try {
            west.readRow("t", "r")
        } catch (e: UnavailableException) {
            println(e.message)
        }
        east.close(); west.close()
    }
}
