// A table's row-key schema (Bigtable's `Table.row_key_schema`, "structured row keys"): the
// row key described as typed fields, which SQL reads as columns. Google's Java admin client
// has no model class for it (its requests take the `Type.Struct` proto); this one follows the
// proto's names: fields with a type and its encoding, joined as a singleton, by a delimiter,
// or in ordered code. Values only: the core checks every rule when a table gets the schema.
package dev.sparsetable.admin

import dev.sparsetable.ffi.KeyFieldKind
import dev.sparsetable.ffi.RowKeyEncoding
import dev.sparsetable.ffi.RowKeyField
import dev.sparsetable.ffi.RowKeySchemaConfig

/**
 * A row-key schema: the fields a row key is made of, in key order, and how they are joined.
 *
 * ```
 * admin.createTable(
 *     CreateTableRequest.of("events").addFamily("cf").setRowKeySchema(
 *         RowKeySchema.delimitedBytes("#", RowKeySchema.Field("user", RowKeySchema.FieldType.STRING),
 *             RowKeySchema.Field("day", RowKeySchema.FieldType.STRING)),
 *     ),
 * )
 * // then: SELECT user, day FROM events
 * ```
 */
class RowKeySchema private constructor(
    /** The fields, in key order. */
    val fields: List<Field>,
    /** How the fields are joined into the key. */
    val encoding: Encoding,
    private val delimiterBytes: ByteArray,
) {
    /** The delimiter of [Encoding.DELIMITED_BYTES] (a copy); empty for the other encodings. */
    val delimiter: ByteArray get() = delimiterBytes.copyOf()

    /** One field: its name (its SQL column) and its type with the type's encoding. */
    data class Field(
        /** The field's name. */
        val name: String,
        /** Its type and encoding. */
        val type: FieldType,
    )

    /** A field's type with its encoding in the key. */
    enum class FieldType {
        /** BYTES, raw. */
        BYTES,

        /** STRING, its UTF-8 bytes. */
        STRING,

        /** INT64 as 8 big-endian bytes (byte order is numeric order only for non-negative values). */
        INT64_BIG_ENDIAN,

        /** INT64 in ordered code: 1 to 10 bytes whose byte order is numeric order. */
        INT64_ORDERED_CODE,
    }

    /** How the fields are joined (the proto's `Type.Struct.Encoding`). */
    enum class Encoding {
        /** Exactly one field, encoded as is. */
        SINGLETON,

        /** The fields joined by [delimiter]. */
        DELIMITED_BYTES,

        /** The fields in ordered-code form, which keeps their order for any bytes. */
        ORDERED_CODE_BYTES,
    }

    internal fun toNative() = RowKeySchemaConfig(
        fields.map { RowKeyField(it.name, it.type.toNative()) },
        when (encoding) {
            Encoding.SINGLETON -> RowKeyEncoding.Singleton
            Encoding.DELIMITED_BYTES -> RowKeyEncoding.DelimitedBytes(delimiterBytes.copyOf())
            Encoding.ORDERED_CODE_BYTES -> RowKeyEncoding.OrderedCodeBytes
        },
    )

    override fun equals(other: Any?) = other is RowKeySchema && fields == other.fields &&
        encoding == other.encoding && delimiterBytes.contentEquals(other.delimiterBytes)

    override fun hashCode() = (fields.hashCode() * 31 + encoding.hashCode()) * 31 + delimiterBytes.contentHashCode()

    override fun toString() = "RowKeySchema($encoding, fields=$fields" +
        (if (encoding == Encoding.DELIMITED_BYTES) ", delimiter=${delimiterBytes.toString(Charsets.UTF_8)})" else ")")

    companion object {
        /** A key that is one field. */
        @JvmStatic
        fun singleton(field: Field) = RowKeySchema(listOf(field), Encoding.SINGLETON, ByteArray(0))

        /** Fields joined by [delimiter] (1 to 50 bytes). */
        @JvmStatic
        fun delimitedBytes(delimiter: ByteArray, vararg fields: Field) =
            RowKeySchema(fields.toList(), Encoding.DELIMITED_BYTES, delimiter.copyOf())

        /** Fields joined by a UTF-8 [delimiter]. */
        @JvmStatic
        fun delimitedBytes(delimiter: String, vararg fields: Field) =
            delimitedBytes(delimiter.toByteArray(Charsets.UTF_8), *fields)

        /** Fields in ordered-code form. */
        @JvmStatic
        fun orderedCodeBytes(vararg fields: Field) = RowKeySchema(fields.toList(), Encoding.ORDERED_CODE_BYTES, ByteArray(0))

        internal fun fromNative(s: RowKeySchemaConfig): RowKeySchema {
            val fields = s.fields.map { Field(it.name, fieldTypeOf(it.kind)) }
            return when (val e = s.encoding) {
                is RowKeyEncoding.Singleton -> RowKeySchema(fields, Encoding.SINGLETON, ByteArray(0))
                is RowKeyEncoding.DelimitedBytes -> RowKeySchema(fields, Encoding.DELIMITED_BYTES, e.delimiter.copyOf())
                is RowKeyEncoding.OrderedCodeBytes -> RowKeySchema(fields, Encoding.ORDERED_CODE_BYTES, ByteArray(0))
            }
        }
    }
}

private fun RowKeySchema.FieldType.toNative() = when (this) {
    RowKeySchema.FieldType.BYTES -> KeyFieldKind.BYTES
    RowKeySchema.FieldType.STRING -> KeyFieldKind.STRING
    RowKeySchema.FieldType.INT64_BIG_ENDIAN -> KeyFieldKind.INT64_BIG_ENDIAN
    RowKeySchema.FieldType.INT64_ORDERED_CODE -> KeyFieldKind.INT64_ORDERED_CODE
}

private fun fieldTypeOf(k: KeyFieldKind) = when (k) {
    KeyFieldKind.BYTES -> RowKeySchema.FieldType.BYTES
    KeyFieldKind.STRING -> RowKeySchema.FieldType.STRING
    KeyFieldKind.INT64_BIG_ENDIAN -> RowKeySchema.FieldType.INT64_BIG_ENDIAN
    KeyFieldKind.INT64_ORDERED_CODE -> RowKeySchema.FieldType.INT64_ORDERED_CODE
}
