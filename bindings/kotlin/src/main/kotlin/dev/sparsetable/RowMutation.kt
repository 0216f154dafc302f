// Writes, shaped like the Java client's models: `Mutation` (changes without a row),
// `RowMutation` (changes to one row of one table), `BulkMutation` (many rows, each atomic),
// `ConditionalRowMutation` (CheckAndMutateRow) and `ReadModifyWriteRow`. Every method has a
// String overload (UTF-8) beside the ByteArray one. Builders only record; the engine
// validates the whole request and reports INVALID_ARGUMENT / NOT_FOUND.
package dev.sparsetable

import dev.sparsetable.ffi.ReadModifyWriteOp
import dev.sparsetable.ffi.ReadModifyWriteRule
import dev.sparsetable.ffi.RowMutationEntry as NativeEntry
import dev.sparsetable.ffi.Mutation as NativeMutation

/** The mutation methods shared by [Mutation] and [RowMutation]; each returns the builder. */
abstract class MutationBuilder<T : MutationBuilder<T>> internal constructor() {
    private val mutations = mutableListOf<NativeMutation>()

    @Suppress("UNCHECKED_CAST")
    private fun add(m: NativeMutation): T = (this as T).also { mutations += m }

    internal fun toNative(): List<NativeMutation> = mutations.toList()

    /** The size of the largest value these mutations write (0 if none): checked before the FFI copy. */
    internal fun largestValue(): Int = largestValue(mutations)

    /**
     * Writes [value] at ([family], [qualifier], [timestamp] microseconds).
     *
     * The value is not copied here: the array is read when the mutation is applied, so do not
     * change it before then. That keeps a large value from being copied before its size is
     * checked against the table's limit (INVALID_ARGUMENT with no copy at all).
     */
    fun setCell(family: String, qualifier: ByteArray, timestamp: Long, value: ByteArray): T =
        add(NativeMutation.SetCell(family, qualifier.copyOf(), timestamp, value))

    /** Writes UTF-8 [value] at ([family], UTF-8 [qualifier], [timestamp] microseconds). */
    fun setCell(family: String, qualifier: String, timestamp: Long, value: String): T =
        setCell(family, qualifier.utf8(), timestamp, value.utf8())

    /** Writes [value] at ([family], UTF-8 [qualifier], [timestamp] microseconds); not copied, as above. */
    fun setCell(family: String, qualifier: String, timestamp: Long, value: ByteArray): T =
        setCell(family, qualifier.utf8(), timestamp, value)

    /** Writes [value] stamped with the database's current time (Bigtable's server time, -1). */
    fun setCell(family: String, qualifier: ByteArray, value: ByteArray): T =
        setCell(family, qualifier, SERVER_TIMESTAMP, value)

    /** Writes UTF-8 [value] stamped with the database's current time. */
    fun setCell(family: String, qualifier: String, value: String): T =
        setCell(family, qualifier.utf8(), SERVER_TIMESTAMP, value.utf8())

    /** Writes a 64-bit big-endian integer, as the Java client's `setCell(..., long value)`. */
    fun setCell(family: String, qualifier: String, timestamp: Long, value: Long): T =
        setCell(family, qualifier.utf8(), timestamp, java.nio.ByteBuffer.allocate(8).putLong(value).array())

    /** Merges [input] into the cell of an aggregate family (Sum, Min, Max) at [timestamp]. */
    fun addToCell(family: String, qualifier: ByteArray, timestamp: Long, input: Long): T =
        add(NativeMutation.AddToCell(family, qualifier.copyOf(), timestamp, input))

    /** [addToCell] with a UTF-8 qualifier. */
    fun addToCell(family: String, qualifier: String, timestamp: Long, input: Long): T =
        addToCell(family, qualifier.utf8(), timestamp, input)

