// Replays every shared SQL vector (tests/vectors/sql/*.json, format in its README) through the
// public Kotlin API as a user of Google's Java client would: tables made with the table admin
// client (aggregate families included), cells written with mutateRow (setCell, addToCell), and
// each query run with BigtableDataClient.executeQuery on a Statement whose parameters are set
// with the typed setters (INT64 a Long, BYTES a ByteArray, TIMESTAMP an Instant, DATE a
// LocalDate, arrays with setListParam). Every other query goes through prepareStatement and
// bind(). Results are read with the ResultSet's getters by the column types its metadata
// reports, and compared under the README's rules. One JUnit test per vector; the last check
// fails if a vector did not run (none is skipped).
package dev.sparsetable

import com.google.gson.JsonArray
import com.google.gson.JsonElement
import com.google.gson.JsonObject
import com.google.gson.JsonParser
import dev.sparsetable.admin.BigtableTableAdminClient
import org.junit.AfterClass
import org.junit.Test
import org.junit.runner.RunWith
import org.junit.runners.Parameterized
import java.io.File
import java.nio.ByteBuffer
import java.time.Instant
import java.time.LocalDate
import kotlin.test.assertEquals
import kotlin.test.assertTrue

@RunWith(Parameterized::class)
class SqlVectorsTest(private val name: String, private val vector: JsonObject) {
    companion object {
        private val dir = File(System.getProperty("sparsetable.vectors") ?: "tests/vectors", "sql")

        private val all: List<JsonObject> by lazy {
            val files = dir.listFiles { f -> f.name.endsWith(".json") }?.sortedBy { it.name }
                ?: error("no SQL vector folder at ${dir.absolutePath}")
            files.flatMap { f -> JsonParser.parseString(f.readText()).asJsonObject["vectors"].asJsonArray.map { it.asJsonObject } }
        }

        private val ran = java.util.Collections.synchronizedSet(mutableSetOf<String>())

        @JvmStatic
        @Parameterized.Parameters(name = "{0}")
        fun vectors(): List<Array<Any>> = all.map { arrayOf(it["name"].asString, it) }

        @JvmStatic
        @AfterClass
        fun everyVectorRan() {
            assertTrue(all.size >= 12, "the SQL vectors were found")
            assertEquals(all.map { it["name"].asString }.toSet(), ran.toSet(), "every SQL vector ran")
        }

        private val SIMPLE = mapOf(
            "BYTES" to SqlType.bytes(), "STRING" to SqlType.string(), "INT64" to SqlType.int64(),
            "FLOAT32" to SqlType.float32(), "FLOAT64" to SqlType.float64(), "BOOL" to SqlType.bool(),
            "TIMESTAMP" to SqlType.timestamp(), "DATE" to SqlType.date(),
        )

        fun sqlType(t: JsonElement): SqlType {
            if (t.isJsonPrimitive) return SIMPLE.getValue(t.asString)
            val o = t.asJsonObject
            o["ARRAY"]?.let { return SqlType.arrayOf(sqlType(it)) }
            o["MAP"]?.asJsonArray?.let { return SqlType.mapOf(sqlType(it[0]), sqlType(it[1])) }
            return SqlType.Struct(o["STRUCT"].asJsonArray.map { f -> f.asJsonArray[0].asString to sqlType(f.asJsonArray[1]) })
        }

        private fun float(e: JsonElement): Double = when (val s = e.asString) {
            "NaN" -> Double.NaN
            "Infinity" -> Double.POSITIVE_INFINITY
            "-Infinity" -> Double.NEGATIVE_INFINITY
            else -> s.toDouble()
        }

        /** A vector VALUE as the Kotlin value a user passes. */
        fun paramValue(v: JsonElement, t: SqlType): Any? {
            if (v.isJsonNull) return null
            return when (t.code) {
                SqlType.Code.BYTES -> Vectors.bytes(v)
                SqlType.Code.STRING -> v.asString
                SqlType.Code.INT64 -> v.asLong
                SqlType.Code.FLOAT32 -> float(v).toFloat()
                SqlType.Code.FLOAT64 -> float(v)
                SqlType.Code.BOOL -> v.asBoolean
                SqlType.Code.TIMESTAMP -> Instant.EPOCH.plusNanos(0).plusSeconds(Math.floorDiv(v.asLong, 1_000_000L)).plusNanos(Math.floorMod(v.asLong, 1_000_000L) * 1000)
                SqlType.Code.DATE -> LocalDate.parse(v.asString)
                SqlType.Code.ARRAY -> v.asJsonArray.map { paramValue(it, (t as SqlType.Array).elementType) }
                else -> error("parameter type $t")
            }
        }

        fun vectorType(t: SqlType): JsonElement = when (t) {
            is SqlType.Scalar -> com.google.gson.JsonPrimitive(t.code.name)
            is SqlType.Array -> JsonObject().apply { add("ARRAY", vectorType(t.elementType)) }
            is SqlType.Map -> JsonObject().apply { add("MAP", JsonArray().apply { add(vectorType(t.keyType)); add(vectorType(t.valueType)) }) }
            is SqlType.Struct -> JsonObject().apply {
                add("STRUCT", JsonArray().apply { t.fields.forEach { (n, ft) -> add(JsonArray().apply { add(n); add(vectorType(ft)) }) } })
            }
        }

        /** An expected VALUE in a comparable form. */
        fun canonExpected(v: JsonElement, t: SqlType): Any? {
            if (v.isJsonNull) return null
            return when (t) {
                is SqlType.Array -> v.asJsonArray.map { canonExpected(it, t.elementType) }
                is SqlType.Map -> v.asJsonArray.map { e -> listOf(canonExpected(e.asJsonArray[0], t.keyType), canonExpected(e.asJsonArray[1], t.valueType)) }
                is SqlType.Struct -> v.asJsonArray.mapIndexed { i, x -> canonExpected(x, t.fields[i].second) }
                is SqlType.Scalar -> when (t.code) {
                    SqlType.Code.BYTES -> Vectors.bytes(v).toList()
                    SqlType.Code.INT64, SqlType.Code.TIMESTAMP -> v.asLong
                    SqlType.Code.FLOAT32, SqlType.Code.FLOAT64 -> float(v)
                    SqlType.Code.BOOL -> v.asBoolean
                    else -> v.asString
                }
            }
        }

        /** A value a getter returned, checked to be of the class the API documents. */
        fun canonGot(v: Any?, t: SqlType): Any? {
            if (v == null) return null
            return when (t) {
                is SqlType.Array -> (v as List<*>).map { canonGot(it, t.elementType) }
                is SqlType.Map -> (v as Map<*, *>).map { (k, x) ->
                    val key = if (k is ByteBuffer) ByteArray(k.remaining()).also { k.duplicate().get(it) } else k
                    listOf(canonGot(key, t.keyType), canonGot(x, t.valueType))
                }
                is SqlType.Struct -> t.fields.indices.map { canonGot((v as StructReader).getValue(it), t.fields[it].second) }
                is SqlType.Scalar -> when (t.code) {
                    SqlType.Code.BYTES -> (v as ByteArray).toList()
                    SqlType.Code.INT64 -> v as Long
                    SqlType.Code.FLOAT32 -> (v as Float).toDouble()
                    SqlType.Code.FLOAT64 -> v as Double
                    SqlType.Code.BOOL -> v as Boolean
                    SqlType.Code.STRING -> v as String
                    SqlType.Code.TIMESTAMP -> (v as Instant).let { Math.addExact(Math.multiplyExact(it.epochSecond, 1_000_000L), (it.nano / 1000).toLong()) }
                    SqlType.Code.DATE -> (v as LocalDate).toString()
                    else -> error("type $t")
                }
            }
        }

        /** The README's comparison: floats within a relative 1e-9 (1e-6 for FLOAT32), absolute 1e-12. */
        fun same(a: Any?, b: Any?, t: SqlType): Boolean {
            if (a == null || b == null) return a == b
            return when (t) {
                is SqlType.Array -> (a as List<*>).size == (b as List<*>).size && a.indices.all { same(a[it], b[it], t.elementType) }
                is SqlType.Map -> (a as List<*>).size == (b as List<*>).size && a.indices.all {
                    val x = a[it] as List<*>
                    val y = b[it] as List<*>
                    same(x[0], y[0], t.keyType) && same(x[1], y[1], t.valueType)
                }
                is SqlType.Struct -> (a as List<*>).indices.all { same(a[it], (b as List<*>)[it], t.fields[it].second) }
                is SqlType.Scalar -> if (t.code == SqlType.Code.FLOAT32 || t.code == SqlType.Code.FLOAT64) {
                    val x = a as Double
                    val y = b as Double
                    val rel = if (t.code == SqlType.Code.FLOAT32) 1e-6 else 1e-9
                    (x.isNaN() && y.isNaN()) || x == y || Math.abs(x - y) <= maxOf(1e-12, rel * maxOf(Math.abs(x), Math.abs(y)))
                } else {
                    a == b
                }
            }
        }
    }

