// Continuous materialized views through the Kotlin admin client: created with
// BigtableInstanceAdminClient, read back with readRows(Query.create(MaterializedViewId.of(id)))
// and with SQL (`FROM view`), kept up to date by writes, recomputed when a durable directory is reopened (their
// definitions are in its INSTANCE file), and refused with Bigtable's codes (bad id, a query
// the engine does not maintain, a taken id, unknown view or instance, stale etag, deletion
// protection).
package dev.sparsetable

import dev.sparsetable.admin.BigtableInstanceAdminClient
import dev.sparsetable.admin.BigtableTableAdminClient
import dev.sparsetable.admin.CreateMaterializedViewRequest
import dev.sparsetable.admin.UpdateMaterializedViewRequest
import org.junit.Test
import java.io.File
import java.nio.ByteBuffer
import java.nio.file.Files
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertNotEquals
import kotlin.test.assertTrue

class MaterializedViewsAdminTest {
    private val inst = Sparsetable.INSTANCE_ID

    private val byGroup = "SELECT cf['g'] AS _key, COUNT(*) AS n FROM t GROUP BY _key"

    private fun put(client: BigtableDataClient, key: String, group: String) =
        client.mutateRow("t", key) { setCell("cf", "g", 1000L, group) }

    /** The view's rows as `group=count`. */
    private fun counts(client: BigtableDataClient, viewId: String): List<String> =
        client.readRowsList(Query.create(MaterializedViewId.of(viewId))).map { row ->
            "${row.keyUtf8}=${ByteBuffer.wrap(row.getCells("n").single().value).long}"
        }

    @Test
    fun aMaterializedViewIsReadWithReadRowsAndKeptUpToDate() = Sparsetable.inMemory(ManualClock(T0)).use { instance ->
        BigtableTableAdminClient.create(instance).createTable("t") { addFamily("cf") }
        val admin = BigtableInstanceAdminClient.create(instance)
        BigtableDataClient.create(instance).use { client ->
            put(client, "a", "x")
            put(client, "b", "x")
            val view = admin.createMaterializedView(CreateMaterializedViewRequest.of(inst, "by_group").setQuery(byGroup))
            assertEquals(listOf("by_group", inst, byGroup, false), listOf(view.id, view.instanceId, view.query, view.isDeletionProtected))
            assertNotEquals("", view.etag)
            assertEquals(listOf("x=2"), counts(client, "by_group"))
            put(client, "c", "y")
            put(client, "a", "y")
            assertEquals(listOf("x=1", "y=2"), counts(client, "by_group"))
            // SQL reads the view by name too, its output columns typed as the query computes them.
            val sql = client.executeQuery(Statement.of("SELECT SAFE_CONVERT_BYTES_TO_STRING(_key) AS g, n FROM by_group ORDER BY g")).use { rs ->
                generateSequence { if (rs.next()) "${rs.getString("g")}=${rs.getLong("n")}" else null }.toList()
            }
            assertEquals(listOf("x=1", "y=2"), sql)
            assertEquals(listOf("by_group"), admin.listMaterializedViews(inst).map { it.id })
            admin.deleteMaterializedView(inst, "by_group")
            assertFailsWith<NotFoundException> { counts(client, "by_group") }
            assertEquals(emptyList(), admin.listMaterializedViews(inst))
        }
    }

    @Test
    fun refusalsCarryBigtablesCodes(): Unit = Sparsetable.inMemory(ManualClock(T0)).use { instance ->
        BigtableTableAdminClient.create(instance).createTable("t") { addFamily("cf") }
        val admin = BigtableInstanceAdminClient.create(instance)
        assertFailsWith<InvalidArgumentException> { admin.createMaterializedView(CreateMaterializedViewRequest.of(inst, "-bad").setQuery(byGroup)) }
        assertFailsWith<InvalidArgumentException> { admin.createMaterializedView(CreateMaterializedViewRequest.of(inst, "v")) }
        // A query the engine does not maintain is refused by name, and nothing is recorded.
        val sorted = assertFailsWith<InvalidArgumentException> {
            admin.createMaterializedView(CreateMaterializedViewRequest.of(inst, "v").setQuery("SELECT cf['g'] AS _key FROM t ORDER BY _key"))
        }
        assertTrue("ORDER BY" in sorted.message!!, sorted.message)
        assertFailsWith<NotFoundException> { admin.createMaterializedView(CreateMaterializedViewRequest.of("other-instance", "v").setQuery(byGroup)) }
        assertEquals(emptyList(), admin.listMaterializedViews(inst))
        val v = admin.createMaterializedView(CreateMaterializedViewRequest.of(inst, "v").setQuery(byGroup).setDeletionProtection(true))
        assertFailsWith<AlreadyExistsException> { admin.createMaterializedView(CreateMaterializedViewRequest.of(inst, "v").setQuery(byGroup)) }
        assertFailsWith<NotFoundException> { admin.getMaterializedView(inst, "w") }
        assertFailsWith<FailedPreconditionException> { admin.deleteMaterializedView(inst, "v") }
        // An update made of the view as read carries its etag: once the view changed, ABORTED.
        val open = admin.updateMaterializedView(UpdateMaterializedViewRequest.of(v).setDeletionProtection(false))
        assertFalse(open.isDeletionProtected)
        assertNotEquals(v.etag, open.etag)
        assertFailsWith<AbortedException> { admin.updateMaterializedView(UpdateMaterializedViewRequest.of(v).setDeletionProtection(true)) }
        assertFailsWith<NotFoundException> { admin.updateMaterializedView(UpdateMaterializedViewRequest.of(inst, "w")) }
        assertEquals(open.etag, admin.getMaterializedView(inst, "v").etag)
        admin.deleteMaterializedView(inst, "v")
        assertFailsWith<NotFoundException> { admin.deleteMaterializedView(inst, "v") }
    }

    @Test
    fun aDurableInstanceRecomputesItsViewsWhenReopened() {
        val root = Files.createTempDirectory("sparsetable-mviews").toFile()
        try {
            val dir = File(root, "proj/inst-1")
            Sparsetable.open(dir, Durability.NONE).use { instance ->
                BigtableTableAdminClient.create(instance).createTable("t") { addFamily("cf") }
                BigtableDataClient.create(instance).use { client ->
                    put(client, "a", "x")
                    BigtableInstanceAdminClient.create(instance)
                        .createMaterializedView(CreateMaterializedViewRequest.of("inst-1", "by_group").setQuery(byGroup))
                    put(client, "b", "y")
                }
            }
            Sparsetable.open(dir, Durability.NONE).use { instance ->
                BigtableDataClient.create(instance).use { client ->
                    assertEquals(listOf("x=1", "y=1"), counts(client, "by_group"))
                    put(client, "c", "y")
                    assertEquals(listOf("x=1", "y=2"), counts(client, "by_group"))
                }
            }
        } finally {
            root.deleteRecursively()
        }
    }
}