    /** Merges an aggregate [state] (8-byte big-endian int64) into the cell at [timestamp]. */
    fun mergeToCell(family: String, qualifier: ByteArray, timestamp: Long, state: ByteArray): T =
        add(NativeMutation.MergeToCell(family, qualifier.copyOf(), timestamp, state))

    /** [mergeToCell] with a UTF-8 qualifier. */
    fun mergeToCell(family: String, qualifier: String, timestamp: Long, state: ByteArray): T =
        mergeToCell(family, qualifier.utf8(), timestamp, state)

    /**
     * Deletes the cells of one column whose timestamp is in [[fromMicros], [toMicros]);
     * `toMicros = null` or `0` is unbounded (an end of 0 is the proto's unset value, as in
     * every Sparsetable front-end), so the defaults delete the whole column.
     */
    @JvmOverloads
    fun deleteCells(family: String, qualifier: ByteArray, fromMicros: Long = 0, toMicros: Long? = null): T =
        add(NativeMutation.DeleteFromColumn(family, qualifier.copyOf(), fromMicros, toMicros))

    /**
     * Deletes the cells of one column whose timestamp is in [range] (the Java client's
     * `deleteCells(family, qualifier, TimestampRange)`).
     */
    fun deleteCells(family: String, qualifier: ByteArray, range: TimestampRange): T =
        deleteCells(family, qualifier, range.startMicros, range.endMicros)

    /** [deleteCells] of a [range] with a UTF-8 qualifier. */
    fun deleteCells(family: String, qualifier: String, range: TimestampRange): T =
        deleteCells(family, qualifier.utf8(), range)

    /** [deleteCells] with a UTF-8 qualifier. */
    @JvmOverloads
    fun deleteCells(family: String, qualifier: String, fromMicros: Long = 0, toMicros: Long? = null): T =
        deleteCells(family, qualifier.utf8(), fromMicros, toMicros)

    /** Deletes every cell of [family] in the row. */
    fun deleteFamily(family: String): T = add(NativeMutation.DeleteFromFamily(family))

    /** Deletes the whole row. */
    fun deleteRow(): T = add(NativeMutation.DeleteFromRow)

    /** Appends the mutations of [other], in order. */
    fun addAll(other: MutationBuilder<*>): T {
        @Suppress("UNCHECKED_CAST")
        return (this as T).also { mutations += other.mutations }
    }

    companion object {
        /** SetCell's timestamp meaning "the database's current time". */
        const val SERVER_TIMESTAMP: Long = -1L
    }
}

/** The largest value (SetCell value, MergeToCell state) among [mutations]. */
internal fun largestValue(mutations: List<NativeMutation>): Int {
    var max = 0
    for (m in mutations) {
        val n = when (m) {
            is NativeMutation.SetCell -> m.value.size
            is NativeMutation.MergeToCell -> m.state.size
            else -> 0
        }
        if (n > max) max = n
    }
    return max
}

/**
 * A timestamp range `[startMicros, endMicros)` for [MutationBuilder.deleteCells], as the Java
 * client's `Range.TimestampRange`; an end of null (or 0, the proto's unset value) is unbounded.
 */
class TimestampRange private constructor(internal val startMicros: Long, internal val endMicros: Long?) {
    /** This range from [micros], included. */
    fun startClosed(micros: Long) = TimestampRange(micros, endMicros)

    /** This range from after [micros]. */
    fun startOpen(micros: Long) = TimestampRange(micros + 1, endMicros)

    /** This range up to [micros], excluded. */
    fun endOpen(micros: Long) = TimestampRange(startMicros, micros)

    /** This range up to [micros], included. */
    fun endClosed(micros: Long) = TimestampRange(startMicros, micros + 1)

    override fun toString() = "TimestampRange[$startMicros, ${endMicros ?: "inf"})"

    companion object {
        /** Every timestamp. */
        @JvmStatic
        fun unbounded() = TimestampRange(0, null)

        /** `[start, end)`. */
        @JvmStatic
        fun create(start: Long, end: Long) = TimestampRange(start, end)
    }
}

