// Replays the shared replication vectors (tests/vectors/replication/*.json, format in that
// folder's README.md) through the public Kotlin API, as a user would: the instance admin
// client creates the clusters and app profiles, one data client per app profile routes each
// call, InstanceControl moves the manual clock, takes clusters down, sets the lag and checks
// consistency tokens. The runner applies no rule itself, and every vector runs (none skipped).
package dev.sparsetable

import com.google.gson.JsonArray
import com.google.gson.JsonElement
import com.google.gson.JsonObject
import com.google.gson.JsonParser
import dev.sparsetable.admin.AppProfile
import dev.sparsetable.admin.BigtableInstanceAdminClient
import dev.sparsetable.admin.BigtableTableAdminClient
import dev.sparsetable.admin.CreateAppProfileRequest
import dev.sparsetable.admin.CreateClusterRequest
import dev.sparsetable.admin.UpdateTableRequest
import org.junit.Test
import org.junit.runner.RunWith
import org.junit.runners.Parameterized
import java.io.File
import java.time.Duration
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue
import kotlin.test.fail

/** One JUnit test per replication vector. */
@RunWith(Parameterized::class)
class ReplicationVectorsTest(private val name: String, private val vector: JsonObject) {
    companion object {
        private val dir = File(System.getProperty("sparsetable.vectors") ?: "tests/vectors", "replication")

        /** Every vector, by file name then position. */
        @JvmStatic
        @Parameterized.Parameters(name = "{0}")
        fun vectors(): List<Array<Any>> {
            val files = dir.listFiles { f -> f.name.endsWith(".json") }?.sortedBy { it.name } ?: emptyList()
            val all = files.flatMap { f -> JsonParser.parseString(f.readText()).asJsonObject["vectors"].asJsonArray.map { it.asJsonObject } }
            assertTrue(all.size >= 20, "${all.size} replication vectors found in $dir")
            return all.map { arrayOf(it["name"].asString, it) }
        }
    }

    private fun JsonObject.str(key: String): String? = get(key)?.takeUnless(JsonElement::isJsonNull)?.asString

    private fun profile(p: JsonObject): CreateAppProfileRequest {
        val request = CreateAppProfileRequest.of(p["id"].asString)
        val single = p.str("single")
        request.setRoutingPolicy(
            if (single != null) {
                AppProfile.SingleClusterRoutingPolicy.of(single, p["transactions"]?.asBoolean ?: false)
            } else {
                AppProfile.MultiClusterRoutingPolicy.of(*p["multi"].asJsonArray.map { it.asString }.toTypedArray())
            },
        )
        if (p["data_boost"]?.asBoolean == true) request.setIsolationPolicy(AppProfile.DataBoostIsolationReadOnlyPolicy)
        return request
    }

    private fun text(b: ByteArray) = String(b, Charsets.UTF_8)

    /** A change record's mutation in the vectors' change-line spelling (README). */
    private fun entryText(e: Entry): String = when (e) {
        is Entry.SetCell -> "set ${e.familyName}:${text(e.qualifier)}@${e.timestamp}=${text(e.value)}"
        is Entry.AddToCell -> "add ${e.familyName}:${text(e.qualifier)}@${e.timestamp}+${e.input}"
        is Entry.MergeToCell -> "merge ${e.familyName}:${text(e.qualifier)}"
        is Entry.DeleteCells -> "delete ${e.familyName}:${text(e.qualifier)}"
        is Entry.DeleteFamily -> "delete ${e.familyName}"
        Entry.DeleteRow -> "delete row"
    }

