// Replays the shared test vectors (tests/vectors/*.json, format in tests/vectors/README.md)
// through the public Kotlin API, one JUnit test per vector. A vector is eligible when all its
// capabilities, computed as the README says, are among the ones this binding exposes;
// the run fails if an eligible vector was not replayed, or if none was.
//
// Fields the README does not define yet add an `unknown:` capability, so a vector written
// for a newer format is skipped rather than half understood.
package dev.sparsetable

import com.google.gson.JsonArray
import com.google.gson.JsonElement
import com.google.gson.JsonObject
import com.google.gson.JsonParser
import dev.sparsetable.admin.BigtableTableAdminClient
import dev.sparsetable.admin.ColumnFamily
import dev.sparsetable.admin.CreateTableRequest
import dev.sparsetable.admin.GCRULES
import dev.sparsetable.admin.GCRule
import dev.sparsetable.admin.ModifyColumnFamiliesRequest
import dev.sparsetable.admin.Table
import dev.sparsetable.admin.TimestampGranularity
import dev.sparsetable.admin.UpdateTableRequest
import dev.sparsetable.admin.ValueType
import org.junit.AfterClass
import org.junit.Test
import org.junit.runner.RunWith
import org.junit.runners.Parameterized
import java.io.File
import java.util.Base64
import kotlin.test.assertTrue
import kotlin.test.fail

/** Loading, capabilities and replay of the shared vectors. */
object Vectors {
    private val FILTER_KINDS = listOf(
        "chain", "interleave", "condition", "sink", "pass_all_filter", "block_all_filter", "row_key_regex_filter",
        "row_sample_filter", "family_name_regex_filter", "column_qualifier_regex_filter", "column_range_filter",
        "timestamp_range_filter", "value_regex_filter", "value_range_filter", "cells_per_row_offset_filter",
        "cells_per_row_limit_filter", "cells_per_column_limit_filter", "strip_value_transformer",
        "apply_label_transformer", "value_bitmask_filter",
    )

    /** What this binding exposes, in the README's capability names. */
    val SUPPORTED: Set<String> = setOf(
        "op:create_table", "op:mutate_row", "op:mutate_rows", "op:check_and_mutate_row", "op:read_modify_write_row",
        "op:read_row", "op:read_rows", "op:sample_row_keys", "op:drop_row_range", "op:modify_column_families",
        "op:get_table", "op:list_tables", "op:delete_table", "op:update_table", "op:advance_clock",
        "op:collect_garbage", "gc_mode:background",
        "mutation:set_cell", "mutation:add_to_cell", "mutation:merge_to_cell", "mutation:delete_from_column",
        "mutation:delete_from_family", "mutation:delete_from_row",
        "read:row_set", "read:rows_limit", "read:reversed",
        "schema:gc_rule", "schema:value_type", "schema:granularity", "schema:deletion_protection", "schema:initial_splits",
        "error", "clock",
    ) + FILTER_KINDS.map { "filter:$it" }

    private const val DEFAULT_CLOCK_MICROS = 1_700_000_000_000_000L

    private val dir: File = File(System.getProperty("sparsetable.vectors") ?: "tests/vectors")

    /** Every vector, by file name then position. */
    val all: List<JsonObject> by lazy {
        val files = dir.listFiles { f -> f.name.endsWith(".json") }?.sortedBy { it.name }
            ?: error("no vector folder at ${dir.absolutePath} (set -Dsparsetable.vectors)")
        files.flatMap { f ->
            JsonParser.parseString(f.readText()).asJsonObject["vectors"].asJsonArray.map { it.asJsonObject }
        }
    }

    val eligible: List<JsonObject> by lazy { all.filter { SUPPORTED.containsAll(capabilities(it)) } }

    /** Names of the vectors whose replay started. */
    val attempted: MutableSet<String> = java.util.Collections.synchronizedSet(mutableSetOf())

    /** Names of the vectors that replayed without a mismatch. */
    val passed: MutableSet<String> = java.util.Collections.synchronizedSet(mutableSetOf())

    /** Fields of the ops this runner replays; others make an `unknown:` capability. */
    private val OP_FIELDS = mapOf(
        "create_table" to setOf("spec"),
        "mutate_row" to setOf("row_key", "mutations", "mutations_repeat", "value_size"),
        "read_row" to setOf("row_key", "filter", "expect_row"),
        "read_rows" to setOf("row_set", "filter", "rows_limit", "reversed", "expect_rows"),
        "modify_column_families" to setOf("modifications"),
        "get_table" to setOf("expect_families", "expect_deletion_protection"),
        "list_tables" to setOf("expect_tables"),
        "delete_table" to emptySet(),
        "advance_clock" to setOf("micros"),
        "collect_garbage" to setOf("table", "expect_error"),
        "mutate_rows" to setOf("entries", "mutations_repeat", "expect_statuses"),
        "check_and_mutate_row" to setOf("row_key", "predicate_filter", "true_mutations", "false_mutations", "expect_matched"),
        "read_modify_write_row" to setOf("row_key", "rules", "expect_row"),
        "sample_row_keys" to setOf("expect_keys"),
        "drop_row_range" to setOf("row_key_prefix", "delete_all_data_from_table"),
        "update_table" to setOf("deletion_protection"),
    )

