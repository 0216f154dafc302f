// The data client, shaped like `com.google.cloud.bigtable.data.v2.BigtableDataClient`:
// mutateRow, bulkMutateRows, newBulkMutationBatcher, checkAndMutateRow, readModifyWriteRow,
// readRow, exists, readRows (a ServerStream pulling rows as it goes), sampleRowKeys, and
// their ...Async variants (CompletableFuture, on a small daemon pool the client owns), over
// an embedded Sparsetable instance. Each call converts its arguments, makes one native call
// and converts the result; errors become ApiException subclasses in ApiException.kt. A value
// larger than 1 MiB is checked against the table's limit before it is copied across the FFI.
// After close() every call throws IllegalStateException.
package dev.sparsetable

import dev.sparsetable.ffi.ConditionalWrite
import dev.sparsetable.ffi.Database as NativeDatabase
import dev.sparsetable.ffi.RequestKind
import dev.sparsetable.ffi.RowModify
import dev.sparsetable.ffi.RowRead
import dev.sparsetable.ffi.RowWrite
import dev.sparsetable.ffi.checkValueSize as coreCheckValueSize
import java.util.concurrent.CancellationException
import java.util.concurrent.CompletableFuture
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors

/**
 * Reads and writes rows of the tables of one [Sparsetable] instance. Thread-safe.
 *
 * Once the instance has clusters and app profiles (see
 * [dev.sparsetable.admin.BigtableInstanceAdminClient]), or the client names an app profile,
 * every data call is routed by the core through [appProfileId] to one cluster's copy, and
 * writes are handed to replication before the call returns.
 */
