// Row filters, shaped like `com.google.cloud.bigtable.data.v2.models.Filters`:
// `FILTERS.chain().filter(FILTERS.family().exactRegex("cf")).filter(FILTERS.limit().cellsPerColumn(1))`.
// A Filter only describes; the engine validates it when a read runs (bad regex, limit < 1,
// chain of fewer than two, sink inside a condition: INVALID_ARGUMENT) and applies it with
// Bigtable's semantics (RE2 over raw bytes, whole-input matches).
package dev.sparsetable

import dev.sparsetable.ffi.ByteBound
import dev.sparsetable.ffi.FilterNode
import dev.sparsetable.ffi.RowFilter

/** A row filter. Build one with [FILTERS]. */
sealed class Filter {
    /**
     * The native filter, a flat node list (members before the node holding them, root
     * last). Throws [InvalidArgumentException] for a tree deeper or larger than the engine
     * accepts, before any of it crosses the FFI (see TreeBudget); the native side checks the
     * list again, so a hand-built [RowFilter] cannot get past it either.
     */
    internal fun toNative(): RowFilter {
        val nodes = mutableListOf<FilterNode>()
        emit(1, TreeBudget.filter(), nodes)
        return RowFilter(nodes)
    }

    /** Appends this filter's members, then itself, to [out]; returns its own index. */
    internal fun emit(depth: Int, budget: TreeBudget, out: MutableList<FilterNode>): UInt {
        budget.enter(depth)
        val node = node(depth, budget, out)
        out += node
        return (out.size - 1).toUInt()
    }

    /** This node; members are emitted first with `emit(depth + 1, budget, out)`. */
    internal abstract fun node(depth: Int, budget: TreeBudget, out: MutableList<FilterNode>): FilterNode

    /** A filter that is one native filter. */
    class Simple internal constructor(private val native: FilterNode) : Filter() {
        override fun node(depth: Int, budget: TreeBudget, out: MutableList<FilterNode>) = native
        override fun toString() = native.toString()
    }

    /** Members applied in sequence, each to the previous one's output. */
    class Chain internal constructor() : Filter() {
        private val members = mutableListOf<Filter>()

        /** Appends [filter]. */
        fun filter(filter: Filter): Chain = apply { members += filter }

        override fun node(depth: Int, budget: TreeBudget, out: MutableList<FilterNode>) =
            FilterNode.Chain(members.map { it.emit(depth + 1, budget, out) })
    }

    /** Members applied to the same input, outputs merged (duplicates kept). */
    class Interleave internal constructor() : Filter() {
        private val members = mutableListOf<Filter>()

        /** Adds [filter]. */
        fun filter(filter: Filter): Interleave = apply { members += filter }

        override fun node(depth: Int, budget: TreeBudget, out: MutableList<FilterNode>) =
            FilterNode.Interleave(members.map { it.emit(depth + 1, budget, out) })
    }

    /** `then` if the predicate yields any cell, else `otherwise`; a missing branch yields nothing. */
    class Condition internal constructor(private val predicate: Filter) : Filter() {
        private var thenFilter: Filter? = null
        private var otherwiseFilter: Filter? = null

        /** The filter applied when the predicate matched. */
        fun then(filter: Filter): Condition = apply { thenFilter = filter }

        /** The filter applied when it did not. */
        fun otherwise(filter: Filter): Condition = apply { otherwiseFilter = filter }

        override fun node(depth: Int, budget: TreeBudget, out: MutableList<FilterNode>): FilterNode {
            val p = predicate.emit(depth + 1, budget, out)
            val t = thenFilter?.emit(depth + 1, budget, out)
            val o = otherwiseFilter?.emit(depth + 1, budget, out)
            return FilterNode.Condition(p, t, o)
        }
    }
}

/** An open/closed/unbounded byte range under construction, for qualifier, value filters. */
class ByteRangeFilter internal constructor(private val make: (ByteBound, ByteBound) -> FilterNode) : Filter() {
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

    override fun node(depth: Int, budget: TreeBudget, out: MutableList<FilterNode>) = make(start, end)
}

/** A timestamp range `[start, end)` in microseconds under construction; end 0 is unbounded. */
class TimestampRangeFilter internal constructor() : Filter() {
    private var start = 0L
    private var end = 0L

    /** Inclusive start. */
    fun startClosed(micros: Long) = apply { start = micros }

    /** Exclusive end. */
    fun endOpen(micros: Long) = apply { end = micros }

    /** Inclusive end (the exclusive end one microsecond later). */
    fun endClosed(micros: Long) = apply { end = micros + 1 }

    /** Exclusive start (the inclusive start one microsecond later). */
    fun startOpen(micros: Long) = apply { start = micros + 1 }

    override fun node(depth: Int, budget: TreeBudget, out: MutableList<FilterNode>) = FilterNode.TimestampRange(start, end)
}

/** The factory of filters; `FILTERS` is the Java client's spelling. */
object Filters {
    /** Every cell. */
    fun pass(): Filter = Filter.Simple(FilterNode.PassAll)

    /** No cell. */
    fun block(): Filter = Filter.Simple(FilterNode.BlockAll)

    /** Sends the cells reaching it straight to the output. */
    fun sink(): Filter = Filter.Simple(FilterNode.Sink)

    /** An empty chain; add members with `filter`. */
    fun chain() = Filter.Chain()

    /** An empty interleave; add members with `filter`. */
    fun interleave() = Filter.Interleave()

    /** A condition on [predicate]; set branches with `then` and `otherwise`. */
    fun condition(predicate: Filter) = Filter.Condition(predicate)

