// Logical views and row-key schemas through the Kotlin admin clients: a view created with
// BigtableInstanceAdminClient is read by the data client's executeQuery (`FROM view`), kept
// in a durable directory's INSTANCE file across a reopen, and refused with Bigtable's codes
// (bad id, bad query, taken id, unknown view or instance, stale etag, deletion protection);
// a table created with a row-key schema reads its key fields as SQL columns, and the schema
// is set, kept and removed by the core's UpdateTable rules.
package dev.sparsetable

import dev.sparsetable.admin.BigtableInstanceAdminClient
import dev.sparsetable.admin.BigtableTableAdminClient
import dev.sparsetable.admin.CreateLogicalViewRequest
import dev.sparsetable.admin.CreateTableRequest
import dev.sparsetable.admin.RowKeySchema
import dev.sparsetable.admin.UpdateLogicalViewRequest
import dev.sparsetable.admin.UpdateTableRequest
import org.junit.Test
import java.io.File
import java.nio.file.Files
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertNotEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

class ViewsAdminTest {
    private val inst = Sparsetable.INSTANCE_ID

    /** A view over `t`: each row's key as text and `cf:n` as a number, rows after "a". */
    private val numsQuery =
        "SELECT SAFE_CONVERT_BYTES_TO_STRING(_key) AS k, CAST(SAFE_CONVERT_BYTES_TO_STRING(cf['n']) AS INT64) AS n FROM t WHERE _key > b'a'"

    private fun fill(instance: Sparsetable) {
        BigtableTableAdminClient.create(instance).createTable("t") { addFamily("cf") }
        BigtableDataClient.create(instance).use { c ->
            for ((key, n) in listOf("a" to "1", "b" to "2", "c" to "3")) c.mutateRow("t", key) { setCell("cf", "n", 1000L, n) }
        }
    }

    private fun rows(client: BigtableDataClient, sql: String): List<List<Any?>> =
        client.executeQuery(Statement.of(sql)).use { rs ->
            val n = rs.getMetadata().getColumns().size
            generateSequence { if (rs.next()) (0 until n).map { i -> if (rs.isNull(i)) null else rs.getValue(i) } else null }.toList()
        }

    private fun ResultSet.getValue(i: Int): Any? = when (getMetadata().getColumns()[i].type()) {
        SqlType.int64() -> getLong(i)
        else -> getString(i)
    }

    @Test
    fun aLogicalViewIsReadByExecuteQuery() = Sparsetable.inMemory(ManualClock(T0)).use { instance ->
        fill(instance)
        val admin = BigtableInstanceAdminClient.create(instance)
        val view = admin.createLogicalView(CreateLogicalViewRequest.of(inst, "nums").setQuery(numsQuery))
        assertEquals(listOf("nums", inst, numsQuery, false), listOf(view.id, view.instanceId, view.query, view.isDeletionProtected))
        assertNotEquals("", view.etag)
        BigtableDataClient.create(instance).use { client ->
            assertEquals(listOf(listOf<Any?>("b", 2L), listOf<Any?>("c", 3L)), rows(client, "SELECT k, n FROM nums"))
            // The outer WHERE combines with the view's; a view over the view reads through it.
            assertEquals(listOf(listOf<Any?>(3L)), rows(client, "SELECT n FROM nums WHERE n > 2"))
            admin.createLogicalView(CreateLogicalViewRequest.of(inst, "big").setQuery("SELECT k, n * 10 AS tens FROM nums"))
            assertEquals(listOf(listOf<Any?>("b", 20L), listOf<Any?>("c", 30L)), rows(client, "SELECT k, tens FROM big"))
            val prepared = client.prepareStatement("SELECT tens FROM big", emptyMap())
            assertEquals(SqlType.int64(), prepared.resultSetMetadata.getColumnType("tens"))
            // Updated, the view reads its new query.
            admin.updateLogicalView(UpdateLogicalViewRequest.of(admin.getLogicalView(inst, "nums")).setQuery(numsQuery.replace("b'a'", "b'b'")))
            assertEquals(listOf(listOf<Any?>("c", 30L)), rows(client, "SELECT k, tens FROM big"))
            // Deleted, a query of it (or of a view reading it) is a SQL error naming it.
            admin.deleteLogicalView(inst, "big")
            assertFailsWith<NotFoundException> { rows(client, "SELECT * FROM big") }
            assertEquals(listOf("nums"), admin.listLogicalViews(inst).map { it.id })
        }
    }

