// SQL (GoogleSQL for Bigtable) shaped like Google's Java client: `SqlType`, `Statement` (with
// its builder's typed `set...Param` methods), and `ResultSet` (`next()`, `getString`,
// `getLong`, `getBytes`, `getTimestamp`, ... by column index or name) with its
// `ResultSetMetadata`; `BigtableDataClient.executeQuery` runs a statement. Conversions only:
// types and values cross the FFI as the native layer's pre-order node lists, and what a query
// means, which value fits which parameter, and every error are the core's.
//
// Values come back as Kotlin/Java values: INT64 Long, FLOAT64 Double, FLOAT32 Float, BOOL
// Boolean, STRING String, BYTES ByteArray, TIMESTAMP java.time.Instant, DATE
// java.time.LocalDate (Google's client uses com.google.cloud.Date), ARRAY List, MAP Map (a
// BYTES key as a java.nio.ByteBuffer, which compares by content), STRUCT StructReader.
package dev.sparsetable

import dev.sparsetable.ffi.SqlColumnInfo
import dev.sparsetable.ffi.SqlKind
import dev.sparsetable.ffi.SqlTypeNode
import dev.sparsetable.ffi.SqlValueNode
import java.nio.ByteBuffer
import java.time.Instant
import java.time.LocalDate

/** A SQL type, as Google's `SqlType`: made with the factory functions of the companion. */
sealed class SqlType {
    /** The type's kind. */
    abstract val code: Code

    /** The kinds of SQL type. */
    enum class Code {
        /** BYTES. */
        BYTES,

        /** STRING. */
        STRING,

        /** INT64. */
        INT64,

        /** FLOAT32. */
        FLOAT32,

        /** FLOAT64. */
        FLOAT64,

        /** BOOL. */
        BOOL,

        /** TIMESTAMP. */
        TIMESTAMP,

        /** DATE. */
        DATE,

        /** ARRAY. */
        ARRAY,

        /** MAP. */
        MAP,

        /** STRUCT. */
        STRUCT,
    }

    /** A type without parameters. */
    data class Scalar(
        /** The kind (a scalar one: not ARRAY, MAP or STRUCT). */
        override val code: Code,
    ) : SqlType()

    /** ARRAY of [elementType]. */
    data class Array(
        /** The elements' type. */
        val elementType: SqlType,
    ) : SqlType() {
        override val code get() = Code.ARRAY
    }

    /** MAP from [keyType] to [valueType]. */
    data class Map(
        /** The keys' type. */
        val keyType: SqlType,
        /** The values' type. */
        val valueType: SqlType,
    ) : SqlType() {
        override val code get() = Code.MAP
    }

    /** STRUCT of named (or unnamed: "") [fields]. */
    data class Struct(
        /** The fields' names and types, in order. */
        val fields: List<Pair<String, SqlType>>,
    ) : SqlType() {
        override val code get() = Code.STRUCT
    }

    /** The factory functions, named as Google's. */
    companion object {
        /** BYTES. */
        @JvmStatic fun bytes(): SqlType = Scalar(Code.BYTES)

        /** STRING. */
        @JvmStatic fun string(): SqlType = Scalar(Code.STRING)

        /** INT64. */
        @JvmStatic fun int64(): SqlType = Scalar(Code.INT64)

        /** FLOAT32. */
        @JvmStatic fun float32(): SqlType = Scalar(Code.FLOAT32)

        /** FLOAT64. */
        @JvmStatic fun float64(): SqlType = Scalar(Code.FLOAT64)

        /** BOOL. */
        @JvmStatic fun bool(): SqlType = Scalar(Code.BOOL)

        /** TIMESTAMP. */
        @JvmStatic fun timestamp(): SqlType = Scalar(Code.TIMESTAMP)

        /** DATE. */
        @JvmStatic fun date(): SqlType = Scalar(Code.DATE)

        /** ARRAY of [elementType]. */
        @JvmStatic fun arrayOf(elementType: SqlType): Array = Array(elementType)

        /** MAP from [keyType] to [valueType]. */
        @JvmStatic fun mapOf(keyType: SqlType, valueType: SqlType): Map = Map(keyType, valueType)
    }
}