    /** Fields of each mutation kind (proto3 JSON names of google.bigtable.v2.Mutation). */
    private val MUTATION_FIELDS = mapOf(
        "setCell" to setOf("familyName", "columnQualifier", "timestampMicros", "value"),
        "deleteFromColumn" to setOf("familyName", "columnQualifier", "timeRange"),
        "deleteFromFamily" to setOf("familyName"),
        "deleteFromRow" to emptySet(),
        "addToCell" to setOf("familyName", "columnQualifier", "timestamp", "input"),
        "mergeToCell" to setOf("familyName", "columnQualifier", "timestamp", "input"),
    )

    /** The vector's capabilities (tests/vectors/README.md, "Capabilities"). */
    fun capabilities(v: JsonObject): Set<String> {
        val caps = sortedSetOf<String>()
        unknownFields(v, "vector", setOf("name", "description", "clock_micros", "gc_mode", "tables", "ops"), caps)
        if (v.has("clock_micros")) caps += "clock"
        if (v["gc_mode"]?.asString == "background") caps += "gc_mode:background"
        val tables = v.obj("tables")
        if (tables != null && tables.size() > 0) caps += "op:create_table"
        tables?.entrySet()?.forEach { (_, spec) -> tableCaps(spec.asJsonObject, caps) }
        for (opElement in v["ops"].asJsonArray) {
            val op = opElement.asJsonObject
            val name = op["op"].asString
            caps += "op:$name"
            if (op.has("expect_error")) caps += "error"
            op["expect_statuses"]?.asJsonArray?.let { statuses -> if (statuses.any { it.asString != "OK" }) caps += "error" }
            listOf("mutations", "true_mutations", "false_mutations").forEach { key ->
                op[key]?.asJsonArray?.let { mutationCaps(it.map { m -> m.asJsonObject }, caps) }
            }
            op["entries"]?.asJsonArray?.forEach { e -> mutationCaps(e.asJsonObject["mutations"].asJsonArray.map { it.asJsonObject }, caps) }
            if (name in setOf("read_row", "read_rows")) op.obj("filter")?.let { filterCaps(it, caps) }
            if (name == "check_and_mutate_row") op.obj("predicate_filter")?.let { filterCaps(it, caps) }
            when (name) {
                "create_table" -> tableCaps(op["spec"].asJsonObject, caps)
                "read_modify_write_row", "advance_clock" -> caps += "clock"
                "read_rows" -> {
                    if (op.has("row_set")) caps += "read:row_set"
                    if (op.has("rows_limit")) caps += "read:rows_limit"
                    if (op.has("reversed")) caps += "read:reversed"
                }
                "modify_column_families" -> op["modifications"].asJsonArray.forEach { m ->
                    val mod = m.asJsonObject
                    unknownFields(mod, "modification", setOf("id", "create", "update", "drop"), caps)
                    listOf("create", "update").forEach { k -> mod.obj(k)?.let { familyCaps(it, caps) } }
                }
            }
            OP_FIELDS[name]?.let { unknownFields(op, "op.$name", it + setOf("op", "table", "expect_error", "expect_message"), caps) }
        }
        return caps
    }

    private fun mutationCaps(mutations: List<JsonObject>, caps: MutableSet<String>) {
        for (m in mutations) {
            val (kind, body) = m.entrySet().single()
            caps += "mutation:${snake(kind)}"
            if (kind == "setCell" && i64(body.asJsonObject["timestampMicros"]) == -1L) caps += "clock"
            MUTATION_FIELDS[kind]?.let { unknownFields(body.asJsonObject, "mutation.$kind", it, caps) }
        }
    }

    private fun filterCaps(filter: JsonObject, caps: MutableSet<String>) {
        // A RowFilter with no kind: Google's Java Filters API cannot build one, so such
        // vectors are not this runner's (filter:empty is not in SUPPORTED).
        if (filter.entrySet().isEmpty()) {
            caps += "filter:empty"
            return
        }
        val (kind, body) = filter.entrySet().single()
        caps += "filter:${snake(kind)}"
        when (kind) {
            "chain", "interleave" -> body.asJsonObject["filters"]?.asJsonArray?.forEach { filterCaps(it.asJsonObject, caps) }
            "condition" -> listOf("predicateFilter", "trueFilter", "falseFilter").forEach { k ->
                body.asJsonObject.obj(k)?.let { filterCaps(it, caps) }
            }
        }
    }

