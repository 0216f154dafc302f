// What the admin client reports about a table, as `com.google.cloud.bigtable.admin.v2.models
// .Table` and `ColumnFamily`: an id, families in creation order with their GC rules, and the
// table's options.
package dev.sparsetable.admin

import dev.sparsetable.ffi.FamilySettings
import dev.sparsetable.ffi.Granularity
import dev.sparsetable.ffi.TableInfo
import dev.sparsetable.ffi.ValueType as NativeValueType

/** What a family's cells hold, as Bigtable's column family value type. */
enum class ValueType {
    /** Plain bytes written with setCell (the default). */
    BYTES,

    /** An aggregate of int64 inputs (addToCell) kept as their sum. */
    INT64_SUM,

    /** An aggregate keeping the minimum int64 input. */
    INT64_MIN,

    /** An aggregate keeping the maximum int64 input. */
    INT64_MAX,

    /**
     * Bigtable's HyperLogLog++ unique count aggregate: addToCell inputs (and mergeToCell
     * sketches) are counted approximately; a read returns the sketch, which SQL's
     * `HLL_COUNT.EXTRACT` turns into the estimate.
     */
    HLLPP_UNIQUE_COUNT,
    ;

    internal fun toNative() = when (this) {
        BYTES -> NativeValueType.BYTES
        INT64_SUM -> NativeValueType.INT64_SUM
        INT64_MIN -> NativeValueType.INT64_MIN
        INT64_MAX -> NativeValueType.INT64_MAX
        HLLPP_UNIQUE_COUNT -> NativeValueType.HLL_UNIQUE_COUNT
    }

    internal companion object {
        fun fromNative(v: NativeValueType) = when (v) {
            NativeValueType.BYTES -> BYTES
            NativeValueType.INT64_SUM -> INT64_SUM
            NativeValueType.INT64_MIN -> INT64_MIN
            NativeValueType.INT64_MAX -> INT64_MAX
            NativeValueType.HLL_UNIQUE_COUNT -> HLLPP_UNIQUE_COUNT
        }
    }
}

internal fun settings(gcRule: GCRule, valueType: ValueType) = FamilySettings(gcRule.toNative(), valueType.toNative())

/** Precision of user timestamps, as Bigtable's `TimestampGranularity`. */
enum class TimestampGranularity {
    /** Multiples of 1000 microseconds (the default). */
    MILLIS,

    /** Any microsecond. */
    MICROS,
    ;

    internal fun toNative() = when (this) {
        MILLIS -> Granularity.MILLIS
        MICROS -> Granularity.MICROS
    }

    internal companion object {
        fun fromNative(g: Granularity) = when (g) {
            Granularity.MILLIS -> MILLIS
            Granularity.MICROS -> MICROS
        }
    }
}

/** A column family of a table. */
data class ColumnFamily @JvmOverloads constructor(val id: String, val gcRule: GCRule, val valueType: ValueType = ValueType.BYTES)

/** A table's id and schema. */
class Table internal constructor(info: TableInfo) {
    /** The table id. */
    val id: String = info.tableId

    /** Column families in creation order (the order reads return a row's families in). */
    val columnFamilies: List<ColumnFamily> = info.families.map {
        ColumnFamily(it.name, GCRule.fromNative(it.settings.gcRule), ValueType.fromNative(it.settings.valueType))
    }

    /** Timestamp precision. */
    val granularity: TimestampGranularity = TimestampGranularity.fromNative(info.granularity)

    /** Whether deleting the table is refused. */
    val isDeletionProtected: Boolean = info.deletionProtection

    /** The largest value a cell may hold, in bytes. */
    val maxValueBytes: Long = info.maxValueBytes.toLong()

    /** The row-key schema, if the table has one (see [RowKeySchema]). */
    val rowKeySchema: RowKeySchema? = info.rowKeySchema?.let { RowKeySchema.fromNative(it) }

    /** Whether a family named [family] exists. */
    fun hasFamily(family: String) = columnFamilies.any { it.id == family }

    override fun toString() = "Table(id=$id, columnFamilies=$columnFamilies, granularity=$granularity, " +
        "deletionProtected=$isDeletionProtected)"
}