/** Changes not yet tied to a row: for [BulkMutation], [ConditionalRowMutation], [RowMutation.create]. */
class Mutation private constructor() : MutationBuilder<Mutation>() {
    companion object {
        /** An empty list of changes. */
        @JvmStatic
        fun create() = Mutation()
    }
}

/** Changes to one row of one table, applied atomically and in order by `mutateRow`. */
class RowMutation private constructor(val tableId: String, rowKey: ByteArray) : MutationBuilder<RowMutation>() {
    private val key = rowKey.copyOf()

    /** The row key (a copy). */
    val rowKey: ByteArray get() = key.copyOf()

    internal val nativeKey: ByteArray get() = key

    companion object {
        /** SetCell's timestamp meaning "the database's current time". */
        const val SERVER_TIMESTAMP: Long = -1L

        /** An empty mutation of [rowKey] in [tableId]. */
        @JvmStatic
        fun create(tableId: String, rowKey: ByteArray) = RowMutation(tableId, rowKey)

        /** An empty mutation of the UTF-8 [rowKey] in [tableId]. */
        @JvmStatic
        fun create(tableId: String, rowKey: String) = RowMutation(tableId, rowKey.utf8())

        /** A mutation of [rowKey] in [tableId] holding [mutation]'s changes. */
        @JvmStatic
        fun create(tableId: String, rowKey: ByteArray, mutation: Mutation) = create(tableId, rowKey).addAll(mutation)

        /** A mutation of the UTF-8 [rowKey] in [tableId] holding [mutation]'s changes. */
        @JvmStatic
        fun create(tableId: String, rowKey: String, mutation: Mutation) = create(tableId, rowKey).addAll(mutation)
    }
}

/** One row's changes in a [BulkMutation] or a [Batcher], as the Java client's `RowMutationEntry`. */
class RowMutationEntry private constructor(rowKey: ByteArray) : MutationBuilder<RowMutationEntry>() {
    internal val key = rowKey.copyOf()

    /** The row key (a copy). */
    val rowKey: ByteArray get() = key.copyOf()

    internal fun toNativeEntry() = NativeEntry(key, toNative())

    companion object {
        /** An empty entry for [rowKey]. */
        @JvmStatic
        fun create(rowKey: ByteArray) = RowMutationEntry(rowKey)

        /** An empty entry for the UTF-8 [rowKey]. */
        @JvmStatic
        fun create(rowKey: String) = RowMutationEntry(rowKey.utf8())

        /** An entry for [rowKey] holding [mutation]'s changes. */
        @JvmStatic
        fun createFromMutationUnsafe(rowKey: ByteArray, mutation: Mutation) = RowMutationEntry(rowKey).addAll(mutation)
    }
}

/** Many rows' changes in one call; each row is atomic, the batch is not. */
class BulkMutation private constructor(val tableId: String) {
    private val entries = mutableListOf<NativeEntry>()

    /** Adds [mutation]'s changes to [rowKey]. */
    fun add(rowKey: ByteArray, mutation: Mutation): BulkMutation =
        apply { entries += NativeEntry(rowKey.copyOf(), mutation.toNative()) }

    /** Adds [entry]. */
    fun add(entry: RowMutationEntry): BulkMutation = apply { entries += entry.toNativeEntry() }

    internal fun largestValue(): Int = entries.maxOfOrNull { largestValue(it.mutations) } ?: 0

    /** Adds [mutation]'s changes to the UTF-8 [rowKey]. */
    fun add(rowKey: String, mutation: Mutation): BulkMutation = add(rowKey.utf8(), mutation)

    /** How many row entries the batch holds. */
    val size: Int get() = entries.size

    internal fun toNative(): List<NativeEntry> = entries.toList()

    companion object {
        /** An empty batch for [tableId]. */
        @JvmStatic
        fun create(tableId: String) = BulkMutation(tableId)
    }
}