    private fun tableCaps(spec: JsonObject, caps: MutableSet<String>) {
        unknownFields(spec, "table", setOf("columnFamilies", "granularity", "deletionProtection", "initialSplits"), caps)
        spec.obj("columnFamilies")?.entrySet()?.forEach { (_, f) -> familyCaps(f.asJsonObject, caps) }
        if (spec.has("granularity")) caps += "schema:granularity"
        if (spec.has("deletionProtection")) caps += "schema:deletion_protection"
        if (spec.has("initialSplits")) caps += "schema:initial_splits"
    }

    private fun familyCaps(family: JsonObject, caps: MutableSet<String>) {
        unknownFields(family, "family", setOf("gcRule", "valueType"), caps)
        family.obj("gcRule")?.let {
            caps += "schema:gc_rule"
            if (hasMaxAge(it, caps)) caps += "clock"
        }
        if (family.has("valueType")) caps += "schema:value_type"
    }

    private fun hasMaxAge(rule: JsonObject, caps: MutableSet<String>): Boolean {
        val (kind, body) = rule.entrySet().singleOrNull() ?: return false
        return when (kind) {
            "maxAge" -> true
            "maxNumVersions" -> false
            "intersection", "union" -> rules(body).map { hasMaxAge(it, caps) }.any { it }
            else -> false.also { caps += "unknown:gc_rule.$kind" }
        }
    }

    private fun unknownFields(o: JsonObject, where: String, known: Set<String>, caps: MutableSet<String>) {
        for (key in o.keySet()) if (key !in known) caps += "unknown:$where.$key"
    }

    private fun JsonObject.obj(key: String): JsonObject? = get(key)?.takeUnless { it.isJsonNull }?.asJsonObject

    /** setCell -> set_cell: capability names keep the proto's own field names. */
    private fun snake(name: String): String = name.replace(Regex("[A-Z]")) { "_" + it.value.lowercase() }

    /** A proto3 JSON bytes field (standard base64); absent means empty. */
    private fun b64(e: JsonElement?): ByteArray =
        if (e == null || e.isJsonNull) ByteArray(0) else Base64.getDecoder().decode(e.asString)

    /** A proto3 JSON int64: a decimal string or a number; absent means 0. */
    private fun i64(e: JsonElement?): Long = if (e == null || e.isJsonNull) 0L else e.asString.toLong()

    /** A proto3 JSON Duration such as "3.5s", in microseconds. */
    private fun durationMicros(text: String): Long {
        val body = text.removeSuffix("s")
        val negative = body.startsWith("-")
        val parts = body.removePrefix("-").split(".")
        val micros = parts[0].toLong() * 1_000_000 + (parts.getOrElse(1) { "" } + "000000").take(6).toLong()
        return if (negative) -micros else micros
    }

    private fun rules(body: JsonElement): List<JsonObject> =
        body.asJsonObject["rules"]?.asJsonArray?.map { it.asJsonObject } ?: emptyList()

    internal fun bytes(e: JsonElement): ByteArray = when {
        e.isJsonPrimitive -> e.asString.toByteArray(Charsets.UTF_8)
        e.asJsonObject.has("int64") -> java.nio.ByteBuffer.allocate(8).putLong(e.asJsonObject["int64"].asLong).array()
        else -> Base64.getDecoder().decode(e.asJsonObject["base64"].asString)
    }

    private fun gcRule(o: JsonObject): GCRule {
        val (kind, body) = o.entrySet().single()
        return when (kind) {
            "maxNumVersions" -> GCRULES.maxVersions(i64(body))
            "maxAge" -> GCRULES.maxAgeMicros(durationMicros(body.asString))
            "intersection" -> GCRule.IntersectionRule(rules(body).map { gcRule(it) })
            "union" -> GCRule.UnionRule(rules(body).map { gcRule(it) })
            else -> error("unknown gc rule $kind")
        }
    }

    /** A vector's FAMILY as the admin API reports a family (no rule = the default rule). */
    private fun family(id: String, f: JsonObject) = ColumnFamily(
        id,
        f.obj("gcRule")?.let(::gcRule) ?: GCRULES.defaultRule(),
        f.obj("valueType")?.let(::valueType) ?: ValueType.BYTES,
    )

