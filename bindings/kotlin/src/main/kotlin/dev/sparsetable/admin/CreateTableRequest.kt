// Requests of the admin client, as `com.google.cloud.bigtable.admin.v2.models
// .CreateTableRequest` and `ModifyColumnFamiliesRequest`. Builders record; the engine
// validates names and rules and applies family changes all or nothing.
package dev.sparsetable.admin

import dev.sparsetable.ffi.FamilyModification
import dev.sparsetable.ffi.TableConfig
import java.util.Optional

/** The schema and options of a table to create. */
class CreateTableRequest private constructor(val tableId: String) {
    // Insertion order is the order the engine creates the families in, and so the order
    // reads return a row's families in (as Cloud Bigtable's request order).
    private val families = linkedMapOf<String, ColumnFamily>()
    private val splits = mutableListOf<ByteArray>()
    private var granularity = TimestampGranularity.MILLIS
    private var deletionProtection = false
    private var maxValueBytes: Long? = null

    /** Adds a family without a GC rule (a second call with the same name replaces it). */
    fun addFamily(familyId: String): CreateTableRequest = addFamily(familyId, GCRules.defaultRule())

    /** Adds a family with [gcRule] whose cells hold [valueType] (plain bytes by default). */
    @JvmOverloads
    fun addFamily(familyId: String, gcRule: GCRule, valueType: ValueType = ValueType.BYTES): CreateTableRequest =
        apply { families[familyId] = ColumnFamily(familyId, gcRule, valueType) }

    /** Adds an aggregate family without a GC rule. */
    fun addFamily(familyId: String, valueType: ValueType): CreateTableRequest =
        addFamily(familyId, GCRules.defaultRule(), valueType)

    /** Adds a key at which the table starts out split. */
    fun addSplit(key: ByteArray): CreateTableRequest = apply { splits += key.copyOf() }

    /** Adds a UTF-8 key at which the table starts out split. */
    fun addSplit(key: String): CreateTableRequest = addSplit(key.toByteArray(Charsets.UTF_8))

    /** Refuse to delete the table while set. */
    fun setDeletionProtection(protect: Boolean): CreateTableRequest = apply { deletionProtection = protect }

    /** The precision user timestamps must have. */
    fun setTimestampGranularity(g: TimestampGranularity): CreateTableRequest = apply { granularity = g }

    /** Enables the table's change stream, keeping changes for [retention] (1 to 7 days). */
    fun addChangeStreamRetention(retention: java.time.Duration): CreateTableRequest =
        apply { changeStreamRetentionMicros = Math.addExact(Math.multiplyExact(retention.seconds, 1_000_000L), (retention.nano / 1000).toLong()) }

    internal var changeStreamRetentionMicros: Long? = null

    /** The largest value a cell may hold (the engine's default is 100 MiB). */
    fun setMaxValueBytes(bytes: Long): CreateTableRequest = apply { maxValueBytes = bytes }

    private var rowKeySchema: RowKeySchema? = null

    /**
     * Describes the row keys as [schema]'s fields, which SQL then reads as columns (the
     * table's `row_key_schema`; field names may not be `_key`, `_timestamp` or a family's).
     */
    fun setRowKeySchema(schema: RowKeySchema): CreateTableRequest = apply { rowKeySchema = schema }

    internal fun toNative(): TableConfig {
        // u64 on the native side: a negative size must fail as the engine's
        // INVALID_ARGUMENT, not wrap around to a huge one.
        val max = maxValueBytes?.let {
            if (it < 0) throw dev.sparsetable.InvalidArgumentException("INVALID_ARGUMENT: max_value_bytes $it must be positive")
            it.toULong()
        }
        return TableConfig(
            families.values.map { dev.sparsetable.ffi.ColumnFamily(it.id, settings(it.gcRule, it.valueType)) },
            granularity.toNative(), deletionProtection, splits.toList(), max, rowKeySchema?.toNative())
    }

    companion object {
        /** A request to create [tableId]. */
        @JvmStatic
        fun of(tableId: String) = CreateTableRequest(tableId)
    }
}

/** Changes to a table's options, as the Java admin client's `UpdateTableRequest`. */
class UpdateTableRequest private constructor(val tableId: String) {
    internal var deletionProtection: Boolean? = null

    /** Turns deletion protection on or off. */
    fun setDeletionProtection(protect: Boolean): UpdateTableRequest = apply { deletionProtection = protect }

    /** The change stream change: absent (no change), a retention in microseconds, or null (disable). */
    internal var changeStream: Optional<Long>? = null

    /** Enables (or changes) the table's change stream, keeping changes for [retention] (1 to 7 days). */
    fun addChangeStreamRetention(retention: java.time.Duration): UpdateTableRequest =
        apply { changeStream = Optional.of(Math.addExact(Math.multiplyExact(retention.seconds, 1_000_000L), (retention.nano / 1000).toLong())) }

    /** Disables the table's change stream. */
    fun disableChangeStreamRetention(): UpdateTableRequest = apply { changeStream = Optional.empty() }

    /** The row-key schema change: absent (no change), a schema, or empty (remove it). */
    internal var rowKeySchema: Optional<RowKeySchema>? = null

    internal var ignoreWarnings = false

    /**
     * Gives the table a row-key schema. A table that has one keeps it: changing it is
     * INVALID_ARGUMENT (remove it first).
     */
    fun setRowKeySchema(schema: RowKeySchema): UpdateTableRequest = apply { rowKeySchema = Optional.of(schema) }

    /** Removes the table's row-key schema; needs [setIgnoreWarnings] (queries of its fields may break). */
    fun clearRowKeySchema(): UpdateTableRequest = apply { rowKeySchema = Optional.empty() }

    /** Accepts changes that may break readers (removing a row-key schema), as the proto's `ignore_warnings`. */
    fun setIgnoreWarnings(ignore: Boolean): UpdateTableRequest = apply { ignoreWarnings = ignore }

    companion object {
        /** A request to update [tableId]. */
        @JvmStatic
        fun of(tableId: String) = UpdateTableRequest(tableId)
    }
}

/** Family changes to one table, applied in order and all or nothing. */
class ModifyColumnFamiliesRequest private constructor(val tableId: String) {
    private val modifications = mutableListOf<FamilyModification>()

    /** Creates a family without a GC rule. */
    fun addFamily(familyId: String): ModifyColumnFamiliesRequest = addFamily(familyId, GCRules.defaultRule())

    /** Creates a family with [gcRule] whose cells hold [valueType] (plain bytes by default). */
    @JvmOverloads
    fun addFamily(familyId: String, gcRule: GCRule, valueType: ValueType = ValueType.BYTES): ModifyColumnFamiliesRequest =
        apply { modifications += FamilyModification.Create(familyId, settings(gcRule, valueType)) }

    /**
     * Replaces a family's GC rule. [valueType] must be the one the family was created with
     * (the engine refuses to change it); it is passed, not looked up, so this stays one call.
     */
    @JvmOverloads
    fun updateFamily(familyId: String, gcRule: GCRule, valueType: ValueType = ValueType.BYTES): ModifyColumnFamiliesRequest =
        apply { modifications += FamilyModification.Update(familyId, settings(gcRule, valueType)) }

    /** Drops a family and deletes its data. */
    fun dropFamily(familyId: String): ModifyColumnFamiliesRequest =
        apply { modifications += FamilyModification.Drop(familyId) }

    internal fun toNative(): List<FamilyModification> = modifications.toList()

    companion object {
        /** A request to change the families of [tableId]. */
        @JvmStatic
        fun of(tableId: String) = ModifyColumnFamiliesRequest(tableId)
    }
}
