// Garbage-collection rules, as `com.google.cloud.bigtable.admin.v2.models.GCRules`:
// `GCRULES.maxVersions(2)`, `GCRULES.maxAge(Duration.ofDays(7))`,
// `GCRULES.union().rule(a).rule(b)`. A rule only describes; the engine validates it
// (max versions >= 1, max age >= 1 ms: INVALID_ARGUMENT) and applies it at read time.
package dev.sparsetable.admin

import dev.sparsetable.TreeBudget
import dev.sparsetable.native
import java.time.Duration
import dev.sparsetable.ffi.gcRuleMaxAge
import dev.sparsetable.ffi.GcRule as NativeGcRule

/** A column family's GC rule. */
sealed class GCRule {
    /**
     * The native rule. Throws [dev.sparsetable.InvalidArgumentException] for a rule deeper or
     * larger than the engine accepts, before any of it crosses the FFI (see TreeBudget).
     */
    internal fun toNative(): NativeGcRule = toNative(1, TreeBudget.gcRule())

    internal fun toNative(depth: Int, budget: TreeBudget): NativeGcRule {
        budget.enter(depth)
        return build(depth, budget)
    }

    /** This node as a native rule; members are converted with `toNative(depth + 1, budget)`. */
    internal abstract fun build(depth: Int, budget: TreeBudget): NativeGcRule

    /** Keeps everything (no rule). */
    object DefaultRule : GCRule() {
        override fun build(depth: Int, budget: TreeBudget) = NativeGcRule.Never
        override fun toString() = "DefaultRule"
    }

    /** Keeps the newest [maxVersions] cells of each column. */
    data class VersionRule(val maxVersions: Long) : GCRule() {
        override fun build(depth: Int, budget: TreeBudget) = NativeGcRule.MaxNumVersions(maxVersions)
    }

    /** Drops cells older than now minus [maxAgeMicros]. */
    data class DurationRule(val maxAgeMicros: Long) : GCRule() {
        /** The age limit as a [Duration]. */
        val maxAge: Duration get() = Duration.ofSeconds(maxAgeMicros / 1_000_000, (maxAgeMicros % 1_000_000) * 1_000)
        override fun build(depth: Int, budget: TreeBudget) = NativeGcRule.MaxAge(maxAgeMicros)
    }

    /** Drops a cell only if every rule would. */
    data class IntersectionRule(val rules: List<GCRule> = emptyList()) : GCRule() {
        /** This intersection plus [rule]. */
        fun rule(rule: GCRule) = IntersectionRule(rules + rule)
        override fun build(depth: Int, budget: TreeBudget) = NativeGcRule.Intersection(rules.map { it.toNative(depth + 1, budget) })
    }

    /** Drops a cell if any rule would. */
    data class UnionRule(val rules: List<GCRule> = emptyList()) : GCRule() {
        /** This union plus [rule]. */
        fun rule(rule: GCRule) = UnionRule(rules + rule)
        override fun build(depth: Int, budget: TreeBudget) = NativeGcRule.Union(rules.map { it.toNative(depth + 1, budget) })
    }

    internal companion object {
        fun fromNative(rule: NativeGcRule): GCRule = when (rule) {
            is NativeGcRule.Never -> DefaultRule
            is NativeGcRule.MaxNumVersions -> VersionRule(rule.maxNumVersions)
            is NativeGcRule.MaxAge -> DurationRule(rule.maxAgeMicros)
            is NativeGcRule.Intersection -> IntersectionRule(rule.rules.map(::fromNative))
            is NativeGcRule.Union -> UnionRule(rule.rules.map(::fromNative))
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