/**
 * Sets a statement's parameters, each with the type its setter names: the setters shared by
 * [Statement.Builder] and [BoundStatement.Builder], each returning the builder itself ([B]);
 * [build] makes the statement ([S]).
 */
abstract class ParamsBuilder<B : ParamsBuilder<B, S>, S : Statement> internal constructor(
    internal val query: String,
) {
    internal val types = LinkedHashMap<String, SqlType>()
    internal val values = LinkedHashMap<String, Any?>()

    @Suppress("UNCHECKED_CAST")
    private fun set(name: String, type: SqlType, value: Any?): B {
        types[name] = type
        values[name] = value
        return this as B
    }

    /** Sets STRING parameter @[name] (null is NULL). */
    fun setStringParam(name: String, value: String?): B = set(name, SqlType.string(), value)

    /** Sets BYTES parameter @[name]. */
    fun setBytesParam(name: String, value: ByteArray?): B = set(name, SqlType.bytes(), value)

    /** Sets INT64 parameter @[name]. */
    fun setLongParam(name: String, value: Long?): B = set(name, SqlType.int64(), value)

    /** Sets FLOAT32 parameter @[name]. */
    fun setFloatParam(name: String, value: Float?): B = set(name, SqlType.float32(), value)

    /** Sets FLOAT64 parameter @[name]. */
    fun setDoubleParam(name: String, value: Double?): B = set(name, SqlType.float64(), value)

    /** Sets BOOL parameter @[name]. */
    fun setBooleanParam(name: String, value: Boolean?): B = set(name, SqlType.bool(), value)

    /** Sets TIMESTAMP parameter @[name]. */
    fun setTimestampParam(name: String, value: Instant?): B = set(name, SqlType.timestamp(), value)

    /** Sets DATE parameter @[name]. */
    fun setDateParam(name: String, value: LocalDate?): B = set(name, SqlType.date(), value)

    /** Sets ARRAY parameter @[name] of [type]; elements are values of its element type. */
    fun setListParam(name: String, value: List<Any?>?, type: SqlType.Array): B = set(name, type, value)

    /** The statement. */
    abstract fun build(): S
}

/**
 * A SQL query with its typed parameters, as Google's `Statement`: built with [newBuilder]
 * and run by [BigtableDataClient.executeQuery].
 */
open class Statement internal constructor(
    /** The SQL text. */
    val query: String,
    internal val types: kotlin.collections.Map<String, SqlType>,
    internal val values: kotlin.collections.Map<String, Any?>,
    internal val prepared: PreparedStatement?,
) {
    /** Sets the statement's parameters, each with the type its setter names. */
    class Builder internal constructor(query: String) : ParamsBuilder<Builder, Statement>(query) {
        /** The statement. */
        override fun build(): Statement = Statement(query, LinkedHashMap(types), LinkedHashMap(values), null)
    }

    /** Builders and shortcuts, named as Google's. */
    companion object {
        /** A builder of a statement of [query]. */
        @JvmStatic fun newBuilder(query: String): Builder = Builder(query)

        /** A statement of [query] without parameters. */
        @JvmStatic fun of(query: String): Statement = Builder(query).build()
    }
}

/**
 * A [PreparedStatement] with its parameters' values, as Google's `BoundStatement`: made by
 * `preparedStatement.bind().setStringParam(...).build()` and run by
 * [BigtableDataClient.executeQuery] or [BigtableDataClient.executeQueryAsync]. It must set
 * exactly the parameters the statement was prepared with, with those types (checked when it
 * runs: INVALID_ARGUMENT otherwise).
 */
class BoundStatement internal constructor(
    /** The statement it binds. */
    val preparedStatement: PreparedStatement,
    types: kotlin.collections.Map<String, SqlType>,
    values: kotlin.collections.Map<String, Any?>,
) : Statement(preparedStatement.query, types, values, preparedStatement) {
    /** Sets the bound statement's parameters, each with the type its setter names. */
    class Builder internal constructor(
        private val preparedStatement: PreparedStatement,
    ) : ParamsBuilder<Builder, BoundStatement>(preparedStatement.query) {
        /** The bound statement. */
        override fun build(): BoundStatement =
            BoundStatement(preparedStatement, LinkedHashMap(types), LinkedHashMap(values))
    }
}

