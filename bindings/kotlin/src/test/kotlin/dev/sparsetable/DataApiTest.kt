// The rest of the Data API against the real engine: filters, bulk mutations with per-entry
// failures, CheckAndMutateRow, ReadModifyWriteRow, aggregates and SampleRowKeys.
package dev.sparsetable

import dev.sparsetable.admin.ValueType
import org.junit.Test
import kotlin.test.assertContentEquals
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue

class DataApiTest {
    private fun long(v: Long) = java.nio.ByteBuffer.allocate(8).putLong(v).array()

    @Test
    fun filtersSelectCellsAsBigtableDoes() = withTable { client, admin, _ ->
        admin.modifyFamilies("t") { addFamily("meta") }
        client.mutateRow("t", "r") {
            for (ts in 1..3) setCell("cf", "a", ts * 1_000L, "a$ts")
            setCell("cf", "b", 1_000, "b1")
            setCell("meta", "m", 1_000, "m1")
        }
        val newestOfCf = FILTERS.chain().filter(FILTERS.family().regex("cf")).filter(FILTERS.limit().cellsPerColumn(1))
        assertEquals(listOf("a3", "b1"), client.readRow("t", "r", newestOfCf)!!.values())
        assertEquals(listOf("a2", "a1"), client.readRow("t", "r", FILTERS.timestamp().range().startClosed(1_000).endOpen(3_000))!!.values().take(2))
        assertEquals(listOf("b1"), client.readRow("t", "r", FILTERS.qualifier().rangeWithinFamily("cf").startOpen("a").endClosed("b"))!!.values())
        assertNull(client.readRow("t", "r", FILTERS.block()))
        val labelled = client.readRow("t", "r", FILTERS.chain().filter(FILTERS.value().regex("m.*")).filter(FILTERS.label("meta-cell")))!!
        assertEquals(listOf(listOf("meta-cell")), labelled.cells.map { it.labels })
        val stripped = client.readRowsList(Query.create("t").filter(FILTERS.value().strip()))
        assertTrue(stripped.single().cells.all { it.value.isEmpty() })
        val cond = FILTERS.condition(FILTERS.qualifier().regex("b")).then(FILTERS.family().regex("meta")).otherwise(FILTERS.block())
        assertEquals(listOf("m1"), client.readRow("t", "r", cond)!!.values())
    }

    @Test
    fun invalidFilterIsInvalidArgument() = withTable { client, _, _ ->
        client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", 1_000, "v"))
        assertFailsWith<InvalidArgumentException> { client.readRow("t", "r", FILTERS.limit().cellsPerRow(0)) }
        assertFailsWith<InvalidArgumentException> { client.readRows(Query.create("t").filter(FILTERS.key().regex("("))) }
        assertFailsWith<InvalidArgumentException> { client.readRow("t", "r", FILTERS.chain().filter(FILTERS.pass())) }
    }

    @Test
    fun bulkMutationAppliesGoodEntriesAndReportsBadOnes() = withTable { client, _, _ ->
        val bulk = BulkMutation.create("t")
            .add("a", Mutation.create().setCell("cf", "q", 1_000, "a"))
            .add("b", Mutation.create().setCell("missing", "q", 1_000, "b"))
            .add("c", Mutation.create().setCell("cf", "q", 1_001, "c"))
            .add("d", Mutation.create().setCell("cf", "q", 1_000, "d"))
        val e = assertFailsWith<MutateRowsException> { client.bulkMutateRows(bulk) }
        assertEquals(listOf(1 to StatusCode.NOT_FOUND, 2 to StatusCode.INVALID_ARGUMENT), e.failedMutations.map { it.index to it.error.statusCode })
        assertTrue(e.failedMutations[0].error is NotFoundException)
        assertEquals(listOf("a", "d"), client.readRows(Query.create("t")).keys())
        assertFailsWith<InvalidArgumentException> { client.bulkMutateRows(BulkMutation.create("t")) }
    }