    @Test
    fun refusalsCarryBigtablesCodes() = Sparsetable.inMemory(ManualClock(T0)).use { instance ->
        fill(instance)
        val admin = BigtableInstanceAdminClient.create(instance)
        val bad = assertFailsWith<InvalidArgumentException> {
            admin.createLogicalView(CreateLogicalViewRequest.of(inst, "-bad").setQuery("SELECT 1 AS x"))
        }
        assertTrue("logical_view_id" in bad.message!!, bad.message)
        assertFailsWith<InvalidArgumentException> { admin.createLogicalView(CreateLogicalViewRequest.of(inst, "v")) }
        // A query that does not prepare is INVALID_ARGUMENT with the SQL error's text, even
        // when preparing said NOT_FOUND.
        val missing = assertFailsWith<InvalidArgumentException> {
            admin.createLogicalView(CreateLogicalViewRequest.of(inst, "v").setQuery("SELECT * FROM nope"))
        }
        assertTrue("nope" in missing.message!!, missing.message)
        assertFailsWith<NotFoundException> {
            admin.createLogicalView(CreateLogicalViewRequest.of("other-instance", "v").setQuery(numsQuery))
        }
        val v = admin.createLogicalView(CreateLogicalViewRequest.of(inst, "v").setQuery(numsQuery).setDeletionProtection(true))
        assertTrue(v.isDeletionProtected)
        assertFailsWith<AlreadyExistsException> { admin.createLogicalView(CreateLogicalViewRequest.of(inst, "v").setQuery(numsQuery)) }
        assertFailsWith<NotFoundException> { admin.getLogicalView(inst, "w") }
        assertFailsWith<NotFoundException> { admin.listLogicalViews("other-instance") }
        assertFailsWith<FailedPreconditionException> { admin.deleteLogicalView(inst, "v") }
        // An update made of the view as read carries its etag: once the view changed, ABORTED.
        val unprotected = admin.updateLogicalView(UpdateLogicalViewRequest.of(v).setDeletionProtection(false))
        assertFalse(unprotected.isDeletionProtected)
        assertEquals(numsQuery, unprotected.query)
        assertNotEquals(v.etag, unprotected.etag)
        assertFailsWith<AbortedException> { admin.updateLogicalView(UpdateLogicalViewRequest.of(v).setQuery("SELECT 1 AS x")) }
        assertFailsWith<InvalidArgumentException> {
            admin.updateLogicalView(UpdateLogicalViewRequest.of(inst, "v").setQuery("SELECT nope FROM t"))
        }
        assertFailsWith<NotFoundException> { admin.updateLogicalView(UpdateLogicalViewRequest.of(inst, "w").setQuery("SELECT 1 AS x")) }
        // Every refusal changed nothing.
        val now = admin.getLogicalView(inst, "v")
        assertEquals(listOf(unprotected.etag, numsQuery), listOf(now.etag, now.query))
        admin.deleteLogicalView(inst, "v")
        assertFailsWith<NotFoundException> { admin.deleteLogicalView(inst, "v") }
        assertEquals(emptyList(), admin.listLogicalViews(inst))
    }