    /** An admin Type: bytesType, an int64 aggregate (Sum, Min, Max) or HyperLogLog++, as the API names them. */
    private fun valueType(t: JsonObject): ValueType {
        if (t.has("bytesType")) return ValueType.BYTES
        val aggregate = t.obj("aggregateType") ?: error("unsupported value type $t")
        return when {
            aggregate.has("sum") -> ValueType.INT64_SUM
            aggregate.has("min") -> ValueType.INT64_MIN
            aggregate.has("max") -> ValueType.INT64_MAX
            aggregate.has("hllppUniqueCount") -> ValueType.HLLPP_UNIQUE_COUNT
            else -> error("unsupported aggregate $aggregate")
        }
    }

    internal fun createTableRequest(id: String, spec: JsonObject): CreateTableRequest {
        val request = CreateTableRequest.of(id)
        spec.obj("columnFamilies")?.entrySet()?.forEach { (name, f) ->
            val fam = family(name, f.asJsonObject)
            request.addFamily(name, fam.gcRule, fam.valueType)
        }
        spec["granularity"]?.let { request.setTimestampGranularity(TimestampGranularity.valueOf(it.asString)) }
        spec["deletionProtection"]?.let { request.setDeletionProtection(it.asBoolean) }
        spec["initialSplits"]?.asJsonArray?.forEach { request.addSplit(b64(it.asJsonObject["key"])) }
        return request
    }

    private fun modifications(table: String, op: JsonObject): ModifyColumnFamiliesRequest {
        val request = ModifyColumnFamiliesRequest.of(table)
        for (element in op["modifications"].asJsonArray) {
            val m = element.asJsonObject
            val id = m["id"].asString
            when {
                m.has("create") -> family(id, m["create"].asJsonObject).let { request.addFamily(id, it.gcRule, it.valueType) }
                m.has("update") -> family(id, m["update"].asJsonObject).let { request.updateFamily(id, it.gcRule, it.valueType) }
                m.has("drop") -> request.dropFamily(id)
                else -> error("modification of $id names no change")
            }
        }
        return request
    }

    /** A proto3 JSON Row (families, columns, cells) as the API's flat list of cells. */
    private fun row(o: JsonObject): Row = Row(
        b64(o["key"]),
        (o["families"]?.asJsonArray ?: JsonArray()).flatMap { f ->
            val family = f.asJsonObject
            (family["columns"]?.asJsonArray ?: JsonArray()).flatMap { c ->
                val column = c.asJsonObject
                (column["cells"]?.asJsonArray ?: JsonArray()).map { e ->
                    val cell = e.asJsonObject
                    RowCell(
                        family["name"]?.asString ?: "",
                        b64(column["qualifier"]),
                        i64(cell["timestampMicros"]),
                        b64(cell["value"]),
                        cell["labels"]?.asJsonArray?.map { it.asString } ?: emptyList(),
                    )
                }
            }
        },
    )

    /**
     * Adds a vector's MUTATIONs to `m` through the public builder; `repeat` and `valueSize` are
     * a mutate_row op's generated values (README, "Generated values"): the list is added
     * `repeat` times over, and every SetCell's value is `valueSize` bytes of `v`.
     */
    private fun <T : MutationBuilder<T>> addMutations(m: T, mutations: JsonElement?, repeat: Int = 1, valueSize: Int? = null): T {
        val generated = valueSize?.let { n -> ByteArray(n) { 'v'.code.toByte() } }
        for (element in List(repeat) { mutations?.asJsonArray ?: JsonArray() }.flatten()) {
            val (kind, bodyElement) = element.asJsonObject.entrySet().single()
            val body = bodyElement.asJsonObject
            val family = body["familyName"]?.asString ?: ""
            // AddToCell and MergeToCell carry google.bigtable.v2.Value messages.
            fun value(key: String): JsonObject = body.obj(key) ?: JsonObject()
            when (kind) {
                "setCell" -> m.setCell(family, b64(body["columnQualifier"]), i64(body["timestampMicros"]), generated ?: b64(body["value"]))
                "addToCell" -> m.addToCell(
                    family,
                    b64(value("columnQualifier")["rawValue"]),
                    i64(value("timestamp")["rawTimestampMicros"]),
                    i64(value("input")["intValue"]),
                )
                "mergeToCell" -> m.mergeToCell(
                    family,
                    b64(value("columnQualifier")["rawValue"]),
                    i64(value("timestamp")["rawTimestampMicros"]),
                    b64(value("input")["rawValue"]),
                )
                "deleteFromColumn" -> {
                    val range = body.obj("timeRange") ?: JsonObject()
                    m.deleteCells(
                        family,
                        b64(body["columnQualifier"]),
                        i64(range["startTimestampMicros"]),
                        // Passed as the vector has it: the engine reads an end of 0 as unbounded.
                        i64(range["endTimestampMicros"]),
                    )
                }
                "deleteFromFamily" -> m.deleteFamily(family)
                "deleteFromRow" -> m.deleteRow()
                else -> error("unknown mutation $kind")
            }
        }
        return m
    }