/**
 * A query checked against the tables' schemas with its parameters' types, as Google's
 * `PreparedStatement` ([BigtableDataClient.prepareStatement]); [bind] sets its values.
 */
class PreparedStatement internal constructor(
    /** The SQL text. */
    val query: String,
    /** The parameters' types, by name. */
    val paramTypes: kotlin.collections.Map<String, SqlType>,
    /** The result's columns. */
    val resultSetMetadata: ResultSetMetadata,
) {
    /** A builder of a [BoundStatement] of this query; set exactly the declared parameters. */
    fun bind(): BoundStatement.Builder = BoundStatement.Builder(this)
}

/** One result column: its name and type, as Google's `ColumnMetadata`. */
class ColumnMetadata internal constructor(
    private val name: String,
    private val type: SqlType,
) {
    /** The column's name. */
    fun name(): String = name

    /** The column's type. */
    fun type(): SqlType = type

    override fun toString() = "$name $type"
}

/** A result's columns, as Google's `ResultSetMetadata`. */
class ResultSetMetadata internal constructor(private val columns: List<ColumnMetadata>) {
    /** The columns, in order. */
    fun getColumns(): List<ColumnMetadata> = columns

    /** The type of column [index]. */
    fun getColumnType(index: Int): SqlType = columns[index].type()

    /** The type of the column named [name]. */
    fun getColumnType(name: String): SqlType = columns[getColumnIndex(name)].type()

    /** The index of the column named [name]; an unknown or repeated name is refused. */
    fun getColumnIndex(name: String): Int = uniqueIndex(columns.map { it.name() }, name)
}

private fun uniqueIndex(names: List<String>, name: String): Int {
    val at = names.indices.filter { names[it] == name }
    require(at.isNotEmpty()) { "no column named $name" }
    require(at.size == 1) { "$name names more than one column (${at.joinToString()}); use an index" }
    return at[0]
}

/** Reads the fields of a row or a STRUCT by index or name, as Google's `StructReader`. */
abstract class StructReader internal constructor() {
    internal abstract fun valueAt(index: Int): Any?

    internal abstract fun indexOf(name: String): Int

    private inline fun <reified T> typed(index: Int, what: String): T {
        val v = valueAt(index) ?: throw NullPointerException("field $index is NULL; check isNull first")
        return v as? T ?: throw IllegalStateException("field $index is not a $what")
    }

    /** Whether field [index] is NULL. */
    fun isNull(index: Int): Boolean = valueAt(index) == null

    /** Whether the field named [name] is NULL. */
    fun isNull(name: String): Boolean = isNull(indexOf(name))

    /** A STRING field. */
    fun getString(index: Int): String = typed(index, "STRING")

    /** A STRING field. */
    fun getString(name: String): String = getString(indexOf(name))

    /** A BYTES field. */
    fun getBytes(index: Int): ByteArray = typed(index, "BYTES")

    /** A BYTES field. */
    fun getBytes(name: String): ByteArray = getBytes(indexOf(name))

    /** An INT64 field. */
    fun getLong(index: Int): Long = typed(index, "INT64")

    /** An INT64 field. */
    fun getLong(name: String): Long = getLong(indexOf(name))

    /** A FLOAT64 field. */
    fun getDouble(index: Int): Double = typed(index, "FLOAT64")

    /** A FLOAT64 field. */
    fun getDouble(name: String): Double = getDouble(indexOf(name))

    /** A FLOAT32 field. */
    fun getFloat(index: Int): Float = typed(index, "FLOAT32")

    /** A FLOAT32 field. */
    fun getFloat(name: String): Float = getFloat(indexOf(name))

    /** A BOOL field. */
    fun getBoolean(index: Int): Boolean = typed(index, "BOOL")