    @Test
    fun aDurableInstanceKeepsItsViewsAcrossAReopen() {
        val root = Files.createTempDirectory("sparsetable-views").toFile()
        try {
            // The server's layout, DATA_DIR/{project}/{instance}: the directory names the instance.
            val dir = File(root, "proj/inst-1")
            Sparsetable.open(dir, Durability.NONE).use { instance ->
                fill(instance)
                BigtableInstanceAdminClient.create(instance)
                    .createLogicalView(CreateLogicalViewRequest.of("inst-1", "nums").setQuery(numsQuery))
            }
            Sparsetable.open(dir, Durability.NONE).use { instance ->
                // No admin client made: the data client finds the view in the INSTANCE file.
                BigtableDataClient.create(instance).use { client ->
                    assertEquals(listOf(listOf<Any?>(3L)), rows(client, "SELECT n FROM nums WHERE k = 'c'"))
                }
                assertEquals(listOf("nums"), BigtableInstanceAdminClient.create(instance).listLogicalViews("inst-1").map { it.id })
            }
        } finally {
            root.deleteRecursively()
        }
    }

    @Test
    fun aRowKeySchemaTableReadsItsKeyFieldsAsColumns(): Unit = Sparsetable.inMemory(ManualClock(T0)).use { instance ->
        val tables = BigtableTableAdminClient.create(instance)
        val schema = RowKeySchema.delimitedBytes(
            "#",
            RowKeySchema.Field("user", RowKeySchema.FieldType.STRING),
            RowKeySchema.Field("day", RowKeySchema.FieldType.STRING),
        )
        val table = tables.createTable(CreateTableRequest.of("events").addFamily("cf").setRowKeySchema(schema))
        assertEquals(schema, table.rowKeySchema)
        assertEquals(schema, tables.getTable("events").rowKeySchema)
        BigtableDataClient.create(instance).use { client ->
            client.mutateRow("events", "alice#2025-05-20") { setCell("cf", "n", 1000L, "x") }
            client.mutateRow("events", "bob#2025-05-21") { setCell("cf", "n", 1000L, "y") }
            assertEquals(
                listOf(listOf<Any?>("alice", "2025-05-20"), listOf<Any?>("bob", "2025-05-21")),
                rows(client, "SELECT user, day FROM events"),
            )
            assertEquals(listOf(listOf<Any?>("bob")), rows(client, "SELECT user FROM events WHERE day = '2025-05-21'"))
        }
        // A field may not take a family's name; a table without a schema has none.
        assertFailsWith<InvalidArgumentException> {
            tables.createTable(
                CreateTableRequest.of("bad").addFamily("cf")
                    .setRowKeySchema(RowKeySchema.singleton(RowKeySchema.Field("cf", RowKeySchema.FieldType.BYTES))),
            )
        }
        assertFalse(tables.exists("bad"))
        tables.createTable("plain") { addFamily("cf") }
        assertNull(tables.getTable("plain").rowKeySchema)
        // UpdateTable: a table without a schema gets one; a schema is not changed; removing
        // one needs ignore_warnings.
        val ordered = RowKeySchema.orderedCodeBytes(
            RowKeySchema.Field("id", RowKeySchema.FieldType.INT64_ORDERED_CODE),
            RowKeySchema.Field("tag", RowKeySchema.FieldType.BYTES),
        )
        assertEquals(ordered, tables.updateTable(UpdateTableRequest.of("plain").setRowKeySchema(ordered)).rowKeySchema)
        assertFailsWith<InvalidArgumentException> { tables.updateTable(UpdateTableRequest.of("plain").setRowKeySchema(schema)) }
        assertFailsWith<InvalidArgumentException> { tables.updateTable(UpdateTableRequest.of("plain").clearRowKeySchema()) }
        assertEquals(ordered, tables.getTable("plain").rowKeySchema)
        assertNull(tables.updateTable(UpdateTableRequest.of("plain").clearRowKeySchema().setIgnoreWarnings(true)).rowKeySchema)
        assertFailsWith<NotFoundException> { tables.updateTable(UpdateTableRequest.of("missing").setRowKeySchema(ordered)) }
    }
}
