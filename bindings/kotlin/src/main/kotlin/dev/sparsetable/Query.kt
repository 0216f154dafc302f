// What to read, as `com.google.cloud.bigtable.data.v2.models.Query` and `Range.ByteStringRange`:
// row keys plus key ranges (none of either = the whole table), a row limit and a direction.
// The builder only records; the engine validates (negative limit, start after end:
// INVALID_ARGUMENT) and merges overlaps so each row comes back once.
package dev.sparsetable

import dev.sparsetable.ffi.ByteBound
import dev.sparsetable.ffi.ReadRowsRequest
import dev.sparsetable.ffi.RowSet
import dev.sparsetable.ffi.rowRangePrefix
import dev.sparsetable.ffi.RowRange as NativeRowRange

/** A range of row keys; each end is closed, open or unbounded. */
class ByteStringRange private constructor(internal var start: ByteBound, internal var end: ByteBound) {
    /** Starts at [key], included. */
    fun startClosed(key: ByteArray): ByteStringRange = apply { start = ByteBound.Closed(key.copyOf()) }

    /** Starts at the UTF-8 [key], included. */
    fun startClosed(key: String): ByteStringRange = startClosed(key.utf8())

    /** Starts after [key]. */
    fun startOpen(key: ByteArray): ByteStringRange = apply { start = ByteBound.Open(key.copyOf()) }

    /** Starts after the UTF-8 [key]. */
    fun startOpen(key: String): ByteStringRange = startOpen(key.utf8())

    /** Ends at [key], included. */
    fun endClosed(key: ByteArray): ByteStringRange = apply { end = ByteBound.Closed(key.copyOf()) }

    /** Ends at the UTF-8 [key], included. */
    fun endClosed(key: String): ByteStringRange = endClosed(key.utf8())

    /** Ends before [key]. */
    fun endOpen(key: ByteArray): ByteStringRange = apply { end = ByteBound.Open(key.copyOf()) }

    /** Ends before the UTF-8 [key]. */
    fun endOpen(key: String): ByteStringRange = endOpen(key.utf8())

    /** Removes the lower limit. */
    fun startUnbounded(): ByteStringRange = apply { start = ByteBound.Unbounded }

    /** Removes the upper limit. */
    fun endUnbounded(): ByteStringRange = apply { end = ByteBound.Unbounded }

    internal fun toNative() = NativeRowRange(start, end)

    /** Start and end, for tests and logs. */
    override fun toString(): String = "ByteStringRange($start, $end)"

    companion object {
        /** Every row key. */
        @JvmStatic
        fun unbounded() = ByteStringRange(ByteBound.Unbounded, ByteBound.Unbounded)

        internal fun fromNative(r: NativeRowRange) = ByteStringRange(r.start, r.end)

        /** `[start, end)`. */
        @JvmStatic
        fun create(start: ByteArray, end: ByteArray) = unbounded().startClosed(start).endOpen(end)

        /** `[start, end)` of UTF-8 keys. */
        @JvmStatic
        fun create(start: String, end: String) = create(start.utf8(), end.utf8())

        /** Every row key that starts with [prefix]. */
        @JvmStatic
        fun prefix(prefix: ByteArray): ByteStringRange =
            rowRangePrefix(prefix).let { ByteStringRange(it.start, it.end) }

        /** Every row key that starts with the UTF-8 [prefix]. */
        @JvmStatic
        fun prefix(prefix: String) = prefix(prefix.utf8())
    }
}

/** What a read targets, as the Java client's `TargetId`: a [TableId] or a [MaterializedViewId]. */
sealed interface TargetId {
    /** The table's or view's id. */
    val id: String
}

/** A table, as a read's target. */
class TableId private constructor(override val id: String) : TargetId {
    override fun toString() = "TableId($id)"

    companion object {
        /** Table [tableId]. */
        @JvmStatic
        fun of(tableId: String) = TableId(tableId)
    }
}

/**
 * A continuous materialized view, as a read's target: its rows are read like a table's (one
 * family per output column), from the instance's first cluster.
 */
class MaterializedViewId private constructor(override val id: String) : TargetId {
    override fun toString() = "MaterializedViewId($id)"

    companion object {
        /** Materialized view [materializedViewId]. */
        @JvmStatic
        fun of(materializedViewId: String) = MaterializedViewId(materializedViewId)
    }
}

/** A read of [tableId] (or of the materialized view [targetId] names): which rows, how many, in which order. */
class Query private constructor(
    /** What the query reads. */
    val targetId: TargetId,
) {
    /** The id of the table (or materialized view) read. */
    val tableId: String get() = targetId.id

    private val rowKeys = mutableListOf<ByteArray>()
    private val ranges = mutableListOf<ByteStringRange>()
    private var limit = 0L
    private var reversed = false
    private var filter: Filter? = null

    /** Adds one row key. */
    fun rowKey(key: ByteArray): Query = apply { rowKeys += key.copyOf() }

    /** Adds one UTF-8 row key. */
    fun rowKey(key: String): Query = rowKey(key.utf8())

    /** Adds `[start, end)`; a null end is unbounded, a null start begins at the first row. */
    fun range(start: ByteArray?, end: ByteArray?): Query = range(
        ByteStringRange.unbounded().also { r ->
            start?.let { r.startClosed(it) }
            end?.let { r.endOpen(it) }
        },
    )

    /** Adds `[start, end)` of UTF-8 keys; null means unbounded on that side. */
    fun range(start: String?, end: String?): Query = range(start?.utf8(), end?.utf8())

    /** Adds a range. */
    fun range(range: ByteStringRange): Query = apply {
        ranges += ByteStringRange.unbounded().also { it.start = range.start; it.end = range.end }
    }

    /** Adds every row whose key starts with [prefix]. */
    fun prefix(prefix: ByteArray): Query = range(ByteStringRange.prefix(prefix))

    /** Adds every row whose key starts with the UTF-8 [prefix]. */
    fun prefix(prefix: String): Query = prefix(prefix.utf8())

    /** Keeps only what [filter] lets through of each row; rows left empty are skipped. */
    fun filter(filter: Filter): Query = apply { this.filter = filter }

    /** Returns at most [n] rows; 0 means no limit. Negative is INVALID_ARGUMENT on read. */
    fun limit(n: Long): Query = apply { limit = n }

    /** Returns rows in descending key order (cells keep their order). */
    @JvmOverloads
    fun reversed(reversed: Boolean = true): Query = apply { this.reversed = reversed }

    internal fun toNative() = ReadRowsRequest(
        RowSet(rowKeys.toList(), ranges.map { it.toNative() }),
        filter?.toNative(),
        limit,
        reversed,
    )

    companion object {
        /** A query over the whole of [tableId]. */
        @JvmStatic
        fun create(tableId: String) = Query(TableId.of(tableId))

        /** A query over the whole of [targetId] (a table or a materialized view). */
        @JvmStatic
        fun create(targetId: TargetId) = Query(targetId)
    }
}
