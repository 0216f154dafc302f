// Row filters, shaped like `com.google.cloud.bigtable.data.v2.models.Filters`:
// `FILTERS.chain().filter(FILTERS.family().exactRegex("cf")).filter(FILTERS.limit().cellsPerColumn(1))`.
// A Filter only describes; the engine validates it when a read runs (bad regex, limit < 1,
// chain of fewer than two, sink inside a condition: INVALID_ARGUMENT) and applies it with
// Bigtable's semantics (RE2 over raw bytes, whole-input matches).
package dev.sparsetable

import dev.sparsetable.ffi.ByteBound
import dev.sparsetable.ffi.RowFilter

/** A row filter. Build one with [FILTERS]. */
sealed class Filter {
    /**
     * The native filter. Throws [InvalidArgumentException] for a tree deeper or larger than the
     * engine accepts, before any of it crosses the FFI (see TreeBudget).
     */
    internal fun toNative(): RowFilter = toNative(1, TreeBudget.filter())

    internal fun toNative(depth: Int, budget: TreeBudget): RowFilter {
        budget.enter(depth)
        return build(depth, budget)
    }

    /** This node as a native filter; members are converted with `toNative(depth + 1, budget)`. */
    internal abstract fun build(depth: Int, budget: TreeBudget): RowFilter

    /** A filter that is one native filter. */
    class Simple internal constructor(private val native: RowFilter) : Filter() {
        override fun build(depth: Int, budget: TreeBudget) = native
        override fun toString() = native.toString()
    }

    /** Members applied in sequence, each to the previous one's output. */
    class Chain internal constructor() : Filter() {
        private val members = mutableListOf<Filter>()

        /** Appends [filter]. */
        fun filter(filter: Filter): Chain = apply { members += filter }

        override fun build(depth: Int, budget: TreeBudget) = RowFilter.Chain(members.map { it.toNative(depth + 1, budget) })
    }

    /** Members applied to the same input, outputs merged (duplicates kept). */
    class Interleave internal constructor() : Filter() {
        private val members = mutableListOf<Filter>()

        /** Adds [filter]. */
        fun filter(filter: Filter): Interleave = apply { members += filter }

        override fun build(depth: Int, budget: TreeBudget) = RowFilter.Interleave(members.map { it.toNative(depth + 1, budget) })
    }

    /** `then` if the predicate yields any cell, else `otherwise`; a missing branch yields nothing. */
    class Condition internal constructor(private val predicate: Filter) : Filter() {
        private var thenFilter: Filter? = null
        private var otherwiseFilter: Filter? = null

        /** The filter applied when the predicate matched. */
        fun then(filter: Filter): Condition = apply { thenFilter = filter }

        /** The filter applied when it did not. */
        fun otherwise(filter: Filter): Condition = apply { otherwiseFilter = filter }

        override fun build(depth: Int, budget: TreeBudget) = RowFilter.Condition(
            predicate.toNative(depth + 1, budget),
            thenFilter?.toNative(depth + 1, budget),
            otherwiseFilter?.toNative(depth + 1, budget),
        )
    }
}

/** An open/closed/unbounded byte range under construction, for qualifier, value filters. */
class ByteRangeFilter internal constructor(private val make: (ByteBound, ByteBound) -> RowFilter) : Filter() {
    private var start: ByteBound = ByteBound.Unbounded
    private var end: ByteBound = ByteBound.Unbounded

    /** Starts at [b], included. */
    fun startClosed(b: ByteArray) = apply { start = ByteBound.Closed(b.copyOf()) }

    /** Starts at UTF-8 [b], included. */
    fun startClosed(b: String) = startClosed(b.utf8())

    /** Starts after [b]. */
    fun startOpen(b: ByteArray) = apply { start = ByteBound.Open(b.copyOf()) }

    /** Starts after UTF-8 [b]. */
    fun startOpen(b: String) = startOpen(b.utf8())

    /** Ends at [b], included. */
    fun endClosed(b: ByteArray) = apply { end = ByteBound.Closed(b.copyOf()) }

    /** Ends at UTF-8 [b], included. */
    fun endClosed(b: String) = endClosed(b.utf8())

    /** Ends before [b]. */
    fun endOpen(b: ByteArray) = apply { end = ByteBound.Open(b.copyOf()) }

    /** Ends before UTF-8 [b]. */
    fun endOpen(b: String) = endOpen(b.utf8())

    override fun build(depth: Int, budget: TreeBudget) = make(start, end)
}

/** A timestamp range `[start, end)` in microseconds under construction; end 0 is unbounded. */
class TimestampRangeFilter internal constructor() : Filter() {
    private var start = 0L
    private var end = 0L

    /** Inclusive start. */
    fun startClosed(micros: Long) = apply { start = micros }

