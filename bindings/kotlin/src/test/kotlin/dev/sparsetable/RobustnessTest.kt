// Deep and exponential nesting of filters and GC rules (issue 12): refused with
// InvalidArgumentException and the engine's message before anything crosses the FFI (a filter
// about 500 levels deep used to overflow the native stack in uniffi's reader and kill the JVM
// with SIGSEGV), after which the same client still writes and reads.
package dev.sparsetable

import dev.sparsetable.admin.GCRULES
import dev.sparsetable.admin.GCRule
import org.junit.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

class RobustnessTest {
    // The core's limits and words (limits::FILTER_TREE, GC_RULE_TREE), not copies of them.
    private val limits = dev.sparsetable.ffi.treeLimits()
    private val filterDepth = limits.maxFilterDepth.toInt()
    private val gcDepth = limits.maxGcRuleDepth.toInt()

    private fun nestedFilter(levels: Int): Filter {
        var f: Filter = FILTERS.pass()
        repeat(levels - 1) { f = FILTERS.chain().filter(f).filter(FILTERS.pass()) }
        return f
    }

    private fun nestedRule(levels: Int): GCRule {
        var r: GCRule = GCRULES.maxVersions(1)
        repeat(levels - 1) { r = GCRule.UnionRule(listOf(r)) }
        return r
    }

    private fun assertStillWorks(client: BigtableDataClient) {
        client.mutateRow(RowMutation.create("t", "after").setCell("cf", "q", 1_000, "v"))
        assertEquals(listOf("v"), client.readRow("t", "after")!!.values())
    }

    @Test
    fun filtersNestedPastTheLimitAreRefusedBeforeCrossingTheFfi() = withTable { client, _, _ ->
        client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", 1_000, "v"))
        assertEquals(listOf("v"), client.readRow("t", "r", nestedFilter(filterDepth))!!.values())
        for (levels in listOf(filterDepth + 1, 500, 1_100, 100_000)) {
            val deep = nestedFilter(levels)
            val e = assertFailsWith<InvalidArgumentException>("$levels levels") { client.readRow("t", "r", deep) }
            // The core's words, exactly (limits::FILTER_TREE), whichever side counted.
            assertEquals("INVALID_ARGUMENT: ${limits.filterTooDeep}", e.message)
            assertFailsWith<InvalidArgumentException> { client.readRows("t") { filter(deep) } }
            assertFailsWith<InvalidArgumentException> {
                client.checkAndMutateRow(ConditionalRowMutation.create("t", "r").condition(deep).then(Mutation.create().deleteRow()))
            }
        }
        assertStillWorks(client)
    }

    @Test
    fun filterGraphsThatExpandWithoutBoundAreRefused() = withTable { client, _, _ ->
        val loop = FILTERS.chain().filter(FILTERS.pass())
        loop.filter(loop)
        assertFailsWith<InvalidArgumentException> { client.readRow("t", "r", loop) }
        var shared: Filter = FILTERS.pass()
        repeat(filterDepth - 1) {
            val next = FILTERS.interleave()
            repeat(1_000) { next.filter(shared) }
            shared = next
        }
        val e = assertFailsWith<InvalidArgumentException> { client.readRow("t", "r", shared) }
        assertEquals("INVALID_ARGUMENT: ${limits.filterTooMany}", e.message)
        assertStillWorks(client)
    }

    @Test
    fun gcRulesNestedPastTheLimitAreRefused() = withTable { client, admin, _ ->
        admin.modifyFamilies("t") { addFamily("ok", nestedRule(gcDepth)) }
        for (levels in listOf(gcDepth + 1, 1_100, 100_000)) {
            val deep = nestedRule(levels)
            val e = assertFailsWith<InvalidArgumentException>("$levels levels") { admin.createTable("deep") { addFamily("cf", deep) } }
            assertEquals("INVALID_ARGUMENT: ${limits.gcRuleTooDeep}", e.message)
            assertFailsWith<InvalidArgumentException> { admin.modifyFamilies("t") { updateFamily("cf", deep) } }
        }
        var shared: GCRule = GCRULES.maxVersions(1)
        assertFailsWith<InvalidArgumentException> {
            repeat(30) { shared = GCRule.IntersectionRule(List(1_000) { shared }) }
            admin.createTable("wide") { addFamily("cf", shared) }
        }
        assertStillWorks(client)
    }
}

/**
 * The robustness list of issue 12, as the Kotlin API can express it, sent to ONE instance:
 * each bad input is refused with an [ApiException] of its gRPC code (never a crash of the
 * JVM, never another exception type), and afterwards the same instance still works.
 */
