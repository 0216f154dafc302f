// The engine's depth and size limits on filter and GC rule trees, checked while the Kotlin API
// converts a tree and before it crosses the FFI. uniffi's generated glue writes a nested enum,
// and its Rust side reads it, with one recursive call per level: a filter about 500 levels
// deep overflowed the native stack there and the JVM died with SIGSEGV. Counting filters too
// bounds a tree built by sharing one object many times per level (or a chain added to itself),
// which would otherwise expand without end.
package dev.sparsetable

import dev.sparsetable.ffi.treeLimits

/** Counts one tree's levels and nodes during one conversion; throws past the limits. */
internal class TreeBudget private constructor(
    private val depthMessage: String,
    private val nodesMessage: String,
    private val maxDepth: Int,
    private val maxNodes: Int,
) {
    private var nodes = 0

    /** Accounts for one node at [depth] (the root is 1), before its members are converted. */
    fun enter(depth: Int) {
        if (depth > maxDepth) throw toApiException("INVALID_ARGUMENT", depthMessage)
        if (++nodes > maxNodes) throw toApiException("INVALID_ARGUMENT", nodesMessage)
    }

    internal companion object {
        private val limits by lazy { treeLimits() }

        /** A budget for one RowFilter, with the engine's own messages. */
        fun filter(): TreeBudget = limits.let {
            TreeBudget(it.filterTooDeep, it.filterTooMany, it.maxFilterDepth.toInt(), it.maxFilterNodes.toInt())
        }

        /** A budget for one GC rule, with the engine's own messages. */
        fun gcRule(): TreeBudget = limits.let {
            TreeBudget(it.gcRuleTooDeep, it.gcRuleTooMany, it.maxGcRuleDepth.toInt(), it.maxGcRuleNodes.toInt())
        }
    }
}
