// The table admin client against the real engine: the table lifecycle, family changes, and
// GC rules taking effect on reads at once (with the manual clock for max age).
package dev.sparsetable

import dev.sparsetable.admin.BigtableTableAdminClient
import dev.sparsetable.admin.ColumnFamily
import dev.sparsetable.admin.CreateTableRequest
import dev.sparsetable.admin.GCRULES
import dev.sparsetable.admin.GCRule
import dev.sparsetable.admin.ModifyColumnFamiliesRequest
import dev.sparsetable.admin.TimestampGranularity
import dev.sparsetable.admin.UpdateTableRequest
import org.junit.Test
import java.time.Duration
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue

class AdminClientTest {
    @Test
    fun tablesAreCreatedListedDescribedAndDeleted(): Unit = Sparsetable.inMemory(ManualClock(T0)).use { instance ->
        val admin = BigtableTableAdminClient.create(instance)
        val created = admin.createTable(
            CreateTableRequest.of("users").addFamily("profile").addFamily("history", GCRULES.maxVersions(3))
                .setTimestampGranularity(TimestampGranularity.MICROS),
        )
        admin.createTable("accounts") { addFamily("cf") }
        assertEquals("users", created.id)
        // In creation order: the request's.
        assertEquals(listOf(ColumnFamily("profile", GCRule.DefaultRule), ColumnFamily("history", GCRule.VersionRule(3))), created.columnFamilies)
        assertEquals(TimestampGranularity.MICROS, created.granularity)
        assertEquals(listOf("accounts", "users"), admin.listTables())
        assertTrue(admin.exists("users"))
        assertFailsWith<AlreadyExistsException> { admin.createTable("users") { addFamily("x") } }
        assertFailsWith<InvalidArgumentException> { admin.createTable("-bad id") }
        admin.deleteTable("users")
        assertFalse(admin.exists("users"))
        assertFailsWith<NotFoundException> { admin.getTable("users") }
        assertFailsWith<NotFoundException> { admin.deleteTable("users") }
        assertEquals(listOf("accounts"), admin.listTables())
    }

    @Test
    fun protectedTableCannotBeDeleted(): Unit = Sparsetable.inMemory().use { instance ->
        val admin = BigtableTableAdminClient.create(instance)
        admin.createTable(CreateTableRequest.of("keep").addFamily("cf").setDeletionProtection(true))
        val e = assertFailsWith<FailedPreconditionException> { admin.deleteTable("keep") }
        assertEquals(StatusCode.FAILED_PRECONDITION, e.statusCode)
        assertTrue(admin.getTable("keep").isDeletionProtected)
    }

    @Test
    fun familyChangesApplyAllOrNothing() = withTable { client, admin, _ ->
        client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", 1_000, "v"))
        val table = admin.modifyFamilies(ModifyColumnFamiliesRequest.of("t").addFamily("new").updateFamily("cf", GCRULES.maxVersions(1)))
        assertEquals(listOf(ColumnFamily("cf", GCRule.VersionRule(1)), ColumnFamily("new", GCRule.DefaultRule)), table.columnFamilies)
        // The second change fails, so the first (dropping cf) must not happen either.
        assertFailsWith<NotFoundException> { admin.modifyFamilies("t") { dropFamily("cf"); dropFamily("absent") } }
        assertEquals(listOf("v"), client.readRow("t", "r")!!.values())
        assertFailsWith<AlreadyExistsException> { admin.modifyFamilies("t") { addFamily("new") } }
        assertFailsWith<InvalidArgumentException> { admin.modifyFamilies("t") {} }
        assertFailsWith<InvalidArgumentException> { admin.modifyFamilies("t") { updateFamily("cf", GCRULES.maxVersions(0)) } }
        admin.modifyFamilies("t") { dropFamily("cf") }
        assertNull(client.readRow("t", "r"))
        assertFailsWith<NotFoundException> { client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", 1_000, "v")) }
    }

    @Test
    fun deletionProtectionCanBeTurnedOff(): Unit = Sparsetable.inMemory().use { instance ->
        val admin = BigtableTableAdminClient.create(instance)
        admin.createTable(CreateTableRequest.of("keep").addFamily("cf").setDeletionProtection(true))
        assertFalse(admin.updateTable(UpdateTableRequest.of("keep").setDeletionProtection(false)).isDeletionProtected)
        admin.deleteTable("keep")
        assertFailsWith<NotFoundException> { admin.updateTable(UpdateTableRequest.of("keep").setDeletionProtection(true)) }
    }

    @Test
    fun dropRowRangeDeletesByPrefixOrEverything() = withTable { client, admin, _ ->
        for (k in listOf("user#1", "user#2", "userx", "v")) client.mutateRow(RowMutation.create("t", k).setCell("cf", "q", 1_000, k))
        admin.dropRowRange("t", "user#")
        assertEquals(listOf("userx", "v"), client.readRows(Query.create("t")).keys())
        assertFailsWith<InvalidArgumentException> { admin.dropRowRange("t", "") }
        admin.dropAllRows("t")
        assertEquals(emptyList(), client.readRows(Query.create("t")).toList())
        assertTrue(admin.exists("t"))
    }

    @Test
    fun maxVersionsHidesOlderCellsAtOnce() = withTable { client, admin, _ ->
        admin.modifyFamilies("t") { addFamily("h", GCRULES.maxVersions(2)) }
        client.mutateRow("t", "r") { for (ts in 1..4) setCell("h", "q", ts * 1_000L, "v$ts") }
        assertEquals(listOf("v4", "v3"), client.readRow("t", "r")!!.values())
    }

    @Test
    fun maxAgeFollowsTheManualClock() = withTable { client, admin, clock ->
        admin.modifyFamilies("t") { addFamily("recent", GCRULES.maxAge(Duration.ofSeconds(10))) }
        client.mutateRow("t", "r") { setCell("recent", "q", "now") }
        assertEquals(listOf("now"), client.readRow("t", "r")!!.values())
        clock.advance(Duration.ofSeconds(11))
        assertNull(client.readRow("t", "r"))
    }

    @Test
    fun unionAndIntersectionRulesRoundTrip() = withTable { _, admin, _ ->
        val rule = GCRULES.union().rule(GCRULES.maxVersions(5)).rule(GCRULES.intersection(GCRULES.maxAge(Duration.ofDays(1)), GCRULES.maxVersions(2)))
        val table = admin.modifyFamilies("t") { addFamily("mixed", rule) }
        assertEquals(rule, table.columnFamilies.single { it.id == "mixed" }.gcRule)
        assertEquals(Duration.ofDays(1), ((rule.rules[1] as GCRule.IntersectionRule).rules[0] as GCRule.DurationRule).maxAge)
    }
}
