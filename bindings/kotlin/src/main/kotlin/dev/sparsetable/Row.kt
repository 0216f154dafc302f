// What reads return: a Row of RowCells, as `com.google.cloud.bigtable.data.v2.models.Row`.
// Cells are in Bigtable order (family, qualifier ascending, newest first) because the engine
// returns them so; nothing here reorders. Equality compares byte contents, not array
// identity, so rows can be compared in tests.
package dev.sparsetable

import dev.sparsetable.ffi.Cell as NativeCell
import dev.sparsetable.ffi.Row as NativeRow

/** One timestamped value of one column. [timestamp] is in microseconds. */
class RowCell(
    /** The column family. */
    val family: String,
    /** The column qualifier, raw bytes. */
    val qualifier: ByteArray,
    /** The version's timestamp in microseconds since the Unix epoch. */
    val timestamp: Long,
    /** The value, raw bytes (empty when a strip-value filter applied). */
    val value: ByteArray,
    /** Labels a `label` filter attached to this cell, in the order they were applied. */
    val labels: List<String> = emptyList(),
) {
    /** The qualifier decoded as UTF-8. */
    val qualifierUtf8: String get() = qualifier.toString(Charsets.UTF_8)

    /** The value decoded as UTF-8. */
    val valueUtf8: String get() = value.toString(Charsets.UTF_8)

    override fun equals(other: Any?): Boolean =
        other is RowCell && family == other.family && qualifier.contentEquals(other.qualifier) &&
            timestamp == other.timestamp && value.contentEquals(other.value) && labels == other.labels

    override fun hashCode(): Int =
        listOf(family, qualifier.contentHashCode(), timestamp, value.contentHashCode(), labels).hashCode()

    override fun toString(): String =
        "RowCell(family=$family, qualifier=${qualifier.describe()}, timestamp=$timestamp, " +
            "value=${value.describe()}, labels=$labels)"

    companion object {
        /** A cell from UTF-8 text, for building expectations. */
        @JvmStatic
        @JvmOverloads
        fun create(family: String, qualifier: String, timestamp: Long, value: String, labels: List<String> = emptyList()) =
            RowCell(family, qualifier.utf8(), timestamp, value.utf8(), labels)
    }
}

/** A row: its key and its cells in Bigtable order. */
class Row(val key: ByteArray, val cells: List<RowCell>) {
    /** The key decoded as UTF-8. */
    val keyUtf8: String get() = key.toString(Charsets.UTF_8)

    /** The cells of one family, in row order. */
    fun getCells(family: String): List<RowCell> = cells.filter { it.family == family }

    /** The cells of one column, newest first. */
    fun getCells(family: String, qualifier: ByteArray): List<RowCell> =
        cells.filter { it.family == family && it.qualifier.contentEquals(qualifier) }

    /** The cells of one column, newest first. */
    fun getCells(family: String, qualifier: String): List<RowCell> = getCells(family, qualifier.utf8())

    override fun equals(other: Any?): Boolean = other is Row && key.contentEquals(other.key) && cells == other.cells

    override fun hashCode(): Int = 31 * key.contentHashCode() + cells.hashCode()

    override fun toString(): String = "Row(key=${key.describe()}, cells=$cells)"
}

internal fun NativeRow.toRow(): Row = Row(key, cells.map { it.toRowCell() })

private fun NativeCell.toRowCell(): RowCell = RowCell(family, qualifier, timestampMicros, value, labels)

/** Printable ASCII as text, anything else as hex, for readable test failures. */
internal fun ByteArray.describe(): String =
    if (all { it in 0x20..0x7e }) "\"${toString(Charsets.US_ASCII)}\""
    else "0x" + joinToString("") { "%02x".format(it) }
