// The data client against the real native engine: writes read back, Bigtable's ordering,
// byte and String overloads, server timestamps from the manual clock, deletes and queries.
package dev.sparsetable

import org.junit.Test
import kotlin.test.assertContentEquals
import kotlin.test.assertEquals
import kotlin.test.assertNull

class DataClientTest {
    @Test
    fun setCellIsReadBackWithEveryField() = withTable { client, _, _ ->
        client.mutateRow(RowMutation.create("t", "r1").setCell("cf", "q", 5_000, "v"))
        val row = client.readRow("t", "r1")!!
        assertEquals("r1", row.keyUtf8)
        assertEquals(listOf(RowCell.create("cf", "q", 5_000, "v")), row.cells)
        assertEquals(emptyList(), row.cells[0].labels)
    }

    @Test
    fun missingRowIsNull() = withTable { client, _, _ ->
        assertNull(client.readRow("t", "absent"))
        assertEquals(emptyList(), client.readRows(Query.create("t")).toList())
    }

    @Test
    fun cellsComeFamilyInCreationOrderThenQualifierThenNewestFirst() = withTable { client, admin, _ ->
        // "a" is created after "cf", so its cells come after cf's although it sorts first.
        admin.modifyFamilies("t") { addFamily("a") }
        client.mutateRow("t", "r") {
            setCell("cf", "x", 1_000, "cf-x-1")
            setCell("a", "z", 1_000, "a-z-1")
            setCell("a", "y", 1_000, "a-y-1")
            setCell("a", "y", 3_000, "a-y-3")
            setCell("a", "y", 2_000, "a-y-2")
        }
        assertEquals(listOf("cf-x-1", "a-y-3", "a-y-2", "a-y-1", "a-z-1"), client.readRow("t", "r")!!.values())
        assertEquals(listOf("a-y-3", "a-y-2", "a-y-1"), client.readRow("t", "r")!!.getCells("a", "y").map { it.valueUtf8 })
    }

    @Test
    fun rowsAreSortedByUnsignedBytes() = withTable { client, _, _ ->
        val keys = listOf(byteArrayOf(0xff.toByte()), "b".toByteArray(), byteArrayOf('b'.code.toByte(), 0), "a".toByteArray(), "A".toByteArray())
        for (k in keys) client.mutateRow(RowMutation.create("t", k).setCell("cf", "q", 1_000, "v"))
        val got = client.readRows(Query.create("t")).map { it.key.toList() }
        val want = listOf("A".toByteArray(), "a".toByteArray(), "b".toByteArray(), byteArrayOf('b'.code.toByte(), 0), byteArrayOf(0xff.toByte())).map { it.toList() }
        assertEquals(want, got)
    }

    @Test
    fun byteArrayAndStringOverloadsAddressTheSameCell() = withTable { client, _, _ ->
        client.mutateRow(RowMutation.create("t", "k".toByteArray()).setCell("cf", "q".toByteArray(), 2_000, byteArrayOf(0, -1, 7)))
        client.mutateRow(RowMutation.create("t", "k").setCell("cf", "q", 1_000, "text"))
        val row = client.readRow("t", "k".toByteArray())!!
        assertEquals(row, client.readRow("t", "k"))
        assertContentEquals(byteArrayOf(0, -1, 7), row.cells[0].value)
        assertEquals("text", row.cells[1].valueUtf8)
        assertContentEquals("q".toByteArray(), row.cells[1].qualifier)
    }

    @Test
    fun longValueIsEightBytesBigEndian() = withTable { client, _, _ ->
        client.mutateRow(RowMutation.create("t", "n").setCell("cf", "count", 1_000, 258L))
        assertContentEquals(byteArrayOf(0, 0, 0, 0, 0, 0, 1, 2), client.readRow("t", "n")!!.cells[0].value)
    }