    @Test
    fun checkAndMutateRowPicksTheBranch() = withTable { client, _, _ ->
        client.mutateRow(RowMutation.create("t", "r").setCell("cf", "status", 1_000, "new"))
        val approve = ConditionalRowMutation.create("t", "r")
            .condition(FILTERS.chain().filter(FILTERS.qualifier().regex("status")).filter(FILTERS.value().regex("new")))
            .then(Mutation.create().setCell("cf", "status", 2_000, "approved"))
            .otherwise(Mutation.create().setCell("cf", "error", 2_000, "not new"))
        assertTrue(client.checkAndMutateRow(approve))
        assertEquals(listOf("approved", "new"), client.readRow("t", "r")!!.getCells("cf", "status").map { it.valueUtf8 })
        assertFalse(client.checkAndMutateRow(ConditionalRowMutation.create("t", "empty").then(Mutation.create().setCell("cf", "q", 1_000, "x"))))
        assertNull(client.readRow("t", "empty"))
        assertFailsWith<InvalidArgumentException> { client.checkAndMutateRow(ConditionalRowMutation.create("t", "r")) }
    }

    @Test
    fun readModifyWriteAppendsAndIncrements() = withTable { client, _, clock ->
        client.mutateRow(RowMutation.create("t", "r").setCell("cf", "log", 1_000, "a"))
        val row = client.readModifyWriteRow(ReadModifyWriteRow.create("t", "r").append("cf", "log", "b").increment("cf", "hits", 5))
        assertEquals(listOf(RowCell("cf", "hits".toByteArray(), T0, long(5)), RowCell.create("cf", "log", T0, "ab")), row.cells)
        clock.advanceMicros(1_000)
        assertContentEquals(long(3), client.readModifyWriteRow(ReadModifyWriteRow.create("t", "r").increment("cf", "hits", -2)).cells[0].value)
        // "ab" is not 8 bytes: the whole call fails and the append before it is not applied.
        assertFailsWith<FailedPreconditionException> {
            client.readModifyWriteRow(ReadModifyWriteRow.create("t", "r").append("cf", "hits", "x").increment("cf", "log", 1))
        }
        assertContentEquals(long(3), client.readRow("t", "r")!!.getCells("cf", "hits")[0].value)
    }

    @Test
    fun aggregateFamilySumsInputs() = withTable { client, admin, _ ->
        admin.modifyFamilies("t") { addFamily("counts", GCRULES_DEFAULT, ValueType.INT64_SUM) }
        client.mutateRow("t", "r") {
            addToCell("counts", "views", 1_000, 3)
            addToCell("counts", "views", 1_000, 4)
            mergeToCell("counts", "views", 1_000, long(10))
        }
        assertContentEquals(long(17), client.readRow("t", "r")!!.cells.single().value)
        assertFailsWith<InvalidArgumentException> { client.mutateRow(RowMutation.create("t", "r").setCell("counts", "views", 1_000, "x")) }
        assertEquals(ValueType.INT64_SUM, admin.getTable("t").columnFamilies.single { it.id == "counts" }.valueType)
    }

    @Test
    fun sampleRowKeysEndWithTheEmptyKey() = withTable { client, _, _ ->
        for (k in listOf("a", "b", "c")) client.mutateRow(RowMutation.create("t", k).setCell("cf", "q", 1_000, "v"))
        val samples = client.sampleRowKeys("t")
        assertTrue(samples.last().key.isEmpty(), "$samples")
        assertTrue(samples.last().offsetBytes > 0, "$samples")
        assertTrue(samples.zipWithNext().all { (a, b) -> a.offsetBytes <= b.offsetBytes }, "$samples")
        assertFailsWith<NotFoundException> { client.sampleRowKeys("missing") }
    }

    private companion object {
        val GCRULES_DEFAULT = dev.sparsetable.admin.GCRules.defaultRule()
    }
}
