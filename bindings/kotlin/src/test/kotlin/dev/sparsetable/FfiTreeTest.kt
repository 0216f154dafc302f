// Filters and GC rules hand-built from the generated FFI types (dev.sparsetable.ffi), not the
// public API: they cross as flat node lists, so no generated code recurses, and the native
// side refuses a list that is not a tree within the engine's limits. A 100,000-deep tree (a
// recursive generated enum overflowed the native stack at about 500 levels and killed the JVM)
// and every malformed list are INVALID_ARGUMENT, and the same database keeps working.
package dev.sparsetable

import dev.sparsetable.ffi.ColumnFamily
import dev.sparsetable.ffi.ConditionalWrite
import dev.sparsetable.ffi.Database
import dev.sparsetable.ffi.FamilySettings
import dev.sparsetable.ffi.FilterNode
import dev.sparsetable.ffi.GcRule
import dev.sparsetable.ffi.GcRuleNode
import dev.sparsetable.ffi.Granularity
import dev.sparsetable.ffi.Mutation
import dev.sparsetable.ffi.RowFilter
import dev.sparsetable.ffi.RowRead
import dev.sparsetable.ffi.RowWrite
import dev.sparsetable.ffi.SparsetableException
import dev.sparsetable.ffi.TableConfig
import dev.sparsetable.ffi.ValueType
import org.junit.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

private fun String.utf8(): ByteArray = toByteArray(Charsets.UTF_8)

class FfiTreeTest {
    private fun config(rule: GcRule) = TableConfig(
        listOf(ColumnFamily("cf", FamilySettings(rule, ValueType.BYTES))), Granularity.MILLIS, false, emptyList(), null,
    )

    private val never = GcRule(listOf(GcRuleNode.Never))

    private fun code(e: SparsetableException) = when (e) {
        is SparsetableException.InvalidRequest -> e.code
        else -> "other: $e"
    }

    private fun chain(levels: Int): RowFilter {
        val nodes = mutableListOf<FilterNode>(FilterNode.PassAll)
        repeat(levels - 1) { i -> nodes += FilterNode.Chain(listOf(i.toUInt())) }
        return RowFilter(nodes)
    }

    private fun union(levels: Int): GcRule {
        val nodes = mutableListOf<GcRuleNode>(GcRuleNode.MaxNumVersions(1))
        repeat(levels - 1) { i -> nodes += GcRuleNode.Union(listOf(i.toUInt())) }
        return GcRule(nodes)
    }

    private fun assertWorks(db: Database) {
        db.mutateRow(RowWrite("t", "ok".utf8(), listOf(Mutation.SetCell("cf", "q".utf8(), 1_000, "v".utf8()))))
        assertEquals("v", String(db.readRow(RowRead("t", "ok".utf8(), null))!!.cells.single().value))
    }

    @Test
    fun handBuiltDeepFiltersAreInvalidArgumentAndTheDatabaseKeepsWorking() {
        val db = Database()
        db.createTable("t", config(never))
        db.mutateRow(RowWrite("t", "r".utf8(), listOf(Mutation.SetCell("cf", "q".utf8(), 1_000, "v".utf8()))))
        for (levels in listOf(21, 500, 1_100, 100_000)) {
            val f = chain(levels)
            val e = assertFailsWith<SparsetableException>("$levels levels") { db.readRow(RowRead("t", "r".utf8(), f)) }
            assertEquals("INVALID_ARGUMENT", code(e), "$levels levels")
            assertFailsWith<SparsetableException> {
                db.checkAndMutateRow(ConditionalWrite("t", "r".utf8(), f, listOf(Mutation.DeleteFromRow), emptyList()))
            }
            assertFailsWith<SparsetableException> {
                db.readRows("t", dev.sparsetable.ffi.ReadRowsRequest(dev.sparsetable.ffi.RowSet(emptyList(), emptyList()), f, 0, false))
            }
        }
        // Twenty levels are fine (one-member chains are the engine's to refuse, not the tree check's).
        val twenty = RowFilter(chain(20).nodes.mapIndexed { i, n -> if (i == 0) n else FilterNode.Interleave(listOf((i - 1).toUInt())) })
        val e = assertFailsWith<SparsetableException> { db.readRow(RowRead("t", "r".utf8(), twenty)) }
        assertTrue(!e.toString().contains("nesting deeper"), e.toString())
        assertWorks(db)
        db.close()
    }

    @Test
    fun malformedNodeListsAreInvalidArgument() {
        val db = Database()
        db.createTable("t", config(never))
        val pass = FilterNode.PassAll
        val bad = listOf(
            emptyList(),
            listOf(FilterNode.Chain(listOf(0u, 0u))), // self reference
            listOf(pass, FilterNode.Chain(listOf(0u, 0u))), // a member twice
            listOf(pass, pass, FilterNode.Chain(listOf(1u, 5u))), // out of range
            listOf(pass, pass), // orphan
            listOf(FilterNode.Chain(listOf(1u, 2u)), pass, pass), // members after the node
        )
        for (nodes in bad) {
            val e = assertFailsWith<SparsetableException>("$nodes") { db.readRow(RowRead("t", "r".utf8(), RowFilter(nodes))) }
            assertEquals("INVALID_ARGUMENT", code(e), "$nodes")
        }
        assertWorks(db)
        db.close()
    }

    @Test
    fun handBuiltDeepGcRulesAreInvalidArgument() {
        val db = Database()
        db.createTable("t", config(never))
        db.createTable("ok", config(union(32)))
        for (levels in listOf(33, 1_100, 100_000)) {
            val e = assertFailsWith<SparsetableException>("$levels levels") { db.createTable("deep", config(union(levels))) }
            assertEquals("INVALID_ARGUMENT", code(e))
        }
        val shared = GcRule(listOf(GcRuleNode.Never, GcRuleNode.Union(listOf(0u, 0u))))
        assertEquals("INVALID_ARGUMENT", code(assertFailsWith<SparsetableException> { db.createTable("x", config(shared)) }))
        // A stored rule comes back as the same flat list.
        assertEquals(union(32), db.getTable("ok").families.single().settings.gcRule)
        assertWorks(db)
        db.close()
    }
}