    @Test
    fun serverTimestampIsTheManualClocksTime() = withTable { client, _, clock ->
        client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", "first"))
        clock.advanceMicros(5_000)
        client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", RowMutation.SERVER_TIMESTAMP, "second"))
        assertEquals(listOf(T0 + 5_000, T0), client.readRow("t", "r")!!.cells.map { it.timestamp })
    }

    @Test
    fun deletesRemoveWhatTheyName() = withTable { client, admin, _ ->
        admin.modifyFamilies("t") { addFamily("other") }
        client.mutateRow("t", "r") {
            setCell("cf", "q", 1_000, "q1")
            setCell("cf", "q", 2_000, "q2")
            setCell("cf", "q", 3_000, "q3")
            setCell("cf", "keep", 1_000, "keep")
            setCell("other", "o", 1_000, "o")
        }
        client.mutateRow("t", "r") { deleteCells("cf", "q", fromMicros = 2_000, toMicros = 3_000) }
        assertEquals(listOf("q3", "q1", "keep", "o").sorted(), client.readRow("t", "r")!!.values().sorted())
        client.mutateRow("t", "r") { deleteCells("cf", "q") }
        assertEquals(listOf("keep", "o"), client.readRow("t", "r")!!.values())
        client.mutateRow("t", "r") { deleteFamily("other") }
        assertEquals(listOf("keep"), client.readRow("t", "r")!!.values())
        client.mutateRow("t", "r") { deleteRow() }
        assertNull(client.readRow("t", "r"))
    }

    @Test
    fun queryCombinesKeysRangesPrefixLimitAndDirection() = withTable { client, _, _ ->
        for (k in listOf("a", "b", "c", "d", "user#1", "user#2", "v")) {
            client.mutateRow(RowMutation.create("t", k).setCell("cf", "q", 1_000, k))
        }
        assertEquals(listOf("b", "c"), client.readRows(Query.create("t").range("b", "d")).keys())
        assertEquals(listOf("user#1", "user#2"), client.readRows(Query.create("t").prefix("user#")).keys())
        assertEquals(
            listOf("a", "c", "d"),
            client.readRows(Query.create("t").rowKey("a").rowKey("d").range(ByteStringRange.unbounded().startOpen("b").endClosed("c"))).keys(),
        )
        assertEquals(listOf("a", "b"), client.readRows(Query.create("t").limit(2)).keys())
        assertEquals(listOf("v", "user#2"), client.readRows("t") { reversed(); limit(2) }.keys())
        assertEquals(listOf("c", "d", "user#1", "user#2", "v"), client.readRows(Query.create("t").range("c", null)).keys())
        // Overlapping keys and ranges return each row once.
        assertEquals(listOf("a", "b"), client.readRows(Query.create("t").rowKey("a").range("a", "c").rowKey("b")).keys())
    }

    @Test
    fun deleteCellsWithAnEndOfZeroDeletesEveryVersion() = withTable { client, _, _ ->
        client.mutateRow("t", "r") {
            setCell("cf", "q", 1_000, "q1")
            setCell("cf", "q", 2_000, "q2")
            setCell("cf", "keep", 1_000, "keep")
        }
        // An end of 0 is the proto's unset value: unbounded, as in Python and over gRPC.
        client.mutateRow("t", "r") { deleteCells("cf", "q", toMicros = 0) }
        assertEquals(listOf("keep"), client.readRow("t", "r")!!.values())
    }

    @Test
    fun anEmptyKeyAsARangeBoundIsUnbounded() = withTable { client, _, _ ->
        for (k in listOf("a", "b", "c")) client.mutateRow(RowMutation.create("t", k).setCell("cf", "q", 1_000, k))
        val all = listOf("a", "b", "c")
        assertEquals(all, client.readRows(Query.create("t").range(ByteStringRange.unbounded().startOpen("").endOpen(""))).keys())
        assertEquals(all, client.readRows(Query.create("t").range(ByteStringRange.unbounded().startClosed("").endClosed(""))).keys())
        assertEquals(listOf("b", "c"), client.readRows(Query.create("t").range(ByteStringRange.unbounded().startClosed("b").endOpen(""))).keys())
    }
}