class BadInputTest {
    @Test
    fun everyBadInputIsAnApiExceptionAndTheInstanceKeepsWorking() = withTable { client, admin, clock ->
        client.mutateRow(RowMutation.create("t", "eight").setCell("cf", "q", 1_000, "not 8 bytes"))
        val huge = "x".repeat(1 shl 20)
        val cases: List<Pair<String, () -> Any?>> = listOf(
            "1 MiB table id" to { client.readRow(huge, "r") },
            "1 MiB table id on create" to { admin.createTable(huge) { addFamily("cf") } },
            "bad table id" to { admin.createTable("bad id!") { addFamily("cf") } },
            "1 MiB family" to { client.mutateRow(RowMutation.create("t", "r").setCell(huge, "q", 1_000, "v")) },
            "empty key" to { client.readRow("t", "") },
            "5 KiB key" to { client.mutateRow(RowMutation.create("t", "k".repeat(5_000)).setCell("cf", "q", 1_000, "v")) },
            "17 KiB qualifier" to { client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q".repeat(17_000), 1_000, "v")) },
            "unknown family" to { client.mutateRow(RowMutation.create("t", "r").setCell("nope", "q", 1_000, "v")) },
            "timestamp not a multiple of 1000" to { client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", 1_001, "v")) },
            "negative timestamp" to { client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", -5_000, "v")) },
            "no mutations" to { client.mutateRow(RowMutation.create("t", "r")) },
            "too many mutations" to {
                val m = RowMutation.create("t", "r")
                repeat(100_001) { m.deleteRow() }
                client.mutateRow(m)
            },
            "empty bulk" to { client.bulkMutateRows(BulkMutation.create("t")) },
            "bad regex" to { client.readRow("t", "r", FILTERS.key().regex("(")) },
            "20 KiB+ of regex" to { client.readRow("t", "r", FILTERS.value().regex("a".repeat(21_000))) },
            "limit 0" to { client.readRow("t", "r", FILTERS.limit().cellsPerRow(0)) },
            "sample probability 2" to { client.readRow("t", "r", FILTERS.key().sample(2.0)) },
            "one-member chain" to { client.readRow("t", "r", FILTERS.chain().filter(FILTERS.pass())) },
            "negative rows limit" to { client.readRows(Query.create("t").limit(-1)) },
            "reversed range" to { client.readRows(Query.create("t").range("z", "a")) },
            "increment of a non-8-byte value" to { client.readModifyWriteRow(ReadModifyWriteRow.create("t", "eight").increment("cf", "q", 1)) },
            "no rules" to { client.readModifyWriteRow(ReadModifyWriteRow.create("t", "r")) },
            "check-and-mutate without mutations" to { client.checkAndMutateRow(ConditionalRowMutation.create("t", "r")) },
            "max versions 0" to { admin.modifyFamilies("t") { addFamily("g0", GCRULES.maxVersions(0)) } },
            "max versions past u32" to { admin.modifyFamilies("t") { addFamily("g1", GCRULES.maxVersions(1L shl 40)) } },
            "max age 0" to { admin.modifyFamilies("t") { addFamily("g2", GCRULES.maxAgeMicros(0)) } },
            "negative max age" to { GCRULES.maxAge(java.time.Duration.ofSeconds(-1)) },
            "drop unknown family" to { admin.modifyFamilies("t") { dropFamily("nope") } },
            "duplicate table" to { admin.createTable("t") { addFamily("cf") } },
            "unknown table delete" to { admin.deleteTable("nope") },
            "empty drop prefix" to { admin.dropRowRange("t", "") },
            "unknown backup" to { admin.restoreTable("nope", "t2") },
            "value over the table limit" to {
                admin.createTable("tiny") { addFamily("cf"); setMaxValueBytes(10) }
                client.mutateRow(RowMutation.create("tiny", "r").setCell("cf", "q", 1_000, "eleven byte"))
            },
            "deep filter" to {
                var f: Filter = FILTERS.pass()
                repeat(100_000) { f = FILTERS.chain().filter(f).filter(FILTERS.pass()) }
                client.readRow("t", "r", f)
            },
            "deep GC rule" to {
                var r: GCRule = GCRULES.maxVersions(1)
                repeat(100_000) { r = GCRule.UnionRule(listOf(r)) }
                admin.modifyFamilies("t") { addFamily("deep", r) }
            },
            "clock past Bigtable's range" to {
                clock.setMicros(Long.MAX_VALUE)
                try {
                    client.mutateRow(RowMutation.create("t", "r").setCell("cf", "q", "v"))
                } finally {
                    clock.setMicros(T0)
                }
            },
        )
        val notRefused = mutableListOf<String>()
        for ((name, call) in cases) {
            try {
                call()
                notRefused += name
            } catch (e: ApiException) {
                assertTrue(e.statusCode != StatusCode.INTERNAL && e.statusCode != StatusCode.UNKNOWN, "$name: ${e.message}")
            }
        }
        assertEquals(emptyList(), notRefused, "bad inputs that were accepted")
        assertStillWorksAfter(client)
    }

    private fun assertStillWorksAfter(client: BigtableDataClient) {
        client.mutateRow(RowMutation.create("t", "after").setCell("cf", "q", 1_000, "v"))
        assertEquals(listOf("v"), client.readRow("t", "after")!!.values())
        assertEquals(listOf("after", "eight"), client.readRows(Query.create("t")).keys())
    }
}
