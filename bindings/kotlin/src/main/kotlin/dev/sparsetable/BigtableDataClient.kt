// The data client, shaped like `com.google.cloud.bigtable.data.v2.BigtableDataClient`:
// mutateRow, bulkMutateRows, checkAndMutateRow, readModifyWriteRow, readRow, readRows and
// sampleRowKeys, over an embedded Sparsetable instance. Each call converts its
// arguments, makes one native call and converts the result; errors become ApiException
// subclasses in ApiException.kt. After close() every call throws IllegalStateException.
package dev.sparsetable

/** Reads and writes rows of the tables of one [Sparsetable] instance. Thread-safe. */
class BigtableDataClient private constructor(
    /** The instance this client reads and writes (e.g. to build an admin client of it). */
    val instance: Sparsetable,
    private val ownsInstance: Boolean,
) : AutoCloseable {
    @Volatile
    private var closed = false

    /** Whether [close] was called. */
    val isClosed: Boolean get() = closed

    private fun db() = instance.database.also { check(!closed) { "BigtableDataClient is closed" } }

    /**
     * Applies [mutation]'s mutations to its row, atomically and in order.
     *
     * @throws NotFoundException for an unknown table or family.
     * @throws InvalidArgumentException for a bad row key, no mutations, or a bad mutation;
     * nothing is applied then.
     */
    fun mutateRow(mutation: RowMutation) {
        val db = db()
        native { db.mutateRow(mutation.tableId, mutation.nativeKey, mutation.toNative()) }
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
        val db = db()
        val failures = native { db.mutateRows(mutation.tableId, mutation.toNative()) }
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
        val db = db()
        return native {
            db.checkAndMutateRow(
                mutation.tableId,
                mutation.key,
                mutation.predicate?.toNative(),
                mutation.thenMutations.toNative(),
                mutation.otherwiseMutations.toNative(),
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
        val db = db()
        return native { db.readModifyWriteRow(mutation.tableId, mutation.key, mutation.toNative()) }.toRow()
    }

    /** Boundary keys splitting the table into chunks; the last key is empty. */
    fun sampleRowKeys(tableId: String): List<KeyOffset> {
        val db = db()
        return native { db.sampleRowKeys(tableId) }.map { KeyOffset(it.rowKey, it.offsetBytes.toLong()) }
    }

    /**
     * One row, or null if it has no cells (or [filter] leaves none).
     *
     * @throws NotFoundException for an unknown table.
     * @throws InvalidArgumentException for an empty or oversized key, or a bad filter.
     */
    @JvmOverloads
    fun readRow(tableId: String, rowKey: ByteArray, filter: Filter? = null): Row? {
        val db = db()
        return native { db.readRow(tableId, rowKey, filter?.toNative()) }?.toRow()
    }

    /** One row by UTF-8 key, or null if it has no cells (or [filter] leaves none). */
    @JvmOverloads
    fun readRow(tableId: String, rowKey: String, filter: Filter? = null): Row? = readRow(tableId, rowKey.utf8(), filter)

    /**
     * The rows [query] selects, in key order (descending if reversed). The whole result is
     * materialised: the native layer returns it as one list.
     *
     * @throws NotFoundException for an unknown table.
     * @throws InvalidArgumentException for a negative limit or a range whose start is after
     * its end.
     */
    fun readRows(query: Query): List<Row> {
        val db = db()
        return native { db.readRows(query.tableId, query.toNative()) }.map { it.toRow() }
    }

    /** Builds a [Query] of [tableId] with [block] and runs it. */
    fun readRows(tableId: String, block: Query.() -> Unit = {}): List<Row> =
        readRows(Query.create(tableId).apply(block))

    /** Closes the client; closes the instance too if the client created it. Idempotent. */
    override fun close() {
        if (closed) return
        closed = true
        if (ownsInstance) instance.close()
    }

    companion object {
        /** A client of [instance]; closing the client leaves the instance open. */
        @JvmStatic
        fun create(instance: Sparsetable): BigtableDataClient = BigtableDataClient(instance, false)

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
