// Writes, shaped like the Java client's models: `Mutation` (changes without a row),
// `RowMutation` (changes to one row of one table), `BulkMutation` (many rows, each atomic),
// `ConditionalRowMutation` (CheckAndMutateRow) and `ReadModifyWriteRow`. Every method has a
// String overload (UTF-8) beside the ByteArray one. Builders only record; the engine
// validates the whole request and reports INVALID_ARGUMENT / NOT_FOUND.
package dev.sparsetable

import dev.sparsetable.ffi.ReadModifyWriteOp
import dev.sparsetable.ffi.ReadModifyWriteRule
import dev.sparsetable.ffi.RowMutationEntry
import dev.sparsetable.ffi.Mutation as NativeMutation

/** The mutation methods shared by [Mutation] and [RowMutation]; each returns the builder. */
abstract class MutationBuilder<T : MutationBuilder<T>> internal constructor() {
    private val mutations = mutableListOf<NativeMutation>()

    @Suppress("UNCHECKED_CAST")
    private fun add(m: NativeMutation): T = (this as T).also { mutations += m }

    internal fun toNative(): List<NativeMutation> = mutations.toList()

    /** Writes [value] at ([family], [qualifier], [timestamp] microseconds). */
    fun setCell(family: String, qualifier: ByteArray, timestamp: Long, value: ByteArray): T =
        add(NativeMutation.SetCell(family, qualifier.copyOf(), timestamp, value.copyOf()))

    /** Writes UTF-8 [value] at ([family], UTF-8 [qualifier], [timestamp] microseconds). */
    fun setCell(family: String, qualifier: String, timestamp: Long, value: String): T =
        setCell(family, qualifier.utf8(), timestamp, value.utf8())

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
        add(NativeMutation.MergeToCell(family, qualifier.copyOf(), timestamp, state.copyOf()))

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

/** Many rows' changes in one call; each row is atomic, the batch is not. */
class BulkMutation private constructor(val tableId: String) {
    private val entries = mutableListOf<RowMutationEntry>()

    /** Adds [mutation]'s changes to [rowKey]. */
    fun add(rowKey: ByteArray, mutation: Mutation): BulkMutation =
        apply { entries += RowMutationEntry(rowKey.copyOf(), mutation.toNative()) }

    /** Adds [mutation]'s changes to the UTF-8 [rowKey]. */
    fun add(rowKey: String, mutation: Mutation): BulkMutation = add(rowKey.utf8(), mutation)

    /** How many row entries the batch holds. */
    val size: Int get() = entries.size

    internal fun toNative(): List<RowMutationEntry> = entries.toList()

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
        apply { rules += ReadModifyWriteRule(family, qualifier.copyOf(), ReadModifyWriteOp.AppendValue(value.copyOf())) }

    /** [append] of UTF-8 text. */
    fun append(family: String, qualifier: String, value: String) = append(family, qualifier.utf8(), value.utf8())

    /** Adds [amount] to the latest cell as a big-endian int64 (missing counts as 0). */
    fun increment(family: String, qualifier: ByteArray, amount: Long): ReadModifyWriteRow =
        apply { rules += ReadModifyWriteRule(family, qualifier.copyOf(), ReadModifyWriteOp.IncrementAmount(amount)) }

    /** [increment] with a UTF-8 qualifier. */
    fun increment(family: String, qualifier: String, amount: Long) = increment(family, qualifier.utf8(), amount)

    internal fun toNative(): List<ReadModifyWriteRule> = rules.toList()

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