/** CheckAndMutateRow: `then` if [condition] yields a cell of the row, else `otherwise`. */
class ConditionalRowMutation private constructor(val tableId: String, rowKey: ByteArray) {
    internal val key = rowKey.copyOf()
    internal var predicate: Filter? = null
    internal val thenMutations = Mutation.create()
    internal val otherwiseMutations = Mutation.create()

    /** The predicate; without one, "the row has any cell". */
    fun condition(filter: Filter): ConditionalRowMutation = apply { predicate = filter }

    /** Changes applied when the predicate matched. */
    fun then(mutation: Mutation): ConditionalRowMutation = apply { thenMutations.addAll(mutation) }

    /** Changes applied when it did not. */
    fun otherwise(mutation: Mutation): ConditionalRowMutation = apply { otherwiseMutations.addAll(mutation) }

    companion object {
        /** A conditional mutation of [rowKey] in [tableId]. */
        @JvmStatic
        fun create(tableId: String, rowKey: ByteArray) = ConditionalRowMutation(tableId, rowKey)

        /** A conditional mutation of the UTF-8 [rowKey] in [tableId]. */
        @JvmStatic
        fun create(tableId: String, rowKey: String) = ConditionalRowMutation(tableId, rowKey.utf8())
    }
}

/** ReadModifyWriteRow: appends and increments on the latest cells of columns, atomically. */
class ReadModifyWriteRow private constructor(val tableId: String, rowKey: ByteArray) {
    internal val key = rowKey.copyOf()
    private val rules = mutableListOf<ReadModifyWriteRule>()

    /** Appends [value] to the latest cell of the column (missing counts as empty). */
    fun append(family: String, qualifier: ByteArray, value: ByteArray): ReadModifyWriteRow =
        apply { rules += ReadModifyWriteRule(family, qualifier.copyOf(), ReadModifyWriteOp.AppendValue(value)) }

    /** [append] of [value] to a column with a UTF-8 qualifier. */
    fun append(family: String, qualifier: String, value: ByteArray) = append(family, qualifier.utf8(), value)

    /** [append] of UTF-8 text. */
    fun append(family: String, qualifier: String, value: String) = append(family, qualifier.utf8(), value.utf8())

    /** Adds [amount] to the latest cell as a big-endian int64 (missing counts as 0). */
    fun increment(family: String, qualifier: ByteArray, amount: Long): ReadModifyWriteRow =
        apply { rules += ReadModifyWriteRule(family, qualifier.copyOf(), ReadModifyWriteOp.IncrementAmount(amount)) }

    /** [increment] with a UTF-8 qualifier. */
    fun increment(family: String, qualifier: String, amount: Long) = increment(family, qualifier.utf8(), amount)

    internal fun toNative(): List<ReadModifyWriteRule> = rules.toList()

    internal fun largestValue(): Int =
        rules.maxOfOrNull { (it.op as? ReadModifyWriteOp.AppendValue)?.value?.size ?: 0 } ?: 0

    companion object {
        /** Rules for [rowKey] in [tableId]. */
        @JvmStatic
        fun create(tableId: String, rowKey: ByteArray) = ReadModifyWriteRow(tableId, rowKey)

        /** Rules for the UTF-8 [rowKey] in [tableId]. */
        @JvmStatic
        fun create(tableId: String, rowKey: String) = ReadModifyWriteRow(tableId, rowKey.utf8())
    }
}

/** One SampleRowKeys entry: rows sorting before [key] hold about [offsetBytes] bytes. */
class KeyOffset(val key: ByteArray, val offsetBytes: Long) {
    override fun equals(other: Any?) = other is KeyOffset && key.contentEquals(other.key) && offsetBytes == other.offsetBytes
    override fun hashCode() = 31 * key.contentHashCode() + offsetBytes.hashCode()
    override fun toString() = "KeyOffset(key=${key.describe()}, offsetBytes=$offsetBytes)"
}