    private fun mutation(mutations: JsonElement?) = addMutations(Mutation.create(), mutations)

    /**
     * A vector's FILTER through the public Filters API. A boolean filter given `false` cannot
     * be expressed there (nor in Google's clients); Cloud Bigtable answers INVALID_ARGUMENT,
     * so the runner does too, as the Rust runner does.
     */
    private fun filter(o: JsonObject): Filter {
        // A RowFilter with no kind set cannot be built with Filters either; Cloud Bigtable
        // answers INVALID_ARGUMENT, so the runner does too.
        check(o.entrySet().isNotEmpty()) { "a vector with an empty filter is not eligible (filter:empty)" }
        val (kind, body) = o.entrySet().single()
        fun flag(f: Filter): Filter =
            if (body.asBoolean) f else throw InvalidArgumentException("INVALID_ARGUMENT: $kind must be true when set")
        fun range(r: ByteRangeFilter, what: String): ByteRangeFilter {
            val b = body.asJsonObject
            b["start${what}Closed"]?.let { r.startClosed(b64(it)) }
            b["start${what}Open"]?.let { r.startOpen(b64(it)) }
            b["end${what}Closed"]?.let { r.endClosed(b64(it)) }
            b["end${what}Open"]?.let { r.endOpen(b64(it)) }
            return r
        }
        fun members(): List<JsonObject> = body.asJsonObject["filters"]?.asJsonArray?.map { it.asJsonObject } ?: emptyList()
        return when (snake(kind)) {
            "chain" -> FILTERS.chain().also { c -> members().forEach { c.filter(filter(it)) } }
            "interleave" -> FILTERS.interleave().also { c -> members().forEach { c.filter(filter(it)) } }
            "condition" -> body.asJsonObject.let { b ->
                FILTERS.condition(filter(b["predicateFilter"].asJsonObject)).also { c ->
                    b.obj("trueFilter")?.let { c.then(filter(it)) }
                    b.obj("falseFilter")?.let { c.otherwise(filter(it)) }
                }
            }
            "sink" -> flag(FILTERS.sink())
            "pass_all_filter" -> flag(FILTERS.pass())
            "block_all_filter" -> flag(FILTERS.block())
            "strip_value_transformer" -> flag(FILTERS.value().strip())
            "row_key_regex_filter" -> FILTERS.key().regex(b64(body))
            "row_sample_filter" -> FILTERS.key().sample(body.asDouble)
            "family_name_regex_filter" -> FILTERS.family().regex(body.asString)
            "column_qualifier_regex_filter" -> FILTERS.qualifier().regex(b64(body))
            "column_range_filter" ->
                range(FILTERS.qualifier().rangeWithinFamily(body.asJsonObject["familyName"]?.asString ?: ""), "Qualifier")
            "timestamp_range_filter" -> FILTERS.timestamp().range().also { r ->
                body.asJsonObject["startTimestampMicros"]?.let { r.startClosed(i64(it)) }
                body.asJsonObject["endTimestampMicros"]?.let { r.endOpen(i64(it)) }
            }
            "value_regex_filter" -> FILTERS.value().regex(b64(body))
            "value_range_filter" -> range(FILTERS.value().range(), "Value")
            "cells_per_row_offset_filter" -> FILTERS.offset().cellsPerRow(body.asInt)
            "cells_per_row_limit_filter" -> FILTERS.limit().cellsPerRow(body.asInt)
            "cells_per_column_limit_filter" -> FILTERS.limit().cellsPerColumn(body.asInt)
            "apply_label_transformer" -> FILTERS.label(body.asString)
            "value_bitmask_filter" -> FILTERS.value().bitmask(b64(body))
            else -> error("unknown filter $kind")
        }
    }

    private fun query(table: String, op: JsonObject): Query {
        val q = Query.create(table)
        op.obj("row_set")?.let { set ->
            set["rowKeys"]?.asJsonArray?.forEach { q.rowKey(b64(it)) }
            set["rowRanges"]?.asJsonArray?.forEach { r ->
                val range = r.asJsonObject
                val b = ByteStringRange.unbounded()
                range["startKeyClosed"]?.let { b.startClosed(b64(it)) }
                range["startKeyOpen"]?.let { b.startOpen(b64(it)) }
                range["endKeyClosed"]?.let { b.endClosed(b64(it)) }
                range["endKeyOpen"]?.let { b.endOpen(b64(it)) }
                q.range(b)
            }
        }
        op.obj("filter")?.let { q.filter(filter(it)) }
        op["rows_limit"]?.let { q.limit(it.asLong) }
        op["reversed"]?.let { q.reversed(it.asBoolean) }
        return q
    }

