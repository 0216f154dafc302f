// Errors reach Kotlin as the ApiException subclass of their gRPC code, and a failed call
// changes nothing.
package dev.sparsetable

import org.junit.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue

class ErrorsTest {
    @Test
    fun unknownTableIsNotFound() = withTable { client, _, _ ->
        val e = assertFailsWith<NotFoundException> { client.readRow("missing", "r") }
        assertEquals(StatusCode.NOT_FOUND, e.statusCode)
        assertEquals(5, e.statusCode.value)
        assertFalse(e.isRetryable)
        assertTrue(e.message!!.startsWith("NOT_FOUND: "), e.message)
        assertFailsWith<NotFoundException> { client.readRows(Query.create("missing")) }
        assertFailsWith<NotFoundException> { client.mutateRow(RowMutation.create("missing", "r").setCell("cf", "q", 0, "v")) }
    }

    @Test
    fun unknownFamilyIsNotFoundAndNothingIsApplied() = withTable { client, _, _ ->
        val e = assertFailsWith<NotFoundException> {
            client.mutateRow("t", "r") {
                setCell("cf", "q", 1_000, "v")
                setCell("nope", "q", 1_000, "v")
            }
        }
        assertTrue("nope" in e.message!!, e.message)
        assertNull(client.readRow("t", "r"))
    }

    @Test
    fun malformedRequestsAreInvalidArgument() = withTable { client, _, _ ->
        val cases = mapOf<String, () -> Unit>(
            "empty row key" to { client.readRow("t", "") },
            "no mutations" to { client.mutateRow(RowMutation.create("t", "r")) },
            "timestamp not in millis" to { client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", 1_001, "v")) },
            "negative timestamp" to { client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", -5, "v")) },
            "negative limit" to { client.readRows(Query.create("t").limit(-1)) },
            "start after end" to { client.readRows(Query.create("t").range("z", "a")) },
            "oversized key" to { client.readRow("t", ByteArray(4097)) },
        )
        for ((what, call) in cases) {
            val e = assertFailsWith<ApiException>(what) { call() }
            assertEquals(StatusCode.INVALID_ARGUMENT, e.statusCode, "$what: $e")
            assertTrue(e is InvalidArgumentException, what)
        }
        assertNull(client.readRow("t", "r"))
    }

    @Test
    fun nativeErrorIsKeptAsTheCause() = withTable { client, _, _ ->
        val e = assertFailsWith<NotFoundException> { client.readRow("missing", "r") }
        assertTrue(e.cause is dev.sparsetable.ffi.SparsetableException.NotFound, "${e.cause}")
    }
}