    @Test
    fun replay() {
        val clock = ManualClock(T0)
        Sparsetable.inMemory(clock).use { instance ->
            val tableAdmin = BigtableTableAdminClient.create(instance)
            tableAdmin.createTable("t") { addFamily("cf") }
            val instanceAdmin = BigtableInstanceAdminClient.create(instance)
            val control = InstanceControl.create(instance)
            // The vector's clusters, in order, in place of the instance's first one.
            val clusters = vector["clusters"].asJsonArray.map { it.asString }
            for (c in clusters) instanceAdmin.createCluster(CreateClusterRequest.of(c))
            if (Sparsetable.DEFAULT_CLUSTER_ID !in clusters) instanceAdmin.deleteCluster(Sparsetable.DEFAULT_CLUSTER_ID)
            assertEquals(clusters, instanceAdmin.listClusters().map { it.id })
            (vector["app_profiles"] as? JsonArray)?.forEach { instanceAdmin.createAppProfile(profile(it.asJsonObject)) }
            control.setReplicationLagMicros(vector["lag_micros"]?.asLong ?: 0)
            val clients = HashMap<String, BigtableDataClient>()
            fun client(step: JsonObject): BigtableDataClient {
                val p = step.str("profile") ?: ""
                return clients.getOrPut(p) { BigtableDataClient.create(instance, p) }
            }
            val tokens = HashMap<String, String>()
            val marks = HashMap<String, Long>()
            try {
                vector["steps"].asJsonArray.forEachIndexed { i, s ->
                    val step = s.asJsonObject
                    val op = step["op"].asString
                    val where = "$name: step $i ($op)"
                    val expectError = step.str("expect_error")
                    val got: Any? = try {
                        run(step, op, ::client, control, tableAdmin, instance, tokens, marks)
                    } catch (e: ApiException) {
                        assertEquals(expectError, e.statusCode.name, "$where: ${e.message}")
                        return@forEachIndexed
                    }
                    assertNull(expectError, "$where: succeeded, expected $expectError")
                    when (op) {
                        "read" -> assertEquals(step.str("expect_value"), got, where)
                        "check" -> assertEquals(step["expect_consistent"].asBoolean, got, where)
                        "changes" -> assertEquals(step["expect_changes"].asJsonArray.map { it.asString }, got, where)
                    }
                }
            } finally {
                clients.values.forEach { it.close() }
            }
        }
    }

    @Suppress("LongParameterList")
    private fun run(
        step: JsonObject,
        op: String,
        client: (JsonObject) -> BigtableDataClient,
        control: InstanceControl,
        tableAdmin: BigtableTableAdminClient,
        instance: Sparsetable,
        tokens: MutableMap<String, String>,
        marks: MutableMap<String, Long>,
    ): Any? {
        val row = step.str("row") ?: ""
        return when (op) {
            "write" -> client(step).mutateRow(RowMutation.create("t", row).setCell("cf", "q", step["timestamp"].asLong, step["value"].asString))
            "delete_row" -> client(step).mutateRow(RowMutation.create("t", row).deleteRow())
            "increment" -> client(step).readModifyWriteRow(ReadModifyWriteRow.create("t", row).increment("cf", "n", 1))
            "read" -> client(step).readRow("t", row)?.cells?.firstOrNull { it.family == "cf" && it.qualifierUtf8 == "q" }?.valueUtf8
            "advance" -> control.advanceMicros(step["micros"].asLong)
            "token" -> tokens.put(step["token"].asString, control.generateConsistencyToken("t"))
            "check" -> step["token"].asString.let { control.checkConsistency("t", tokens[it] ?: it) }
            "set_available" -> control.setClusterAvailable(step["cluster"].asString, step["up"].asBoolean)
            "set_lag" -> control.setReplicationLagMicros(step["micros"].asLong)
            "enable_changes" ->
                tableAdmin.updateTable(UpdateTableRequest.of("t").addChangeStreamRetention(Duration.ofNanos(step["micros"].asLong * 1000)))
            "mark" -> marks.put(step["token"].asString, instance.nowMicros)
            "changes" -> {
                val start = marks.getValue(step["token"].asString)
                val now = instance.nowMicros
                val c = client(step)
                c.generateInitialChangeStreamPartitions("t").flatMap { partition ->
                    // The end time is now, so one poll returns everything and the close.
                    c.readChangeStream(ReadChangeStreamQuery.create("t").streamPartition(partition).startTime(start).endTime(now)).use { stream ->
                        stream.poll().filterIsInstance<ChangeStreamMutation>().map { m ->
                            "${m.type} ${m.sourceClusterId.ifEmpty { "-" }} ${m.rowKeyUtf8}: ${m.entries.joinToString("; ", transform = ::entryText)}"
                        }
                    }
                }
            }
            else -> fail("unknown step op $op")
        }
    }
}