class BigtableDataClient private constructor(
    /** The instance this client reads and writes (e.g. to build an admin client of it). */
    val instance: Sparsetable,
    private val ownsInstance: Boolean,
    /** The app profile every data call goes through (`""`: the instance's default profile). */
    val appProfileId: String = "",
) : AutoCloseable {
    @Volatile
    private var closed = false

    /** Whether [close] was called. */
    val isClosed: Boolean get() = closed

    private fun db() = instance.database.also { check(!closed) { "BigtableDataClient is closed" } }

    /**
     * Runs [block] on the database the call goes to: the instance's own one while it has no
     * clusters and the client no app profile; else the handle the core routes [rpc] of [kind]
     * for [rowKey] to through [appProfileId] (whose writes are handed to replication before
     * they return), after waiting out an injected latency.
     */
    private inline fun <T> call(rpc: String, kind: RequestKind, rowKey: ByteArray, block: (NativeDatabase) -> T): T {
        val db = db()
        val plane = routingPlane() ?: return native { block(db) }
        val target = native { plane.route(appProfileId, rpc, kind, rowKey) }
        return target.database.use { routed ->
            waitOut(target)
            native { block(routed) }
        }
    }

    /** The instance's routing, if it has one or this client names a profile (then made now). */
    private fun routingPlane() = instance.planeOrNull ?: if (appProfileId.isEmpty()) null else instance.plane()

    /** Sleeps for the latency a fault injected into [routed]. */
    private fun waitOut(target: dev.sparsetable.ffi.RouteTarget) {
        val latency = target.latencyMicros.toLong()
        if (latency > 0) Thread.sleep(latency / 1000, ((latency % 1000) * 1000).toInt())
    }

    private val executorLock = Any()
    private var executor: ExecutorService? = null

    /** Runs [block] on the client's pool (created on first use, daemon threads). */
    private fun <T> async(block: () -> T): CompletableFuture<T> {
        val pool = synchronized(executorLock) {
            check(!closed) { "BigtableDataClient is closed" }
            executor ?: Executors.newFixedThreadPool(ASYNC_THREADS) { r ->
                Thread(r, "sparsetable-client").apply { isDaemon = true }
            }.also { executor = it }
        }
        return CompletableFuture.supplyAsync(block, pool)
    }

    /**
     * Refuses a value over the table's limit before the FFI copies it, in the core's words
     * (without the engine's `mutations[i]: `). Values up to 1 MiB are left to the engine (a copy
     * of that size costs little); larger ones cost one table lookup.
     */
    private fun checkValueSize(tableId: String, largest: Int) {
        if (largest <= SMALL_VALUE_BYTES) return
        val limit = native { db().getTable(tableId) }.maxValueBytes
        native { coreCheckValueSize(largest.toULong(), limit) }
    }

    /**
     * Applies [mutation]'s mutations to its row, atomically and in order.
     *
     * @throws NotFoundException for an unknown table or family.
     * @throws InvalidArgumentException for a bad row key, no mutations, or a bad mutation;
     * nothing is applied then.
     */
    fun mutateRow(mutation: RowMutation) {
        db()
        checkValueSize(mutation.tableId, mutation.largestValue())
        call("MutateRow", RequestKind.WRITE, mutation.nativeKey) { it.mutateRow(RowWrite(mutation.tableId, mutation.nativeKey, mutation.toNative())) }
    }

    /** Builds a [RowMutation] of [rowKey] with [block] and applies it. */
    fun mutateRow(tableId: String, rowKey: ByteArray, block: RowMutation.() -> Unit) =
        mutateRow(RowMutation.create(tableId, rowKey).apply(block))

    /** Builds a [RowMutation] of the UTF-8 [rowKey] with [block] and applies it. */
    fun mutateRow(tableId: String, rowKey: String, block: RowMutation.() -> Unit) =
        mutateRow(RowMutation.create(tableId, rowKey).apply(block))

    /**
     * Applies each entry of [mutation] to its row; each entry is atomic, the batch is not.
     *
     * @throws MutateRowsException listing the entries that failed (the others were applied).
     * @throws NotFoundException for an unknown table (nothing applied).
     * @throws InvalidArgumentException for an empty batch (nothing applied).
     */
    fun bulkMutateRows(mutation: BulkMutation) {
        db()
        checkValueSize(mutation.tableId, mutation.largestValue())
        val entries = mutation.toNative()
        val failures = call("MutateRows", RequestKind.WRITE, entries.firstOrNull()?.rowKey ?: ByteArray(0)) {
            it.mutateRows(mutation.tableId, entries)
        }
        if (failures.isNotEmpty()) {
            throw MutateRowsException(failures.map { FailedMutation(it.index.toInt(), toApiException(it.code, it.reason)) })
        }
    }

    /**
     * CheckAndMutateRow: applies the `then` changes if the condition yields any cell of the
     * row (no condition: if the row has any cell), else the `otherwise` changes.
     *
     * @return whether the condition matched.
     * @throws InvalidArgumentException for a bad filter or mutation, or no changes at all.
     */
    fun checkAndMutateRow(mutation: ConditionalRowMutation): Boolean {
        db()
        checkValueSize(mutation.tableId, maxOf(mutation.thenMutations.largestValue(), mutation.otherwiseMutations.largestValue()))
        return call("CheckAndMutateRow", RequestKind.TRANSACTION, mutation.key) { db ->
            db.checkAndMutateRow(
                ConditionalWrite(
                    mutation.tableId,
                    mutation.key,
                    mutation.predicate?.toNative(),
                    mutation.thenMutations.toNative(),
                    mutation.otherwiseMutations.toNative(),
                ),
            )
        }
    }

    /**
     * ReadModifyWriteRow: applies the appends and increments atomically.
     *
     * @return the row with the new cells only.
     * @throws InvalidArgumentException for no rules; FailedPreconditionException for an
     * increment of a value that is not 8 bytes (nothing applied).
     */
    fun readModifyWriteRow(mutation: ReadModifyWriteRow): Row {
        db()
        checkValueSize(mutation.tableId, mutation.largestValue())
        return call("ReadModifyWriteRow", RequestKind.TRANSACTION, mutation.key) {
            it.readModifyWriteRow(RowModify(mutation.tableId, mutation.key, mutation.toNative()))
        }.toRow()
    }

    /** Boundary keys splitting the table into chunks; the last key is empty. */
    fun sampleRowKeys(tableId: String): List<KeyOffset> {
        db()
        return call("SampleRowKeys", RequestKind.READ, ByteArray(0)) { it.sampleRowKeys(tableId) }.map { KeyOffset(it.rowKey, it.offsetBytes.toLong()) }
    }

    /**
     * One row, or null if it has no cells (or [filter] leaves none).
     *
     * @throws NotFoundException for an unknown table.
     * @throws InvalidArgumentException for an empty or oversized key, or a bad filter.
     */
    @JvmOverloads
    fun readRow(tableId: String, rowKey: ByteArray, filter: Filter? = null): Row? {
        db()
        return call("ReadRows", RequestKind.READ, rowKey) { it.readRow(RowRead(tableId, rowKey, filter?.toNative())) }?.toRow()
    }

    /** One row by UTF-8 key, or null if it has no cells (or [filter] leaves none). */
    @JvmOverloads
    fun readRow(tableId: String, rowKey: String, filter: Filter? = null): Row? = readRow(tableId, rowKey.utf8(), filter)

    /** Whether row [rowKey] has any cell (reads at most one cell, without its value). */
    fun exists(tableId: String, rowKey: ByteArray): Boolean =
        readRow(tableId, rowKey, Filters.chain().filter(Filters.limit().cellsPerRow(1)).filter(Filters.value().strip())) != null

    /** [exists] of a UTF-8 key. */
    fun exists(tableId: String, rowKey: String): Boolean = exists(tableId, rowKey.utf8())

    /**
     * The rows [query] selects, in key order (descending if reversed), as a stream that pulls
     * them from the engine as it is iterated, [ServerStream.BATCH] rows at a time, from a
     * snapshot taken now. No lock is held while the caller iterates; close it (or `use {}`)
     * to stop early. A query of a [MaterializedViewId] reads the view's rows (one family per
     * output column).
     *
     * @throws NotFoundException for an unknown table or view (here, before any row).
     * @throws InvalidArgumentException for a negative limit, a range whose start is after its
     * end, or a bad filter.
     */
    fun readRows(query: Query): ServerStream<Row> {
        val db = db()
        val stream = if (query.targetId is MaterializedViewId) {
            // A view lives on the first cluster's database; its reads go there, unrouted (as
            // the server's).
            native { db.readMaterializedViewStream(query.tableId, query.toNative()) }
        } else {
            call("ReadRows", RequestKind.READ, ByteArray(0)) { it.readRowsStream(query.tableId, query.toNative()) }
        }
        return ServerStream(stream) { it.toRow() }
    }

    /**
     * The partitions of [tableId]'s change stream (its tablets), as the Java client's
     * `generateInitialChangeStreamPartitions`.
     *
     * @throws FailedPreconditionException if the table's change stream is not enabled.
     */
    fun generateInitialChangeStreamPartitions(tableId: String): List<ByteStringRange> {
        db()
        return call("GenerateInitialChangeStreamPartitions", RequestKind.READ, ByteArray(0)) {
            it.changeStreamPartitions(tableId)
        }.map { ByteStringRange.fromNative(it) }
    }

    /**
     * Reads one partition of a table's change stream, as the Java client's `readChangeStream`.
     *
     * @throws FailedPreconditionException if the table's change stream is not enabled.
     * @throws InvalidArgumentException for a start time outside the retention or in the
     * future, or tokens that are malformed or do not cover the partition.
     */
    fun readChangeStream(query: ReadChangeStreamQuery): ChangeStream {
        val db = db()
        val partition = query.partition.toNative()
        val tokens = query.tokens.map { it.toNative() }
        val plane = routingPlane()
        val stream = if (plane == null) {
            native { db.readChangeStream(query.tableId, partition, query.startMicros, tokens, query.endMicros) }
        } else {
            // The routed cluster's partitions, over every cluster's copy (the core's reader).
            val target = native { plane.route(appProfileId, "ReadChangeStream", RequestKind.READ, ByteArray(0)) }
            target.database.use { routed ->
                waitOut(target)
                native { plane.readChangeStream(routed, query.tableId, partition, query.startMicros, tokens, query.endMicros) }
            }
        }
        return ChangeStream(stream)
    }

    /** Builds a [Query] of [tableId] with [block] and streams its rows. */
    fun readRows(tableId: String, block: Query.() -> Unit = {}): ServerStream<Row> =
        readRows(Query.create(tableId).apply(block))

    /** The rows of [query] as a lazy [Sequence]; the stream is freed once it is exhausted. */
    fun readRowsSequence(query: Query): Sequence<Row> = readRows(query).asSequence()

    /** Every row of [query] in one list (the Java client's `readRowsCallable().all().call(query)`). */
    fun readRowsList(query: Query): List<Row> = readRows(query).use { it.toList() }

    /** [mutateRow] on the client's pool. */
    fun mutateRowAsync(mutation: RowMutation): CompletableFuture<Void?> = async { mutateRow(mutation); null }

    /** [bulkMutateRows] on the client's pool. */
    fun bulkMutateRowsAsync(mutation: BulkMutation): CompletableFuture<Void?> = async { bulkMutateRows(mutation); null }

    /** [checkAndMutateRow] on the client's pool. */
    fun checkAndMutateRowAsync(mutation: ConditionalRowMutation): CompletableFuture<Boolean> =
        async { checkAndMutateRow(mutation) }

    /** [readModifyWriteRow] on the client's pool. */
    fun readModifyWriteRowAsync(mutation: ReadModifyWriteRow): CompletableFuture<Row> = async { readModifyWriteRow(mutation) }

    /** [readRow] on the client's pool. */
    @JvmOverloads
    fun readRowAsync(tableId: String, rowKey: ByteArray, filter: Filter? = null): CompletableFuture<Row?> =
        async { readRow(tableId, rowKey, filter) }

    /** [readRow] of a UTF-8 key on the client's pool. */
    @JvmOverloads
    fun readRowAsync(tableId: String, rowKey: String, filter: Filter? = null): CompletableFuture<Row?> =
        async { readRow(tableId, rowKey, filter) }

    /** [exists] on the client's pool. */
    fun existsAsync(tableId: String, rowKey: String): CompletableFuture<Boolean> = async { exists(tableId, rowKey) }

    /**
     * Runs a SQL [statement] (GoogleSQL for Bigtable, the core's `api::sql`) and returns its
     * rows, as Google's `executeQuery`. A statement bound from a [PreparedStatement] must set
     * exactly the parameters it was prepared with, of those types.
     *
     * @throws InvalidArgumentException for a query the engine does not understand (the message
     * names the position), or a parameter value that does not fit its type.
     * @throws NotFoundException for an unknown table.
     * @throws OutOfRangeException for errors while running (overflow, division by zero).
     */
    fun executeQuery(statement: Statement): ResultSet {
        db()
        statement.prepared?.let { checkBound(statement, it) }
        val types = statement.types.mapValues { it.value.toNodes() }
        val values = statement.values.mapValues { (name, v) -> valueToNodes(name, v, statement.types.getValue(name)) }
        val result = instance.viewsOrNull().let { views ->
            call("ExecuteQuery", RequestKind.READ, ByteArray(0)) { it.executeQueryIn(statement.query, types, values, views) }
        }
        val metadata = metadataOf(result.columns)
        return ResultSet(metadata, rowsOf(metadata, result.rows))
    }

    /**
     * [executeQuery] on the client's pool: the whole [ResultSet] once the query has run (its
     * rows are already read, so iterating it does not block). Errors complete the future
     * exceptionally with the [ApiException] [executeQuery] throws.
     */
    fun executeQueryAsync(statement: Statement): CompletableFuture<ResultSet> = async { executeQuery(statement) }

    /**
     * Checks [query] against the tables' schemas with parameters of [paramTypes], as Google's
     * `prepareStatement`; [PreparedStatement.bind] then sets the values. Executing it prepares
     * it again against the schema as it is then.
     *
     * @throws InvalidArgumentException for a query the engine does not understand.
     * @throws NotFoundException for an unknown table.
     */
    fun prepareStatement(query: String, paramTypes: Map<String, SqlType>): PreparedStatement {
        db()
        val types = paramTypes.mapValues { it.value.toNodes() }
        val columns = instance.viewsOrNull().let { views ->
            call("PrepareQuery", RequestKind.READ, ByteArray(0)) { it.prepareQueryIn(query, types, views) }
        }
        return PreparedStatement(query, LinkedHashMap(paramTypes), metadataOf(columns))
    }

    private fun checkBound(statement: Statement, prepared: PreparedStatement) {
        val missing = prepared.paramTypes.keys - statement.types.keys
        val extra = statement.types.keys - prepared.paramTypes.keys
        val retyped = statement.types.filter { (n, t) -> n in prepared.paramTypes && prepared.paramTypes[n] != t }.keys
        val problem = when {
            missing.isNotEmpty() -> "parameter @${missing.first()} was declared when the statement was prepared but has no value"
            extra.isNotEmpty() -> "parameter @${extra.first()} was not declared when the statement was prepared"
            retyped.isNotEmpty() -> "parameter @${retyped.first()} is set with another type than it was prepared with"
            else -> return
        }
        throw InvalidArgumentException("INVALID_ARGUMENT: $problem")
    }

    /** [sampleRowKeys] on the client's pool. */
    fun sampleRowKeysAsync(tableId: String): CompletableFuture<List<KeyOffset>> = async { sampleRowKeys(tableId) }

    /** Every row of [query] in one list, on the client's pool. */
    fun readRowsAsync(query: Query): CompletableFuture<List<Row>> = async { readRowsList(query) }

    /**
     * Streams [query]'s rows to [observer] on the client's pool, as the Java client's
     * `readRowsAsync(query, observer)`: `onStart`, then `onResponse` per row, then
     * `onComplete` or `onError` (with a [CancellationException] after `cancel`).
     */
    fun readRowsAsync(query: Query, observer: ResponseObserver<Row>) {
        val cancelled = java.util.concurrent.atomic.AtomicBoolean(false)
        async {
            observer.onStart { cancelled.set(true) }
            try {
                readRows(query).use { stream ->
                    for (row in stream) {
                        if (cancelled.get()) break
                        observer.onResponse(row)
                    }
                }
                if (cancelled.get()) observer.onError(CancellationException("cancelled by the observer")) else observer.onComplete()
            } catch (e: ApiException) {
                observer.onError(e)
            }
        }
    }

    /**
     * A [Batcher] that buffers row mutations of [tableId] and applies them in bulk (every
     * [maxEntries] entries, or on flush/close).
     */
    @JvmOverloads
    fun newBulkMutationBatcher(tableId: String, maxEntries: Int = 100): Batcher {
        require(maxEntries >= 1) { "maxEntries must be at least 1" }
        db()
        return Batcher(this, tableId, maxEntries)
    }

    /** Closes the client; closes the instance too if the client created it. Idempotent. */
    override fun close() {
        synchronized(executorLock) {
            if (closed) return
            closed = true
        }
        executor?.shutdown()
        if (ownsInstance) instance.close()
    }

    companion object {
        private const val ASYNC_THREADS = 4
        private const val SMALL_VALUE_BYTES = 1 shl 20

        /** A client of [instance]; closing the client leaves the instance open. */
        @JvmStatic
        fun create(instance: Sparsetable): BigtableDataClient = BigtableDataClient(instance, false)

        /**
         * A client of [instance] whose data calls go through app profile [appProfileId] (as the
         * Java client's `BigtableDataSettings.setAppProfileId`); closing the client leaves the
         * instance open. The profile is looked up on each call, so it may be created later.
         */
        @JvmStatic
        fun create(instance: Sparsetable, appProfileId: String): BigtableDataClient =
            BigtableDataClient(instance, false, appProfileId)

        /** A client as [settings] describe it; closing the client leaves the instance open. */
        @JvmStatic
        fun create(settings: BigtableDataSettings): BigtableDataClient =
            BigtableDataClient(settings.instance, false, settings.appProfileId)

        /**
         * A client of a fresh in-memory instance on [clock] (the system clock if null), which
         * the client owns: closing the client frees it. Use [instance] to administer it.
         */
        @JvmStatic
        @JvmOverloads
        fun createInMemory(clock: ManualClock? = null): BigtableDataClient =
            BigtableDataClient(clock?.let { Sparsetable.inMemory(it) } ?: Sparsetable.inMemory(), true)
    }
}