    /** Exclusive end. */
    fun endOpen(micros: Long) = apply { end = micros }

    override fun build(depth: Int, budget: TreeBudget) = RowFilter.TimestampRange(start, end)
}

/** The factory of filters; `FILTERS` is the Java client's spelling. */
object Filters {
    /** Every cell. */
    fun pass(): Filter = Filter.Simple(RowFilter.PassAll)

    /** No cell. */
    fun block(): Filter = Filter.Simple(RowFilter.BlockAll)

    /** Sends the cells reaching it straight to the output. */
    fun sink(): Filter = Filter.Simple(RowFilter.Sink)

    /** An empty chain; add members with `filter`. */
    fun chain() = Filter.Chain()

    /** An empty interleave; add members with `filter`. */
    fun interleave() = Filter.Interleave()

    /** A condition on [predicate]; set branches with `then` and `otherwise`. */
    fun condition(predicate: Filter) = Filter.Condition(predicate)

    /** Attaches [label] to every cell. */
    fun label(label: String): Filter = Filter.Simple(RowFilter.ApplyLabel(label))

    /** Filters on the row key. */
    fun key() = KeyFilters

    /** Filters on the family name. */
    fun family() = FamilyFilters

    /** Filters on the qualifier. */
    fun qualifier() = QualifierFilters

    /** Filters on the timestamp. */
    fun timestamp() = TimestampFilters

    /** Filters on the value. */
    fun value() = ValueFilters

    /** Limits on cells. */
    fun limit() = LimitFilters

    /** Offsets on cells. */
    fun offset() = OffsetFilters

    /** Row-key filters. */
    object KeyFilters {
        /** Rows whose whole key matches the RE2 [regex]. */
        fun regex(regex: ByteArray): Filter = Filter.Simple(RowFilter.RowKeyRegex(regex.copyOf()))

        /** Rows whose whole key matches the RE2 [regex]. */
        fun regex(regex: String) = regex(regex.utf8())

        /** Each row with [probability] (0 < p < 1). */
        fun sample(probability: Double): Filter = Filter.Simple(RowFilter.RowSample(probability))
    }

    /** Family-name filters. */
    object FamilyFilters {
        /** Cells whose whole family name matches the RE2 [regex]. */
        fun regex(regex: String): Filter = Filter.Simple(RowFilter.FamilyNameRegex(regex))
    }

    /** Qualifier filters. */
    object QualifierFilters {
        /** Cells whose whole qualifier matches the RE2 [regex]. */
        fun regex(regex: ByteArray): Filter = Filter.Simple(RowFilter.ColumnQualifierRegex(regex.copyOf()))

        /** Cells whose whole qualifier matches the RE2 [regex]. */
        fun regex(regex: String) = regex(regex.utf8())

        /** Cells of [family] whose qualifier is in a range; set its ends. */
        fun rangeWithinFamily(family: String) = ByteRangeFilter { s, e -> RowFilter.ColumnRange(family, s, e) }
    }

    /** Timestamp filters. */
    object TimestampFilters {
        /** Cells whose timestamp is in a range; set its ends. */
        fun range() = TimestampRangeFilter()
    }

    /** Value filters. */
    object ValueFilters {
        /** Cells whose whole value matches the RE2 [regex]. */
        fun regex(regex: ByteArray): Filter = Filter.Simple(RowFilter.ValueRegex(regex.copyOf()))

        /** Cells whose whole value matches the RE2 [regex]. */
        fun regex(regex: String) = regex(regex.utf8())

        /** Cells whose value is in a byte-wise range; set its ends. */
        fun range() = ByteRangeFilter { s, e -> RowFilter.ValueRange(s, e) }

        /** Every value replaced by the empty value. */
        fun strip(): Filter = Filter.Simple(RowFilter.StripValue)

        /** Cells whose value has every bit of [mask] set (same length). */
        fun bitmask(mask: ByteArray): Filter = Filter.Simple(RowFilter.ValueBitmask(mask.copyOf()))
    }

    /** Cell limits. */
    object LimitFilters {
        /** The first [n] cells of each row. */
        fun cellsPerRow(n: Int): Filter = Filter.Simple(RowFilter.CellsPerRowLimit(n))

        /** The newest [n] cells of each column. */
        fun cellsPerColumn(n: Int): Filter = Filter.Simple(RowFilter.CellsPerColumnLimit(n))
    }

    /** Cell offsets. */
    object OffsetFilters {
        /** Skips the first [n] cells of each row. */
        fun cellsPerRow(n: Int): Filter = Filter.Simple(RowFilter.CellsPerRowOffset(n))
    }
}

/** The Java client's `Filters.FILTERS`. */
@JvmField
val FILTERS: Filters = Filters