    /** Per-entry statuses of a bulk mutation, "OK" or the failure's code, as vectors write them. */
    private fun bulkStatuses(client: BigtableDataClient, table: String, op: JsonObject): List<String> {
        val bulk = BulkMutation.create(table)
        // Generated values (README): every entry's mutations sent `mutations_repeat` times over.
        val repeat = op["mutations_repeat"]?.asInt ?: 1
        op["entries"].asJsonArray.forEach { e ->
            val entry = e.asJsonObject
            bulk.add(b64(entry["rowKey"]), addMutations(Mutation.create(), entry["mutations"], repeat = repeat))
        }
        val failed = try {
            client.bulkMutateRows(bulk)
            emptyMap()
        } catch (e: MutateRowsException) {
            e.failedMutations.associate { it.index to it.error.statusCode.name }
        }
        return (0 until bulk.size).map { failed[it] ?: "OK" }
    }

    /** Replays [v] on a fresh instance; fails with the first op whose outcome differs. */
    fun replay(v: JsonObject) {
        val clock = ManualClock(v["clock_micros"]?.asLong ?: DEFAULT_CLOCK_MICROS)
        // A vector without gc_mode holds in both GC modes; it runs in the default one.
        val gcMode = if (v["gc_mode"]?.asString == "background") GcMode.BACKGROUND else GcMode.IMMEDIATE
        Sparsetable.inMemory(clock, gcMode).use { instance ->
            val admin = BigtableTableAdminClient.create(instance)
            val client = BigtableDataClient.create(instance)
            v.obj("tables")?.entrySet()?.forEach { (id, spec) -> admin.createTable(createTableRequest(id, spec.asJsonObject)) }
            v["ops"].asJsonArray.forEachIndexed { i, element ->
                val op = element.asJsonObject
                val name = op["op"].asString
                val table = op["table"]?.asString ?: "t"
                val expectError = op["expect_error"]?.asString
                val outcome: Result<Any?> = runCatching {
                    when (name) {
                        "create_table" -> admin.createTable(createTableRequest(table, op["spec"].asJsonObject)).let { null }
                        "mutate_row" -> client.mutateRow(
                            addMutations(
                                RowMutation.create(table, bytes(op["row_key"])),
                                op["mutations"],
                                repeat = op["mutations_repeat"]?.asInt ?: 1,
                                valueSize = op["value_size"]?.asInt,
                            ),
                        ).let { null }
                        "mutate_rows" -> bulkStatuses(client, table, op)
                        "check_and_mutate_row" -> client.checkAndMutateRow(
                            ConditionalRowMutation.create(table, bytes(op["row_key"])).also { c ->
                                op.obj("predicate_filter")?.let { c.condition(filter(it)) }
                                c.then(mutation(op["true_mutations"]))
                                c.otherwise(mutation(op["false_mutations"]))
                            },
                        )
                        "read_modify_write_row" -> client.readModifyWriteRow(
                            ReadModifyWriteRow.create(table, bytes(op["row_key"])).also { r ->
                                op["rules"].asJsonArray.forEach { e ->
                                    val rule = e.asJsonObject
                                    val family = rule["familyName"]?.asString ?: ""
                                    val qualifier = b64(rule["columnQualifier"])
                                    when {
                                        rule.has("appendValue") -> r.append(family, qualifier, b64(rule["appendValue"]))
                                        rule.has("incrementAmount") -> r.increment(family, qualifier, i64(rule["incrementAmount"]))
                                        else -> error("op $i: a rule needs appendValue or incrementAmount")
                                    }
                                }
                            },
                        )
                        "read_row" -> client.readRow(table, bytes(op["row_key"]), op.obj("filter")?.let(::filter))
                        "read_rows" -> client.readRowsList(query(table, op))
                        "sample_row_keys" -> client.sampleRowKeys(table)
                        "drop_row_range" -> when {
                            op.has("row_key_prefix") -> admin.dropRowRange(table, bytes(op["row_key_prefix"]))
                            op["delete_all_data_from_table"]?.asBoolean == true -> admin.dropAllRows(table)
                            else -> error("op $i: drop_row_range needs a prefix or delete_all")
                        }.let { null }
                        "modify_column_families" -> admin.modifyFamilies(modifications(table, op)).let { null }
                        "get_table" -> admin.getTable(table)
                        "list_tables" -> admin.listTables()
                        "delete_table" -> admin.deleteTable(table).let { null }
                        "update_table" -> admin.updateTable(
                            UpdateTableRequest.of(table).setDeletionProtection(op["deletion_protection"].asBoolean),
                        ).let { null }
                        "advance_clock" -> clock.advanceMicros(op["micros"].asLong).let { null }
                        "collect_garbage" -> instance.collectGarbage(table).let { null }
                        else -> error("unknown op $name")
                    }
                }
                val failure = outcome.exceptionOrNull()
                if (failure != null && failure !is ApiException) throw failure
                val code = failure?.statusCode?.name
                val got = outcome.getOrNull()
                val expectMessage = op["expect_message"]?.asString
                when {
                    expectError != null && code == expectError && expectMessage != null -> {
                        // The exception's message is "CODE: " and the engine's words.
                        val said = failure?.message?.removePrefix("$code: ")
                        if (said == failure?.message || said == null || !says(said, expectMessage)) {
                            fail("op $i: expected the core's message \"$expectMessage\" after \"$code: \", got \"${failure?.message}\"")
                        }
                    }
                    expectError != null && code == expectError -> {}
                    expectError != null -> fail("op $i: expected error $expectError, got ${code ?: "success $got"} (${failure?.message})")
                    failure != null -> fail("op $i: unexpected error ${failure.message}")
                    else -> checkResult(i, name, op, got)
                }
            }
            // Every bad input of the vector was refused with its code; the same instance must
            // still take writes and reads (nothing crashed, nothing is wedged).
            if (v["ops"].asJsonArray.any { it.asJsonObject.has("expect_error") }) {
                admin.createTable("after-bad-input") { addFamily("cf") }
                client.mutateRow(RowMutation.create("after-bad-input", "r").setCell("cf", "q", 1_000, "ok"))
                if (client.readRow("after-bad-input", "r")?.cells?.map { it.valueUtf8 } != listOf("ok")) {
                    fail("the instance does not work after the vector's bad inputs")
                }
            }
        }
    }

