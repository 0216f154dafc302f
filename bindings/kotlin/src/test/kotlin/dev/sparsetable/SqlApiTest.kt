// The SQL surface as a user of Google's Java client meets it: Statement's typed setters,
// ResultSet's getters by index and name, prepared statements and their bound parameters, and
// errors as ApiExceptions with the engine's codes. The shared SQL vectors run in
// SqlVectorsTest.
package dev.sparsetable

import dev.sparsetable.admin.BigtableTableAdminClient
import org.junit.Test
import java.nio.ByteBuffer
import java.time.Instant
import java.time.LocalDate
import kotlin.test.assertContentEquals
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertTrue

class SqlApiTest {
    private fun withClient(block: (BigtableDataClient) -> Unit) =
        Sparsetable.inMemory(ManualClock(1_700_000_000_000_000L)).use { instance ->
            BigtableTableAdminClient.create(instance).createTable("t") { addFamily("cf") }
            val client = BigtableDataClient.create(instance)
            client.mutateRow("t", "r1") { setCell("cf", "q", 1000L, "v1") }
            client.mutateRow("t", "r2") { setCell("cf", "q", 2000L, "v2") }
            block(client)
        }

    @Test
    fun `executeQuery returns a ResultSet read with typed getters`() = withClient { client ->
        val statement = Statement.newBuilder(
            "SELECT _key, cf['q'] AS v, @n + 1 AS n, @t AS t, @d AS d, cf, @f AS f, @a AS a, @s AS s FROM t WHERE _key = @k",
        )
            .setBytesParam("k", "r1".toByteArray())
            .setLongParam("n", 41L)
            .setTimestampParam("t", Instant.parse("2024-03-15T10:30:45.123456Z"))
            .setDateParam("d", LocalDate.of(2024, 2, 29))
            .setDoubleParam("f", 0.5)
            .setListParam("a", listOf(1L, null), SqlType.arrayOf(SqlType.int64()))
            .setStringParam("s", null)
            .build()
        client.executeQuery(statement).use { rs ->
            val columns = rs.getMetadata().getColumns()
            assertEquals(listOf("_key", "v", "n", "t", "d", "cf", "f", "a", "s"), columns.map { it.name() })
            assertEquals(SqlType.mapOf(SqlType.bytes(), SqlType.bytes()), rs.getMetadata().getColumnType("cf"))
            assertTrue(rs.next())
            assertContentEquals("r1".toByteArray(), rs.getBytes("_key"))
            assertContentEquals("v1".toByteArray(), rs.getBytes(1))
            assertEquals(42L, rs.getLong("n"))
            assertEquals(Instant.parse("2024-03-15T10:30:45.123456Z"), rs.getTimestamp("t"))
            assertEquals(LocalDate.of(2024, 2, 29), rs.getDate("d"))
            assertContentEquals("v1".toByteArray(), rs.getMap("cf")[ByteBuffer.wrap("q".toByteArray())] as ByteArray)
            assertEquals(0.5, rs.getDouble("f"))
            assertEquals(listOf<Any?>(1L, null), rs.getList("a"))
            assertTrue(rs.isNull("s"))
            assertFailsWith<IllegalStateException> { rs.getString("n") }
            assertFalse(rs.next())
            assertFailsWith<IllegalStateException> { rs.getLong("n") }
        }
    }

    @Test
    fun `prepared statements bind exactly their declared parameters`() = withClient { client ->
        val prepared = client.prepareStatement("SELECT COUNT(*) AS c FROM t WHERE _key >= @k", mapOf("k" to SqlType.string()))
        assertEquals(SqlType.int64(), prepared.resultSetMetadata.getColumnType("c"))
        client.executeQuery(prepared.bind().setStringParam("k", "r2").build()).use { rs ->
            assertTrue(rs.next())
            assertEquals(1L, rs.getLong(0))
        }
        assertFailsWith<InvalidArgumentException> { client.executeQuery(prepared.bind().build()) }
        assertFailsWith<InvalidArgumentException> { client.executeQuery(prepared.bind().setLongParam("k", 1L).build()) }
        assertFailsWith<InvalidArgumentException> { client.executeQuery(prepared.bind().setStringParam("k", "a").setLongParam("x", 1L).build()) }
    }

    @Test
    fun `bind builds a BoundStatement, and executeQueryAsync runs one on the client's pool`() = withClient { client ->
        val prepared = client.prepareStatement("SELECT _key, @n * 2 AS n FROM t WHERE _key >= @k", mapOf("k" to SqlType.string(), "n" to SqlType.int64()))
        val bound: BoundStatement = prepared.bind().setStringParam("k", "r2").setLongParam("n", 21L).build()
        assertTrue(bound.preparedStatement === prepared)
        assertEquals(prepared.query, bound.query)
        client.executeQueryAsync(bound).get().use { rs ->
            assertTrue(rs.next())
            assertEquals("r2", rs.getBytes("_key").decodeToString())
            assertEquals(42L, rs.getLong("n"))
            assertFalse(rs.next())
        }
        // A Statement runs asynchronously too; errors complete the future with the ApiException.
        client.executeQueryAsync(Statement.of("SELECT HLL_COUNT.EXTRACT(HLL_COUNT.INIT(_key)) AS n FROM t")).get().use { rs ->
            assertTrue(rs.next())
            assertEquals(2L, rs.getLong("n"))
        }
        val missing = assertFailsWith<java.util.concurrent.ExecutionException> { client.executeQueryAsync(prepared.bind().setStringParam("k", "r1").build()).get() }
        assertTrue(missing.cause is InvalidArgumentException, missing.cause.toString())
        val running = assertFailsWith<java.util.concurrent.ExecutionException> { client.executeQueryAsync(Statement.of("SELECT 1 / 0 AS x")).get() }
        assertTrue(running.cause is OutOfRangeException, running.cause.toString())
    }

    @Test
    fun `errors are the engine's, with their codes`() = withClient { client ->
        val e = assertFailsWith<InvalidArgumentException> { client.executeQuery(Statement.of("SELEC 1")) }
        assertTrue(e.message!!.contains("1:1"), e.message)
        assertFailsWith<NotFoundException> { client.executeQuery(Statement.of("SELECT * FROM missing")) }
        assertFailsWith<NotFoundException> { client.prepareStatement("SELECT * FROM missing", emptyMap()) }
        assertFailsWith<OutOfRangeException> { client.executeQuery(Statement.of("SELECT 1 / 0 AS x")) }
        assertFailsWith<InvalidArgumentException> {
            client.executeQuery(Statement.newBuilder("SELECT @m").setListParam("m", listOf("x"), SqlType.arrayOf(SqlType.int64())).build())
        }
    }
}
