// A JVM thread interrupted during a long read stops within one pull, even when the read's
// filter drops every row (so no row ever comes back between pulls), and the database is
// usable afterwards.
package dev.sparsetable

import org.junit.Test
import java.util.concurrent.atomic.AtomicReference
import kotlin.test.assertEquals
import kotlin.test.assertNotNull
import kotlin.test.assertTrue

class InterruptTest {
    @Test
    fun anInterruptedThreadStopsAScanWhoseFilterKeepsNothing() = withTable { client, _, _ ->
        val rows = 200_000
        for (start in 0 until rows step 50_000) {
            val bulk = BulkMutation.create("t")
            for (i in start until start + 50_000) bulk.add(RowMutationEntry.create("r%07d".format(i)).setCell("cf", "q", 1_000, "v"))
            client.bulkMutateRows(bulk)
        }
        val nothing = Query.create("t").filter(FILTERS.value().exactValue("no such value"))
        // The whole scan, uninterrupted, for scale.
        val began = System.nanoTime()
        assertEquals(0, client.readRowsList(nothing).size)
        val full = System.nanoTime() - began

        val thrown = AtomicReference<Throwable?>(null)
        val reader = Thread {
            try {
                client.readRowsList(nothing)
            } catch (e: Throwable) {
                thrown.set(e)
            }
        }
        reader.start()
        Thread.sleep(maxOf(1L, full / 10 / 1_000_000))
        val interrupted = System.nanoTime()
        reader.interrupt()
        reader.join(60_000)
        val took = System.nanoTime() - interrupted
        assertNotNull(thrown.get(), "the read ended by the interrupt, not by finishing")
        assertTrue(thrown.get() is InterruptedException, "got ${thrown.get()}")
        // Long before a full scan's time: a ratio with a wide margin, not a deadline.
        assertTrue(took < full / 2, "stopped ${took / 1_000_000} ms after the interrupt; a full scan takes ${full / 1_000_000} ms")
        // Usable afterwards.
        client.mutateRow(RowMutation.create("t", "after").setCell("cf", "q", 1_000, "ok"))
        assertEquals("ok", client.readRow("t", "after")!!.cells.single().valueUtf8)
    }
}