    /**
     * Whether [message] says the rule's words [expected]: exactly, or after where in the request
     * the error is (a context ending in ": "), as the core runner's `says` (tests/src/lib.rs).
     */
    fun says(message: String, expected: String): Boolean =
        message == expected || (message.endsWith(expected) && message.removeSuffix(expected).endsWith(": "))

    private fun checkResult(i: Int, name: String, op: JsonObject, got: Any?) {
        fun expect(want: Any?, what: String) {
            if (want != got) fail("op $i: expected $what $want\n got $got")
        }
        when (name) {
            "read_row" -> expect(op.obj("expect_row")?.let(::row), "row")
            "read_rows" -> expect(
                op["expect_rows"]?.asJsonArray?.map { row(it.asJsonObject) } ?: fail("op $i: read_rows needs expect_rows or expect_error"),
                "rows",
            )
            "read_modify_write_row" -> op.obj("expect_row")?.let { expect(row(it), "row") }
            "mutate_rows" -> op["expect_statuses"]?.let { s -> expect(s.asJsonArray.map { it.asString }, "statuses") }
            "check_and_mutate_row" -> op["expect_matched"]?.let { expect(it.asBoolean, "matched") }
            "list_tables" -> op["expect_tables"]?.let { t -> expect(t.asJsonArray.map { it.asString }, "tables") }
            "sample_row_keys" -> {
                @Suppress("UNCHECKED_CAST")
                val samples = got as List<KeyOffset>
                op["expect_keys"]?.let { keys ->
                    val want = keys.asJsonArray.map { bytes(it).toList() }
                    val have = samples.map { it.key.toList() }
                    if (want != have) fail("op $i: expected sample keys $want\n got $have")
                }
                if (samples.zipWithNext().any { (a, b) -> b.offsetBytes < a.offsetBytes }) fail("op $i: sample offsets decrease: $samples")
            }
            "get_table" -> {
                val table = got as Table
                op.obj("expect_families")?.let { families ->
                    val want = families.entrySet().map { (id, f) -> family(id, f.asJsonObject) } // creation order
                    if (want != table.columnFamilies) fail("op $i: expected families $want\n got ${table.columnFamilies}")
                }
                op["expect_deletion_protection"]?.let {
                    if (it.asBoolean != table.isDeletionProtected) fail("op $i: expected deletion_protection ${it.asBoolean}")
                }
            }
        }
    }
}

/** One test per eligible vector. */
@RunWith(Parameterized::class)
class VectorTest(private val name: String, private val vector: JsonObject) {
    @Test
    fun replays() {
        Vectors.attempted += name
        Vectors.replay(vector)
        Vectors.passed += name
    }

