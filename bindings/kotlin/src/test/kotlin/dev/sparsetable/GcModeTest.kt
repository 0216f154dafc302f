// GcMode through the Kotlin layer (the core's rule, passed through): BACKGROUND keeps the
// versions a GC rule makes collectable readable until collectGarbage, as Cloud Bigtable does;
// IMMEDIATE, the default, hides them at once; a durable instance keeps its uncollected
// versions across a reopen in BACKGROUND.
package dev.sparsetable

import dev.sparsetable.admin.BigtableTableAdminClient
import dev.sparsetable.admin.GCRULES
import org.junit.Test
import java.nio.file.Files
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith

class GcModeTest {
    private fun threeVersions(instance: Sparsetable) {
        BigtableTableAdminClient.create(instance).createTable("t") { addFamily("cf", GCRULES.maxVersions(1)) }
        BigtableDataClient.create(instance).use { c ->
            for (ts in listOf(1_000L, 2_000L, 3_000L)) c.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", ts, "v$ts"))
        }
    }

    private fun versions(instance: Sparsetable): List<Long> =
        BigtableDataClient.create(instance).use { c -> c.readRow("t", "r")!!.cells.map { it.timestamp } }

    @Test
    fun backgroundKeepsVersionsUntilCollected() {
        Sparsetable.inMemory(ManualClock(1_700_000_000_000_000L), GcMode.BACKGROUND).use { instance ->
            assertEquals(GcMode.BACKGROUND, instance.gcMode)
            threeVersions(instance)
            assertEquals(listOf(3_000L, 2_000L, 1_000L), versions(instance))
            instance.collectGarbage("t")
            assertEquals(listOf(3_000L), versions(instance))
            assertFailsWith<NotFoundException> { instance.collectGarbage("absent") }
        }
    }

    @Test
    fun immediateIsTheDefault() {
        Sparsetable.inMemory(ManualClock(1_700_000_000_000_000L)).use { instance ->
            assertEquals(GcMode.IMMEDIATE, instance.gcMode)
            threeVersions(instance)
            assertEquals(listOf(3_000L), versions(instance))
            instance.collectGarbage()
            assertEquals(listOf(3_000L), versions(instance))
        }
    }

    @Test
    fun backgroundVersionsSurviveAReopen() {
        val dir = Files.createTempDirectory("sparsetable-gc").toFile()
        try {
            Sparsetable.open(dir, Durability.SYNC, GcMode.BACKGROUND).use { threeVersions(it) }
            Sparsetable.open(dir, Durability.SYNC, GcMode.BACKGROUND).use { assertEquals(listOf(3_000L, 2_000L, 1_000L), versions(it)) }
            Sparsetable.open(dir).use { assertEquals(listOf(3_000L), versions(it)) }
        } finally {
            dir.deleteRecursively()
        }
    }
}