    private fun statement(client: BigtableDataClient, q: JsonObject, prepared: Boolean): Statement {
        val params = q["params"]?.asJsonObject?.entrySet()?.associate { (n, p) -> n to p.asJsonObject } ?: emptyMap()
        val types = params.mapValues { sqlType(it.value["type"]) }
        val builder = if (prepared) client.prepareStatement(q["sql"].asString, types).bind() else Statement.newBuilder(q["sql"].asString)
        for ((n, p) in params) {
            val t = types.getValue(n)
            val v = paramValue(p["value"], t)
            when (t.code) {
                SqlType.Code.BYTES -> builder.setBytesParam(n, v as ByteArray?)
                SqlType.Code.STRING -> builder.setStringParam(n, v as String?)
                SqlType.Code.INT64 -> builder.setLongParam(n, v as Long?)
                SqlType.Code.FLOAT32 -> builder.setFloatParam(n, v as Float?)
                SqlType.Code.FLOAT64 -> builder.setDoubleParam(n, v as Double?)
                SqlType.Code.BOOL -> builder.setBooleanParam(n, v as Boolean?)
                SqlType.Code.TIMESTAMP -> builder.setTimestampParam(n, v as Instant?)
                SqlType.Code.DATE -> builder.setDateParam(n, v as LocalDate?)
                SqlType.Code.ARRAY -> builder.setListParam(n, v as List<Any?>?, t as SqlType.Array)
                else -> error("parameter type $t")
            }
        }
        return builder.build()
    }

