// The Java client's shapes beyond plain calls: readRows as a stream that reads a snapshot
// without blocking writers, the ...Async variants, readRowsAsync with an observer, the bulk
// mutation batcher, exists, suspend via await(), exact-match filters, backups, and values
// over the table's limit refused before they are copied across the FFI.
package dev.sparsetable

import dev.sparsetable.admin.BigtableTableAdminClient
import org.junit.Test
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import kotlin.coroutines.Continuation
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.coroutines.startCoroutine
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** Runs a suspending block to completion with the standard library only. */
private fun <T> runSuspending(block: suspend () -> T): T {
    val result = CompletableFuture<T>()
    block.startCoroutine(Continuation(EmptyCoroutineContext) { r -> r.fold({ result.complete(it) }, { result.completeExceptionally(it) }) })
    return try {
        result.get(60, TimeUnit.SECONDS)
    } catch (e: java.util.concurrent.ExecutionException) {
        throw e.cause!!
    }
}

class ClientShapeTest {
    private fun fill(client: BigtableDataClient, n: Int) {
        val bulk = BulkMutation.create("t")
        for (i in 0 until n) bulk.add(RowMutationEntry.create("k%05d".format(i)).setCell("cf", "q", 1_000, "v$i"))
        client.bulkMutateRows(bulk)
    }

    @Test
    fun readRowsStreamsASnapshotWithoutBlockingWriters() = withTable { client, _, _ ->
        fill(client, 1_000)
        val stream = client.readRows(Query.create("t"))
        val it = stream.iterator()
        assertEquals("k00000", it.next().keyUtf8)
        assertFalse(stream.isReceivingDone)
        // Another thread writes and deletes while the stream is open: it must not wait for it.
        val writer = CompletableFuture.runAsync {
            client.mutateRow(RowMutation.create("t", "k00500").deleteRow())
            client.mutateRow(RowMutation.create("t", "zzz").setCell("cf", "q", 1_000, "new"))
        }
        writer.get(60, TimeUnit.SECONDS)
        val rest = mutableListOf<String>()
        while (it.hasNext()) rest += it.next().keyUtf8
        // The snapshot of when the read started: the deleted row is there, the new one is not.
        assertEquals(999, rest.size)
        assertTrue("k00500" in rest)
        assertFalse("zzz" in rest)
        assertTrue(stream.isReceivingDone)
        assertFailsWith<IllegalStateException> { stream.iterator() }
        // A fresh read sees the writes; a stream stopped early is closed with `use`.
        assertEquals(listOf("k00000", "k00001"), client.readRows(Query.create("t").limit(2)).keys())
        client.readRows(Query.create("t")).use { s -> assertEquals("k00000", s.first().keyUtf8) }
        assertEquals(1_000, client.readRowsSequence(Query.create("t")).count())
        assertTrue(client.readRowsList(Query.create("t").prefix("zz")).single().keyUtf8 == "zzz")
    }

    @Test
    fun asyncVariantsCompleteWithValuesAndApiExceptions() = withTable { client, _, _ ->
        client.mutateRowAsync(RowMutation.create("t", "a").setCell("cf", "q", 1_000, "1")).get(60, TimeUnit.SECONDS)
        assertEquals(listOf("1"), client.readRowAsync("t", "a").get(60, TimeUnit.SECONDS)!!.values())
        assertTrue(client.existsAsync("t", "a").get(60, TimeUnit.SECONDS))
        assertFalse(client.exists("t", "b"))
        val rmw = client.readModifyWriteRowAsync(ReadModifyWriteRow.create("t", "c").increment("cf", "n", 5)).get(60, TimeUnit.SECONDS)
        assertEquals(8, rmw.cells.single().value.size)
        assertTrue(
            client.checkAndMutateRowAsync(
                ConditionalRowMutation.create("t", "a").then(Mutation.create().setCell("cf", "q", 2_000, "2")),
            ).get(60, TimeUnit.SECONDS),
        )
        assertEquals(listOf("a", "c"), client.readRowsAsync(Query.create("t")).get(60, TimeUnit.SECONDS).keys())
        assertTrue(client.sampleRowKeysAsync("t").get(60, TimeUnit.SECONDS).isNotEmpty())
        val failed = client.readRowAsync("missing", "a")
        val e = assertFailsWith<java.util.concurrent.ExecutionException> { failed.get(60, TimeUnit.SECONDS) }
        assertTrue(e.cause is NotFoundException, "${e.cause}")
        // suspend, on the standard library only.
        assertEquals(listOf("2", "1"), runSuspending { client.readRowAsync("t", "a").await() }!!.values())
        assertFailsWith<NotFoundException> { runSuspending { client.readRowAsync("missing", "a").await() } }
    }