    companion object {
        @JvmStatic
        @Parameterized.Parameters(name = "{0}")
        fun vectors(): List<Array<Any>> = Vectors.eligible.map { arrayOf(it["name"].asString, it) }

        /** Fails the run if an eligible vector did not replay to the end. */
        @JvmStatic
        @AfterClass
        fun everyEligibleVectorRan() {
            val skipped = Vectors.all.filter { it !in Vectors.eligible }
            println(
                "kotlin vectors: ${Vectors.attempted.size} ran (${Vectors.passed.size} passed), " +
                    "${skipped.size} skipped as not eligible",
            )
            for (v in skipped) {
                println("  skipped ${v["name"].asString}: needs ${Vectors.capabilities(v) - Vectors.SUPPORTED}")
            }
            val notRun = Vectors.eligible.map { it["name"].asString } - Vectors.attempted
            if (notRun.isNotEmpty()) throw AssertionError("eligible vectors were skipped: $notRun")
        }
    }
}

/** The replay must have run something, and every eligible vector. */
class VectorCoverageTest {
    @Test
    fun atLeastOneVectorIsEligible() {
        assertTrue(Vectors.eligible.isNotEmpty(), "no eligible vector among ${Vectors.all.size}")
    }

    /** The vectors pinning the core's words for a rule (tests/vectors/090_rule_messages.json). */
    private val messageVectors = Vectors.all.filter { v -> v["ops"].asJsonArray.any { it.asJsonObject.has("expect_message") } }

    /** The calls this binding does not have, so their rule-message vectors cannot run here. */
    private val absentCalls = setOf("op:create_instance")

    @Test
    fun everyRuleMessageVectorRunsHere() {
        assertTrue(messageVectors.size >= 19, "only ${messageVectors.size} rule-message vectors")
        // A vector may be skipped only for a call the binding lacks (README, "Messages"):
        // Kotlin's Instance Admin has no CreateInstance (an instance is opened, not created).
        val notEligible = messageVectors
            .filter { it !in Vectors.eligible && !(Vectors.capabilities(it) - Vectors.SUPPORTED).all { c -> c in absentCalls } }
            .map { it["name"].asString }
        kotlin.test.assertEquals(emptyList(), notEligible)
        assertTrue(messageVectors.count { it in Vectors.eligible } >= 14, "too few rule-message vectors ran")
    }

    @Test
    fun aDriftedRuleMessageFails() {
        // Each vector with one word of its pinned message changed must fail: the runner compares
        // the words, not only the code.
        for (v in messageVectors.filter { it in Vectors.eligible }) {
            val broken = v.deepCopy()
            val op = broken["ops"].asJsonArray.map { it.asJsonObject }.first { it.has("expect_message") }
            op.addProperty("expect_message", op["expect_message"].asString.replaceFirst(" ", " really "))
            val e = kotlin.test.assertFailsWith<AssertionError>(v["name"].asString) { Vectors.replay(broken) }
            assertTrue(e.message!!.contains("core's message"), e.message)
        }
    }

    @Test
    fun saysAllowsOnlyAContextBeforeTheWords() {
        assertTrue(Vectors.says("row_key must be non-empty", "row_key must be non-empty"))
        assertTrue(Vectors.says("mutations[0]: row_key must be non-empty", "row_key must be non-empty"))
        kotlin.test.assertFalse(Vectors.says("the row_key must be non-empty", "row_key must be non-empty"))
    }

    @Test
    fun capabilitiesFollowTheReadme() {
        val v = JsonParser.parseString(
            """{"name": "x", "tables": {"t": {"columnFamilies": {"cf": {"gcRule": {"union": {"rules": [{"maxNumVersions": 1}]}}}}, "granularity": "MICROS"}},
               "ops": [{"op": "mutate_row", "row_key": "r", "mutations": [{"deleteFromRow": {}}], "expect_error": "NOT_FOUND"},
                       {"op": "read_rows", "rows_limit": 1, "filter": {"chain": {"filters": [{"passAllFilter": true}]}}, "colour": 1},
                       {"op": "check_and_mutate_row", "row_key": "r", "true_mutations": [{"setCell": {"familyName": "cf", "columnQualifier": "cQ==", "timestampMicros": "-1", "value": "dg=="}}]},
                       {"op": "modify_column_families", "modifications": [{"id": "agg", "create": {"valueType": {"aggregateType": {"inputType": {"int64Type": {}}, "sum": {}}}}}]}]}""",
        ).asJsonObject
        kotlin.test.assertEquals(
            sortedSetOf(
                "op:create_table", "schema:gc_rule", "schema:granularity", "op:mutate_row", "mutation:delete_from_row",
                "error", "op:read_rows", "read:rows_limit", "filter:chain", "filter:pass_all_filter", "op:check_and_mutate_row",
                "mutation:set_cell", "clock", "schema:value_type", "unknown:op.read_rows.colour", "op:modify_column_families",
            ),
            Vectors.capabilities(v),
        )
    }
}