    @Test
    fun replay() {
        val clock = ManualClock(vector["clock_micros"]?.asLong ?: 1_700_000_000_000_000L)
        val failures = mutableListOf<String>()
        Sparsetable.inMemory(clock).use { instance ->
            val admin = BigtableTableAdminClient.create(instance)
            val client = BigtableDataClient.create(instance)
            val tables = vector["tables"].asJsonObject
            tables.entrySet().forEach { (id, spec) -> admin.createTable(Vectors.createTableRequest(id, spec.asJsonObject)) }
            for (row in vector["rows"]?.asJsonArray ?: JsonArray()) {
                val r = row.asJsonObject
                val table = r["table"]?.asString ?: "t"
                val families = tables[table].asJsonObject["columnFamilies"]?.asJsonObject ?: JsonObject()
                client.mutateRow(table, Vectors.bytes(r["key"])) {
                    for (cell in r["cells"].asJsonArray) {
                        val (f, q, v, ts) = cell.asJsonArray.toList()
                        if (families[f.asString]?.asJsonObject?.has("valueType") == true) {
                            addToCell(f.asString, Vectors.bytes(q), ts.asLong, v.asLong)
                        } else {
                            setCell(f.asString, Vectors.bytes(q), ts.asLong, Vectors.bytes(v))
                        }
                    }
                }
            }
            vector["queries"].asJsonArray.forEachIndexed { index, element ->
                val q = element.asJsonObject
                val sql = q["sql"].asString
                val expectError = q["expect_error"]?.asString
                val rs = try {
                    client.executeQuery(statement(client, q, prepared = index % 2 == 1))
                } catch (e: ApiException) {
                    if (expectError != e.statusCode.name) failures += "$sql: ${e.statusCode} ${e.message}"
                    return@forEachIndexed
                }
                if (expectError != null) {
                    failures += "$sql: succeeded, expected $expectError"
                    return@forEachIndexed
                }
                val columns = rs.getMetadata().getColumns()
                val gotColumns = JsonArray().apply { columns.forEach { c -> add(JsonArray().apply { add(c.name()); add(vectorType(c.type())) }) } }
                q["expect_columns"]?.let {
                    if (it != gotColumns) {
                        failures += "$sql: columns $gotColumns, expected $it"
                        return@forEachIndexed
                    }
                }
                val types = columns.map { it.type() }
                val got = mutableListOf<List<Any?>>()
                while (rs.next()) got += types.indices.map { canonGot(if (rs.isNull(it)) null else rs.getValue(it), types[it]) }
                val want = q["expect_rows"].asJsonArray.map { r -> r.asJsonArray.mapIndexed { i, v -> canonExpected(v, types[i]) } }
                val rowSame = { a: List<Any?>, b: List<Any?> -> a.size == b.size && a.indices.all { same(a[it], b[it], types[it]) } }
                val ok = got.size == want.size && if (q["unordered"]?.asBoolean == true) {
                    val left = want.toMutableList()
                    got.all { g -> left.indexOfFirst { rowSame(g, it) }.let { i -> (i >= 0).also { found -> if (found) left.removeAt(i) } } }
                } else {
                    got.indices.all { rowSame(got[it], want[it]) }
                }
                if (!ok) failures += "$sql: got $got, expected $want"
            }
        }
        assertEquals(emptyList<String>(), failures)
        ran += name
    }
}