    @Test
    fun readRowsAsyncStreamsToAnObserver() = withTable { client, _, _ ->
        fill(client, 200)
        val seen = mutableListOf<String>()
        val done = CountDownLatch(1)
        var completed = false
        client.readRowsAsync(
            Query.create("t"),
            object : ResponseObserver<Row> {
                override fun onResponse(response: Row) { seen += response.keyUtf8 }
                override fun onError(t: Throwable) { done.countDown() }
                override fun onComplete() { completed = true; done.countDown() }
            },
        )
        assertTrue(done.await(60, TimeUnit.SECONDS))
        assertTrue(completed)
        assertEquals(200, seen.size)
        // Cancelled after the first row: onError with a cancellation, the rest not delivered.
        val cancelled = CountDownLatch(1)
        var error: Throwable? = null
        var count = 0
        client.readRowsAsync(
            Query.create("t"),
            object : ResponseObserver<Row> {
                lateinit var controller: StreamController
                override fun onStart(controller: StreamController) { this.controller = controller }
                override fun onResponse(response: Row) { count++; controller.cancel() }
                override fun onError(t: Throwable) { error = t; cancelled.countDown() }
                override fun onComplete() { cancelled.countDown() }
            },
        )
        assertTrue(cancelled.await(60, TimeUnit.SECONDS))
        assertEquals(1, count)
        assertTrue(error is java.util.concurrent.CancellationException, "$error")
    }

    @Test
    fun batcherAppliesEntriesAndReportsEachFailure() = withTable { client, _, _ ->
        val futures = client.newBulkMutationBatcher("t", maxEntries = 7).use { batcher ->
            val ok = (0 until 20).map { batcher.add(RowMutationEntry.create("b$it").setCell("cf", "q", 1_000, "v")) }
            val bad = batcher.add(RowMutationEntry.create("bad").setCell("nope", "q", 1_000, "v"))
            ok + bad
        }
        futures.dropLast(1).forEach { it.get(60, TimeUnit.SECONDS) }
        val e = assertFailsWith<java.util.concurrent.ExecutionException> { futures.last().get(60, TimeUnit.SECONDS) }
        assertTrue(e.cause is NotFoundException, "${e.cause}")
        assertEquals(20, client.readRowsList(Query.create("t").prefix("b")).size)
        assertNull(client.readRow("t", "bad"))
    }

    @Test
    fun exactMatchFiltersMatchLiteralBytes() = withTable { client, _, _ ->
        client.mutateRow(RowMutation.create("t", "a.b").setCell("cf", "q.*", 1_000, "x+y"))
        client.mutateRow(RowMutation.create("t", "axb").setCell("cf", "qq", 1_000, "xxy"))
        assertEquals(listOf("a.b"), client.readRowsList(Query.create("t").filter(FILTERS.key().exactMatch("a.b"))).map { it.keyUtf8 })
        assertEquals(listOf("a.b"), client.readRowsList(Query.create("t").filter(FILTERS.qualifier().exactMatch("q.*"))).map { it.keyUtf8 })
        assertEquals(listOf("a.b"), client.readRowsList(Query.create("t").filter(FILTERS.value().exactValue("x+y"))).map { it.keyUtf8 })
        val raw = byteArrayOf(0, -1, 10)
        client.mutateRow(RowMutation.create("t", raw).setCell("cf", "q", 1_000, "bin"))
        assertEquals(listOf("bin"), client.readRowsList(Query.create("t").filter(FILTERS.key().exactMatch(raw))).map { it.cells.single().valueUtf8 })
        assertEquals(3, client.readRowsList(Query.create("t").filter(FILTERS.family().exactMatch("cf"))).size)
        assertEquals(1, client.readRow("t", "a.b", FILTERS.timestamp().exact(1_000))!!.cells.size)
        assertNull(client.readRow("t", "a.b", FILTERS.timestamp().exact(2_000)))
    }