    /** A BOOL field. */
    fun getBoolean(name: String): Boolean = getBoolean(indexOf(name))

    /** A TIMESTAMP field. */
    fun getTimestamp(index: Int): Instant = typed(index, "TIMESTAMP")

    /** A TIMESTAMP field. */
    fun getTimestamp(name: String): Instant = getTimestamp(indexOf(name))

    /** A DATE field. */
    fun getDate(index: Int): LocalDate = typed(index, "DATE")

    /** A DATE field. */
    fun getDate(name: String): LocalDate = getDate(indexOf(name))

    /** An ARRAY field (elements as the getters return them; NULL elements as null). */
    fun getList(index: Int): List<Any?> = typed(index, "ARRAY")

    /** An ARRAY field. */
    fun getList(name: String): List<Any?> = getList(indexOf(name))

    /** A MAP field, in key order (a BYTES key as a ByteBuffer). */
    fun getMap(index: Int): kotlin.collections.Map<Any?, Any?> = typed(index, "MAP")

    /** A MAP field. */
    fun getMap(name: String): kotlin.collections.Map<Any?, Any?> = getMap(indexOf(name))

    /** A STRUCT field. */
    fun getStruct(index: Int): StructReader = typed(index, "STRUCT")

    /** A STRUCT field. */
    fun getStruct(name: String): StructReader = getStruct(indexOf(name))

    /** The field's value as returned by the typed getters (null for NULL). */
    fun getValue(index: Int): Any? = valueAt(index)
}

/** A STRUCT value. */
class SqlStruct internal constructor(private val names: List<String>, private val values: List<Any?>) : StructReader() {
    override fun valueAt(index: Int) = values[index]

    override fun indexOf(name: String) = uniqueIndex(names, name)
}

/**
 * A query's rows, as Google's `ResultSet`: [next] moves to the next row (false after the
 * last) and the getters read the current row's columns. The whole result is computed when
 * the query runs.
 */
class ResultSet internal constructor(
    private val metadata: ResultSetMetadata,
    private val rows: List<List<Any?>>,
) : StructReader(), AutoCloseable {
    private var at = -1

    /** Moves to the next row; false when there is none. */
    fun next(): Boolean {
        if (at < rows.size) at++
        return at < rows.size
    }

    /** The result's columns. */
    fun getMetadata(): ResultSetMetadata = metadata

    override fun valueAt(index: Int): Any? {
        check(at in rows.indices) { "no current row: call next() first, and only while it returns true" }
        return rows[at][index]
    }

    override fun indexOf(name: String) = metadata.getColumnIndex(name)

    /** Releases the rows. */
    override fun close() {
        at = rows.size
    }
}

// ---- conversions to and from the native layer's node lists.

internal fun SqlType.toNodes(name: String = "", out: MutableList<SqlTypeNode> = mutableListOf()): List<SqlTypeNode> {
    when (this) {
        is SqlType.Scalar -> out += SqlTypeNode(SqlKind.valueOf(code.name), name, 0u)
        is SqlType.Array -> {
            out += SqlTypeNode(SqlKind.ARRAY, name, 1u)
            elementType.toNodes("", out)
        }
        is SqlType.Map -> {
            out += SqlTypeNode(SqlKind.MAP, name, 2u)
            keyType.toNodes("", out)
            valueType.toNodes("", out)
        }
        is SqlType.Struct -> {
            out += SqlTypeNode(SqlKind.STRUCT, name, fields.size.toUInt())
            fields.forEach { (n, t) -> t.toNodes(n, out) }
        }
    }
    return out
}

private class Cursor<T>(val nodes: List<T>) {
    var at = 0

    fun next(): T = nodes[at++]
}

private fun readType(c: Cursor<SqlTypeNode>): SqlType {
    val n = c.next()
    return when (n.kind) {
        SqlKind.ARRAY -> SqlType.Array(readType(c))
        SqlKind.MAP -> SqlType.Map(readType(c), readType(c))
        SqlKind.STRUCT -> SqlType.Struct((0 until n.children.toInt()).map { c.nodes[c.at].name to readType(c) })
        else -> SqlType.Scalar(SqlType.Code.valueOf(n.kind.name))
    }
}