    /** Attaches [label] to every cell. */
    fun label(label: String): Filter = Filter.Simple(FilterNode.ApplyLabel(label))

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
        fun regex(regex: ByteArray): Filter = Filter.Simple(FilterNode.RowKeyRegex(regex.copyOf()))

        /** Rows whose whole key matches the RE2 [regex]. */
        fun regex(regex: String) = regex(regex.utf8())

        /** Rows whose key is exactly [key]. */
        fun exactMatch(key: ByteArray): Filter = regex(literalRegex(key))

        /** Rows whose key is exactly the UTF-8 [key]. */
        fun exactMatch(key: String) = exactMatch(key.utf8())

        /** Each row with [probability] (0 < p < 1). */
        fun sample(probability: Double): Filter = Filter.Simple(FilterNode.RowSample(probability))
    }

    /** Family-name filters. */
    object FamilyFilters {
        /** Cells whose whole family name matches the RE2 [regex]. */
        fun regex(regex: String): Filter = Filter.Simple(FilterNode.FamilyNameRegex(regex))

        /** Cells of family [family] only. */
        fun exactMatch(family: String): Filter = regex(
            // Family regexes are text and may not contain ':', so no `(?-u:...)` group here:
            // ASCII punctuation is escaped with a backslash, everything else stands for itself.
            family.map { c -> if (c.code < 128 && !c.isLetterOrDigit()) "\\$c" else "$c" }.joinToString(""),
        )
    }

    /** Qualifier filters. */
    object QualifierFilters {
        /** Cells whose whole qualifier matches the RE2 [regex]. */
        fun regex(regex: ByteArray): Filter = Filter.Simple(FilterNode.ColumnQualifierRegex(regex.copyOf()))

        /** Cells whose whole qualifier matches the RE2 [regex]. */
        fun regex(regex: String) = regex(regex.utf8())

        /** Cells whose qualifier is exactly [qualifier]. */
        fun exactMatch(qualifier: ByteArray): Filter = regex(literalRegex(qualifier))

        /** Cells whose qualifier is exactly the UTF-8 [qualifier]. */
        fun exactMatch(qualifier: String) = exactMatch(qualifier.utf8())

        /** Cells of [family] whose qualifier is in a range; set its ends (the Java client's `range`). */
        fun range(family: String) = rangeWithinFamily(family)

        /** Cells of [family] whose qualifier is in a range; set its ends. */
        fun rangeWithinFamily(family: String) = ByteRangeFilter { s, e -> FilterNode.ColumnRange(family, s, e) }
    }

    /** Timestamp filters. */
    object TimestampFilters {
        /** Cells whose timestamp is in a range; set its ends. */
        fun range() = TimestampRangeFilter()

        /** Cells stamped exactly [micros]. */
        fun exact(micros: Long): Filter = TimestampRangeFilter().startClosed(micros).endClosed(micros)
    }

    /** Value filters. */
    object ValueFilters {
        /** Cells whose whole value matches the RE2 [regex]. */
        fun regex(regex: ByteArray): Filter = Filter.Simple(FilterNode.ValueRegex(regex.copyOf()))

        /** Cells whose whole value matches the RE2 [regex]. */
        fun regex(regex: String) = regex(regex.utf8())

        /** Cells whose value is exactly [value]. */
        fun exactValue(value: ByteArray): Filter = regex(literalRegex(value))

        /** Cells whose value is exactly the UTF-8 [value]. */
        fun exactValue(value: String) = exactValue(value.utf8())

        /** Cells whose value is in a byte-wise range; set its ends. */
        fun range() = ByteRangeFilter { s, e -> FilterNode.ValueRange(s, e) }

        /** Every value replaced by the empty value. */
        fun strip(): Filter = Filter.Simple(FilterNode.StripValue)

        /** Cells whose value has every bit of [mask] set (same length). */
        fun bitmask(mask: ByteArray): Filter = Filter.Simple(FilterNode.ValueBitmask(mask.copyOf()))
    }

    /** Cell limits. */
    object LimitFilters {
        /** The first [n] cells of each row. */
        fun cellsPerRow(n: Int): Filter = Filter.Simple(FilterNode.CellsPerRowLimit(n))

        /** The newest [n] cells of each column. */
        fun cellsPerColumn(n: Int): Filter = Filter.Simple(FilterNode.CellsPerColumnLimit(n))
    }

    /** Cell offsets. */
    object OffsetFilters {
        /** Skips the first [n] cells of each row. */
        fun cellsPerRow(n: Int): Filter = Filter.Simple(FilterNode.CellsPerRowOffset(n))
    }
}

/** The Java client's `Filters.FILTERS`. */
@JvmField
val FILTERS: Filters = Filters

/**
 * An RE2 pattern matching exactly [bytes]: ASCII letters and digits as themselves, every
 * other byte as `\xNN` inside a non-Unicode group, so any byte string, UTF-8 or not, is
 * matched byte for byte (the Java client's `RegexUtil.literalRegex` serves the same purpose).
 */
internal fun literalRegex(bytes: ByteArray): ByteArray {
    val sb = StringBuilder("(?-u:")
    for (b in bytes) {
        val c = b.toInt() and 0xff
        if (c in '0'.code..'9'.code || c in 'a'.code..'z'.code || c in 'A'.code..'Z'.code) sb.append(c.toChar())
        else sb.append("\\x").append(HEX[c shr 4]).append(HEX[c and 15])
    }
    return sb.append(')').toString().toByteArray(Charsets.US_ASCII)
}

private const val HEX = "0123456789abcdef"