    @Test
    fun oversizedValuesAreRefusedBeforeTheCopy() = withTable { client, admin, _ ->
        admin.createTable("small") { addFamily("cf"); setMaxValueBytes(2L shl 20) }
        val big = ByteArray(3 shl 20)
        val e = assertFailsWith<InvalidArgumentException> { client.mutateRow(RowMutation.create("small", "r").setCell("cf", "q", 1_000, big)) }
        // The core's words alone: the engine would have said them after "mutations[0]: ".
        assertEquals("INVALID_ARGUMENT: value of ${3 shl 20} bytes exceeds the limit of ${2L shl 20} bytes", e.message)
        assertFailsWith<InvalidArgumentException> {
            client.bulkMutateRows(BulkMutation.create("small").add(RowMutationEntry.create("r").setCell("cf", "q", 1_000, big)))
        }
        assertFailsWith<InvalidArgumentException> { client.readModifyWriteRow(ReadModifyWriteRow.create("small", "r").append("cf", "q", big)) }
        // Within the limit, large values go through.
        client.mutateRow(RowMutation.create("small", "r").setCell("cf", "q", 1_000, ByteArray(3 shl 19)))
        assertEquals(3 shl 19, client.readRow("small", "r")!!.cells.single().value.size)
    }

    @Test
    fun backupsRestoreASnapshot() = withTable { client, admin, _ ->
        client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", 1_000, "before"))
        val backup = admin.createBackup("t", "b1")
        assertEquals("t", backup.sourceTableId)
        client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", 2_000, "after"))
        assertEquals(listOf("b1"), admin.listBackups())
        assertEquals("b1", admin.getBackup("b1").id)
        admin.restoreTable("b1", "restored")
        assertEquals(listOf("before"), client.readRow("restored", "r")!!.values())
        assertFailsWith<AlreadyExistsException> { admin.createBackup("t", "b1") }
        admin.deleteBackup("b1")
        assertFailsWith<NotFoundException> { admin.getBackup("b1") }
    }

    @Test
    fun adminAsyncVariants() = withTable { _, admin, _ ->
        admin.createTableAsync(dev.sparsetable.admin.CreateTableRequest.of("a").addFamily("cf")).get(60, TimeUnit.SECONDS)
        assertTrue(admin.existsAsync("a").get(60, TimeUnit.SECONDS))
        assertEquals(listOf("a", "t"), admin.listTablesAsync().get(60, TimeUnit.SECONDS))
        admin.deleteTableAsync("a").get(60, TimeUnit.SECONDS)
        val e = assertFailsWith<java.util.concurrent.ExecutionException> { admin.getTableAsync("a").get(60, TimeUnit.SECONDS) }
        assertTrue(e.cause is NotFoundException, "${e.cause}")
    }

    @Test
    fun deleteCellsWithATimestampRange() = withTable { client, _, _ ->
        for (ts in listOf(1_000L, 2_000L, 3_000L)) client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", ts, "v$ts"))
        client.mutateRow(RowMutation.create("t", "r").deleteCells("cf", "q", TimestampRange.unbounded().startClosed(2_000).endOpen(3_000)))
        assertEquals(listOf("v3000", "v1000"), client.readRow("t", "r")!!.values())
        // An end of 0 is the proto's unset end: unbounded, as in every front-end.
        client.mutateRow(RowMutation.create("t", "r").deleteCells("cf", "q", 2_000, 0))
        assertEquals(listOf("v1000"), client.readRow("t", "r")!!.values())
    }
}
