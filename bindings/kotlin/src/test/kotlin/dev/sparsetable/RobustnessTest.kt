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
    private val filterDepth = 20 // limits::MAX_FILTER_DEPTH
    private val gcDepth = 32 // limits::MAX_GC_RULE_DEPTH

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
            assertTrue(e.message!!.contains("nesting deeper than $filterDepth levels"), e.message)
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
        assertTrue(e.message!!.contains("more than"), e.message)
        assertStillWorks(client)
    }

    @Test
    fun gcRulesNestedPastTheLimitAreRefused() = withTable { client, admin, _ ->
        admin.modifyFamilies("t") { addFamily("ok", nestedRule(gcDepth)) }
        for (levels in listOf(gcDepth + 1, 1_100, 100_000)) {
            val deep = nestedRule(levels)
            val e = assertFailsWith<InvalidArgumentException>("$levels levels") { admin.createTable("deep") { addFamily("cf", deep) } }
            assertTrue(e.message!!.contains("nested deeper than $gcDepth levels"), e.message)
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
