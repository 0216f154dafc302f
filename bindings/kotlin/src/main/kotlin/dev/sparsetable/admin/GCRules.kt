// Garbage-collection rules, as `com.google.cloud.bigtable.admin.v2.models.GCRules`:
// `GCRULES.maxVersions(2)`, `GCRULES.maxAge(Duration.ofDays(7))`,
// `GCRULES.union().rule(a).rule(b)`. A rule only describes; the engine validates it
// (max versions >= 1, max age >= 1 ms: INVALID_ARGUMENT) and applies it at read time.
package dev.sparsetable.admin

import dev.sparsetable.TreeBudget
import dev.sparsetable.native
import java.time.Duration
import dev.sparsetable.ffi.gcRuleMaxAge
import dev.sparsetable.ffi.GcRuleNode
import dev.sparsetable.ffi.GcRule as NativeGcRule

/** A column family's GC rule. */
sealed class GCRule {
    /**
     * The native rule, a flat node list (members before the list holding them, root last).
     * Throws [dev.sparsetable.InvalidArgumentException] for a rule deeper or larger than the
     * engine accepts, before any of it crosses the FFI (see TreeBudget); the native side
     * checks the list again.
     */
    internal fun toNative(): NativeGcRule {
        val nodes = mutableListOf<GcRuleNode>()
        emit(1, TreeBudget.gcRule(), nodes)
        return NativeGcRule(nodes)
    }

    internal fun emit(depth: Int, budget: TreeBudget, out: MutableList<GcRuleNode>): UInt {
        budget.enter(depth)
        out += node(depth, budget, out)
        return (out.size - 1).toUInt()
    }

    /** This node; members are emitted first with `emit(depth + 1, budget, out)`. */
    internal abstract fun node(depth: Int, budget: TreeBudget, out: MutableList<GcRuleNode>): GcRuleNode

    /** Keeps everything (no rule). */
    object DefaultRule : GCRule() {
        override fun node(depth: Int, budget: TreeBudget, out: MutableList<GcRuleNode>) = GcRuleNode.Never
        override fun toString() = "DefaultRule"
    }

    /** Keeps the newest [maxVersions] cells of each column. */
    data class VersionRule(val maxVersions: Long) : GCRule() {
        override fun node(depth: Int, budget: TreeBudget, out: MutableList<GcRuleNode>) = GcRuleNode.MaxNumVersions(maxVersions)
    }

    /** Drops cells older than now minus [maxAgeMicros]. */
    data class DurationRule(val maxAgeMicros: Long) : GCRule() {
        /** The age limit as a [Duration]. */
        val maxAge: Duration get() = Duration.ofSeconds(maxAgeMicros / 1_000_000, (maxAgeMicros % 1_000_000) * 1_000)
        override fun node(depth: Int, budget: TreeBudget, out: MutableList<GcRuleNode>) = GcRuleNode.MaxAge(maxAgeMicros)
    }

    /** Drops a cell only if every rule would. */
    data class IntersectionRule(val rules: List<GCRule> = emptyList()) : GCRule() {
        /** This intersection plus [rule]. */
        fun rule(rule: GCRule) = IntersectionRule(rules + rule)
        override fun node(depth: Int, budget: TreeBudget, out: MutableList<GcRuleNode>) =
            GcRuleNode.Intersection(rules.map { it.emit(depth + 1, budget, out) })
    }

    /** Drops a cell if any rule would. */
    data class UnionRule(val rules: List<GCRule> = emptyList()) : GCRule() {
        /** This union plus [rule]. */
        fun rule(rule: GCRule) = UnionRule(rules + rule)
        override fun node(depth: Int, budget: TreeBudget, out: MutableList<GcRuleNode>) =
            GcRuleNode.Union(rules.map { it.emit(depth + 1, budget, out) })
    }

    internal companion object {
        /** The rule a native node list describes, built without recursion (members first). */
        fun fromNative(rule: NativeGcRule): GCRule {
            val built = ArrayList<GCRule>(rule.nodes.size)
            for (node in rule.nodes) {
                built += when (node) {
                    is GcRuleNode.Never -> DefaultRule
                    is GcRuleNode.MaxNumVersions -> VersionRule(node.maxNumVersions)
                    is GcRuleNode.MaxAge -> DurationRule(node.maxAgeMicros)
                    is GcRuleNode.Intersection -> IntersectionRule(node.rules.map { built[it.toInt()] })
                    is GcRuleNode.Union -> UnionRule(node.rules.map { built[it.toInt()] })
                }
            }
            return built.last()
        }
    }
}

/** Factory of GC rules; `GCRULES` is the Java client's spelling. */
object GCRules {
    /** Keep the newest [n] cells of each column. */
    @JvmStatic
    fun maxVersions(n: Long): GCRule = GCRule.VersionRule(n)

    /** Keep the newest [n] cells of each column. */
    @JvmStatic
    fun maxVersions(n: Int): GCRule = GCRule.VersionRule(n.toLong())

    /** Drop cells older than now minus [maxAge] (truncated to microseconds). */
    @JvmStatic
    fun maxAge(maxAge: Duration): GCRule =
        GCRule.fromNative(native { gcRuleMaxAge(maxAge.seconds, maxAge.nano) })

    /** Drop cells older than now minus [micros]. */
    @JvmStatic
    fun maxAgeMicros(micros: Long): GCRule = GCRule.DurationRule(micros)

    /** Drop a cell only if all of [rules] would. */
    @JvmStatic
    fun intersection(vararg rules: GCRule): GCRule.IntersectionRule = GCRule.IntersectionRule(rules.toList())

    /** Drop a cell if any of [rules] would. */
    @JvmStatic
    fun union(vararg rules: GCRule): GCRule.UnionRule = GCRule.UnionRule(rules.toList())

    /** Keep everything. */
    @JvmStatic
    fun defaultRule(): GCRule = GCRule.DefaultRule
}

/** The Java client's `GCRules.GCRULES`. */
@JvmField
val GCRULES: GCRules = GCRules
