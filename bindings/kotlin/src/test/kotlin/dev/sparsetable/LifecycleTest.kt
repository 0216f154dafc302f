// Clients are AutoCloseable: `use {}` closes them, a closed client refuses calls, and a client
// that created its instance frees it.
package dev.sparsetable

import dev.sparsetable.admin.BigtableTableAdminClient
import org.junit.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertTrue

class LifecycleTest {
    @Test
    fun useClosesTheClient() {
        val instance = Sparsetable.inMemory(ManualClock(T0))
        val escaped = BigtableDataClient.create(instance).use { client ->
            BigtableTableAdminClient.create(instance).createTable("t") { addFamily("cf") }
            client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", 1_000, "v"))
            assertFalse(client.isClosed)
            client
        }
        assertTrue(escaped.isClosed)
        assertFailsWith<IllegalStateException> { escaped.readRow("t", "r") }
        // The instance was not the client's to close: a new client still sees the data.
        BigtableDataClient.create(instance).use { assertEquals(listOf("v"), it.readRow("t", "r")!!.values()) }
        instance.close()
        assertFailsWith<IllegalStateException> { BigtableDataClient.create(instance).readRow("t", "r") }
    }

    @Test
    fun ownedInstanceIsClosedWithTheClient() {
        val client = BigtableDataClient.createInMemory(ManualClock(T0))
        val admin = BigtableTableAdminClient.create(client)
        admin.createTable("t") { addFamily("cf") }
        client.close()
        client.close() // idempotent
        assertFailsWith<IllegalStateException> { admin.listTables() }
    }

    @Test
    fun clientsOfOneInstanceShareItsTables(): Unit = Sparsetable.inMemory(ManualClock(T0)).use { instance ->
        BigtableTableAdminClient.create(instance).use { it.createTable("t") { addFamily("cf") } }
        BigtableDataClient.create(instance).use { it.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", 1_000, "v")) }
        BigtableDataClient.create(instance).use { assertEquals(listOf("v"), it.readRow("t", "r")!!.values()) }
        assertEquals(T0, instance.nowMicros)
    }
}