private fun blank(children: Int = 0) = SqlValueNode(false, ByteArray(0), "", 0, 0.0, false, 0, 0, children.toUInt())

private fun wrong(name: String, type: SqlType, value: Any): Nothing =
    throw InvalidArgumentException("INVALID_ARGUMENT: parameter @$name: a ${value.javaClass.simpleName} is not a ${type.code}")

internal fun valueToNodes(name: String, value: Any?, type: SqlType, out: MutableList<SqlValueNode> = mutableListOf()): List<SqlValueNode> {
    if (value == null) {
        out += blank().copy(isNull = true)
        return out
    }
    out += when (type.code) {
        SqlType.Code.BYTES -> blank().copy(bytes = value as? ByteArray ?: wrong(name, type, value))
        SqlType.Code.STRING -> blank().copy(text = value as? String ?: wrong(name, type, value))
        SqlType.Code.INT64 -> blank().copy(int = value as? Long ?: (value as? Int)?.toLong() ?: wrong(name, type, value))
        SqlType.Code.FLOAT32, SqlType.Code.FLOAT64 -> blank().copy(float = (value as? Number ?: wrong(name, type, value)).toDouble())
        SqlType.Code.BOOL -> blank().copy(boolean = value as? Boolean ?: wrong(name, type, value))
        SqlType.Code.TIMESTAMP -> (value as? Instant ?: wrong(name, type, value)).let { blank().copy(int = it.epochSecond, nanos = it.nano) }
        SqlType.Code.DATE -> (value as? LocalDate ?: wrong(name, type, value)).let {
            blank().copy(int = it.year.toLong(), nanos = it.monthValue, day = it.dayOfMonth)
        }
        SqlType.Code.ARRAY -> {
            val list = value as? List<*> ?: wrong(name, type, value)
            out += blank(list.size)
            list.forEach { valueToNodes(name, it, (type as SqlType.Array).elementType, out) }
            return out
        }
        // The core refuses MAP and STRUCT parameters with its own words.
        SqlType.Code.MAP, SqlType.Code.STRUCT -> blank()
    }
    return out
}

private fun readValue(c: Cursor<SqlValueNode>, type: SqlType): Any? {
    val n = c.next()
    if (n.isNull) return null
    return when (type) {
        is SqlType.Array -> List(n.children.toInt()) { readValue(c, type.elementType) }
        is SqlType.Map -> LinkedHashMap<Any?, Any?>().apply {
            repeat(n.children.toInt() / 2) {
                val k = readValue(c, type.keyType)
                put(if (k is ByteArray) ByteBuffer.wrap(k).asReadOnlyBuffer() else k, readValue(c, type.valueType))
            }
        }
        is SqlType.Struct -> SqlStruct(type.fields.map { it.first }, type.fields.map { readValue(c, it.second) })
        is SqlType.Scalar -> when (type.code) {
            SqlType.Code.BYTES -> n.bytes
            SqlType.Code.STRING -> n.text
            SqlType.Code.INT64 -> n.int
            SqlType.Code.FLOAT32 -> n.float.toFloat()
            SqlType.Code.FLOAT64 -> n.float
            SqlType.Code.BOOL -> n.boolean
            SqlType.Code.TIMESTAMP -> Instant.ofEpochSecond(n.int, n.nanos.toLong())
            SqlType.Code.DATE -> LocalDate.of(n.int.toInt(), n.nanos, n.day)
            else -> error("scalar ${type.code}")
        }
    }
}

internal fun metadataOf(columns: List<SqlColumnInfo>) =
    ResultSetMetadata(columns.map { ColumnMetadata(it.name, readType(Cursor(it.typeNodes))) })

internal fun rowsOf(metadata: ResultSetMetadata, rows: List<List<SqlValueNode>>): List<List<Any?>> = rows.map { nodes ->
    val c = Cursor(nodes)
    metadata.getColumns().map { readValue(c, it.type()) }
}
