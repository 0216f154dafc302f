// Streaming and asynchronous shapes of the Java client, on the JVM's and Kotlin stdlib's own
// types: ServerStream (an iterable that pulls rows from the engine batch by batch),
// ResponseObserver/StreamController (readRowsAsync), Batcher (newBulkMutationBatcher), and
// `await()` to use any CompletableFuture from a coroutine without kotlinx.coroutines.
// Nothing here holds the database lock while the caller works: a stream owns its snapshot.
package dev.sparsetable

import dev.sparsetable.ffi.RowStream
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import java.util.concurrent.ExecutionException
import kotlin.coroutines.resume
import kotlin.coroutines.resumeWithException
import kotlin.coroutines.suspendCoroutine

/**
 * The rows of one read, as the Java client's `ServerStream<Row>`: iterate once; rows are
 * pulled from the engine [BATCH] at a time as the iteration goes, from a snapshot taken when
 * the read started (writes made meanwhile are not seen, and are not blocked). Stopping early:
 * [cancel] (or `close`, or `use {}`) frees the snapshot. A thread interrupted while it
 * iterates gets an [InterruptedException] from `hasNext` within one pull (each pull examines
 * at most about 16,000 cells, even when a filter drops every row), and the stream is closed.
 */
class ServerStream<T> internal constructor(
    private val native: RowStream,
    private val convert: (dev.sparsetable.ffi.Row) -> T,
) : Iterable<T>, AutoCloseable {
    private var iterated = false
    private var buffer: Iterator<dev.sparsetable.ffi.Row> = emptyList<dev.sparsetable.ffi.Row>().iterator()

    @Volatile
    private var done = false

    /** Whether every row has been received (or the stream was cancelled). */
    val isReceivingDone: Boolean get() = done

    /** The rows; a stream is iterated once. */
    override fun iterator(): Iterator<T> {
        check(!iterated) { "a ServerStream is iterated once" }
        iterated = true
        return object : Iterator<T> {
            override fun hasNext(): Boolean {
                if (buffer.hasNext()) return true
                while (!done) {
                    // An interrupted thread stops between pulls (each examines a bounded slice
                    // of the table), as a blocking Java call does: the stream is closed and
                    // InterruptedException thrown, the interrupt consumed.
                    if (Thread.interrupted()) {
                        finish()
                        throw InterruptedException("ReadRows stream interrupted")
                    }
                    val batch = native { native.nextBatch(BATCH.toUInt()) }
                    if (!batch.more) finish()
                    if (batch.rows.isNotEmpty()) {
                        buffer = batch.rows.iterator()
                        return true
                    }
                }
                return false
            }

            override fun next(): T {
                if (!hasNext()) throw NoSuchElementException()
                return convert(buffer.next())
            }
        }
    }

    /** The rest of the rows as a lazy [Sequence] (the stream is closed once it is exhausted). */
    fun asSequence(): Sequence<T> = Sequence { iterator() }

    /** Stops the stream and frees its snapshot. Idempotent. */
    fun cancel() = finish()

    override fun close() = finish()

    private fun finish() {
        if (done) return
        done = true
        native.cancel()
        native.close()
    }

    companion object {
        /** How many rows cross the FFI per pull: bounds the memory a stream holds on the JVM. */
        const val BATCH = 64
    }
}

/** Stops a [ResponseObserver]'s stream, as gax's `StreamController`. */
fun interface StreamController {
    /** Asks the stream to stop; [ResponseObserver.onError] then gets a cancellation. */
    fun cancel()
}

/** Receives the rows of `readRowsAsync`, as gax's `ResponseObserver`, on a client thread. */
interface ResponseObserver<T> {
    /** Called first, with the means to cancel. */
    fun onStart(controller: StreamController) {}

    /** One row. */
    fun onResponse(response: T)

    /** The read failed (an [ApiException]) or was cancelled (a [java.util.concurrent.CancellationException]). */
    fun onError(t: Throwable)

    /** Every row was delivered. */
    fun onComplete()
}

/**
 * Buffers row mutations and applies them in bulk, as the Java client's
 * `Batcher<RowMutationEntry, Void>` from `newBulkMutationBatcher`: [add] returns a future
 * completed when that entry was applied (or failed with its own [ApiException]); a batch is
 * sent when it reaches [maxEntries] entries, on [flush]/[sendOutstanding], and on [close].
 * Thread-safe.
 */
class Batcher internal constructor(
    private val client: BigtableDataClient,
    private val tableId: String,
    private val maxEntries: Int,
) : AutoCloseable {
    private val lock = Any()
    private var pending = mutableListOf<Pair<RowMutationEntry, CompletableFuture<Void?>>>()
    private val inFlight = mutableListOf<CompletableFuture<Void?>>()
    private var closed = false

    /** Queues [entry]; the future completes when it is applied. */
    fun add(entry: RowMutationEntry): CompletableFuture<Void?> {
        val f = CompletableFuture<Void?>()
        val full = synchronized(lock) {
            check(!closed) { "the Batcher is closed" }
            pending += entry to f
            inFlight += f
            pending.size >= maxEntries
        }
        if (full) sendOutstanding()
        return f
    }

    /** Sends what is queued now, without waiting. */
    fun sendOutstanding() {
        val batch = synchronized(lock) { pending.also { pending = mutableListOf() } }
        if (batch.isEmpty()) return
        val bulk = BulkMutation.create(tableId)
        batch.forEach { bulk.add(it.first) }
        client.bulkMutateRowsAsync(bulk).whenComplete { _, error ->
            val cause = (error as? CompletionException)?.cause ?: error
            val failures = (cause as? MutateRowsException)?.failedMutations?.associateBy { it.index } ?: emptyMap()
            batch.forEachIndexed { i, (_, f) ->
                when {
                    failures[i] != null -> f.completeExceptionally(failures[i]!!.error)
                    cause != null && cause !is MutateRowsException -> f.completeExceptionally(cause)
                    else -> f.complete(null)
                }
            }
        }
    }

    /** Sends what is queued and waits until every entry added so far is done. */
    fun flush() {
        sendOutstanding()
        val all = synchronized(lock) { inFlight.toList().also { inFlight.clear() } }
        // Each entry's own future carries its error; flush only waits.
        all.forEach { f -> runCatching { f.join() } }
    }

    /** Flushes, then refuses new entries. Idempotent. */
    override fun close() {
        synchronized(lock) { if (closed) return; closed = true }
        flush()
    }
}

/**
 * Suspends until this future completes, without blocking the thread, and returns its value
 * or throws its error (unwrapped from [CompletionException]/[ExecutionException]). Built on
 * the Kotlin standard library only, so the library needs no kotlinx.coroutines.
 */
suspend fun <T> CompletableFuture<T>.await(): T = suspendCoroutine { cont ->
    whenComplete { value, error ->
        if (error == null) {
            cont.resume(value)
        } else {
            val cause = if (error is CompletionException || error is ExecutionException) error.cause ?: error else error
            cont.resumeWithException(cause)
        }
    }
}
