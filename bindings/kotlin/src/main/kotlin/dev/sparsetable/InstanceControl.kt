// The control surface of an instance's simulated replication, for tests: cluster outages, the
// replication lag, injected faults, delivery on a manual clock, consistency tokens, and
// awaitReplication (as the Java table admin client's). Every rule is the core's
// (InstanceData, docs/replication.md); this class converts values and errors only.
package dev.sparsetable

import java.time.Duration

/**
 * Controls the replication of one [Sparsetable] instance (its clusters come from
 * [dev.sparsetable.admin.BigtableInstanceAdminClient]). Thread-safe.
 *
 * ```
 * val control = InstanceControl.create(instance)
 * control.setReplicationLagMicros(5_000)     // writes reach the other clusters 5 ms later
 * control.setClusterAvailable("c2", false)   // c2 is down: multi-cluster profiles fail over
 * control.injectFault(code = "UNAVAILABLE", rpc = "ReadRows", clusterId = "c1", count = 2)
 * control.advanceMicros(5_000)               // on a ManualClock: delivers what is due
 * ```
 */
class InstanceControl private constructor(
    /** The instance controlled. */
    val instance: Sparsetable,
) {
    private fun plane() = instance.plane()

    /**
     * Takes cluster [clusterId] down (`available = false`) or brings it back (it catches up).
     *
     * @throws NotFoundException for an unknown cluster.
     * @throws FailedPreconditionException on an instance of one cluster.
     */
    fun setClusterAvailable(clusterId: String, available: Boolean) = native { plane().setAvailable(clusterId, available) }

    /** Each cluster's id and whether it is available, the first cluster's first. */
    fun clusterAvailability(): Map<String, Boolean> =
        native { plane().availability() }.associateTo(LinkedHashMap()) { it.clusterId to it.available }

    /**
     * How long a write takes to reach the other clusters, in microseconds of the instance's
     * clock (a [ManualClock] makes it exact).
     *
     * @throws InvalidArgumentException for a negative lag.
     */
    fun setReplicationLagMicros(micros: Long) = native { plane().setDelayMicros(micros) }

    /** [setReplicationLagMicros] of a [Duration]. */
    fun setReplicationLag(lag: Duration) = setReplicationLagMicros(lag.toNanos() / 1000)

    /** The replication lag, in microseconds. */
    val replicationLagMicros: Long get() = native { plane().delayMicros() }

    /** How many acknowledged writes are still on their way to some cluster. */
    val inFlight: Long get() = native { plane().inFlight() }.toLong()

    /**
     * Adds an injected fault: calls of [rpc] (`"ReadRows"`, `"MutateRow"`, `"MutateRows"`,
     * `"CheckAndMutateRow"`, `"ReadModifyWriteRow"`, `"SampleRowKeys"`, `"ReadChangeStream"`,
     * `"GenerateInitialChangeStreamPartitions"`; null: every call) at [clusterId] (null: every
     * cluster) fail with [code] (a gRPC code name such as `"UNAVAILABLE"`; null: latency only)
     * and/or wait [latencyMicros] (real time, before the call runs), for [count] calls (null:
     * no limit), each with [probability] (drawn from the seed [clearFaults] set).
     *
     * @throws InvalidArgumentException for an unknown code name or a bad rule.
     * @throws NotFoundException for an unknown cluster.
     */
    @JvmOverloads
    fun injectFault(
        code: String? = null,
        rpc: String? = null,
        clusterId: String? = null,
        count: Long? = null,
        probability: Double = 1.0,
        latencyMicros: Long = 0,
    ) {
        require(count == null || count >= 0) { "count must not be negative" }
        require(latencyMicros >= 0) { "latencyMicros must not be negative" }
        native {
            plane().addFault(
                dev.sparsetable.ffi.FaultSpec(rpc, clusterId, code, count?.toULong(), probability, latencyMicros.toULong()),
            )
        }
    }

    /** Removes every injected fault and reseeds the probabilities' generator with [seed]. */
    @JvmOverloads
    fun clearFaults(seed: Long = 0) = native { plane().clearFaults(seed.toULong()) }

    /** How many fault rules are in force. */
    val faultCount: Int get() = native { plane().faultCount() }.toInt()

    /** Delivers what replication has due (every routed data call does this first). */
    fun pump() = native { plane().pump() }

    /**
     * Moves the instance's [ManualClock] forward by [micros] and delivers what is then due.
     *
     * @throws FailedPreconditionException if the instance reads the system clock.
     */
    fun advanceMicros(micros: Long) {
        val clock = instance.clock
            ?: throw FailedPreconditionException(
                "FAILED_PRECONDITION: the instance reads the system clock; open it with Sparsetable.inMemory(ManualClock) to control its clock",
            )
        require(micros >= 0) { "micros must not be negative" }
        clock.advanceMicros(micros)
        pump()
    }

    /** A consistency token for [tableId] (GenerateConsistencyToken). */
    fun generateConsistencyToken(tableId: String): String = native { plane().consistencyToken(tableId) }

    /**
     * Whether every write acknowledged before [token] was generated has reached every cluster
     * (CheckConsistency; [dataBoostReadLocalWrites] is its Data Boost mode, as the core
     * defines it).
     *
     * @throws InvalidArgumentException for a malformed token or one of another table.
     */
    @JvmOverloads
    fun checkConsistency(tableId: String, token: String, dataBoostReadLocalWrites: Boolean = false): Boolean =
        native { plane().checkConsistency(tableId, token, dataBoostReadLocalWrites) }

    /**
     * Waits until every write to [tableId] acknowledged before the call has reached every
     * cluster, as the Java admin client's `awaitReplication`: takes a consistency token, then
     * checks it until it is consistent. Between checks, on a [ManualClock] it moves the clock
     * by the replication lag (at least 1 ms) and delivers; on the system clock it sleeps 1 ms
     * and delivers.
     *
     * @throws DeadlineExceededException if [timeout] of the instance's clock passes first
     * (say, a cluster is down).
     */
    @JvmOverloads
    fun awaitReplication(tableId: String, timeout: Duration = Duration.ofMinutes(1)) {
        val token = generateConsistencyToken(tableId)
        val deadline = instance.nowMicros + timeout.toNanos() / 1000
        while (true) {
            pump()
            if (checkConsistency(tableId, token)) return
            if (instance.nowMicros >= deadline) {
                throw DeadlineExceededException(
                    "DEADLINE_EXCEEDED: writes to table \"$tableId\" had not reached every cluster within $timeout",
                )
            }
            val clock = instance.clock
            if (clock != null) clock.advanceMicros(maxOf(replicationLagMicros, 1_000)) else Thread.sleep(1)
        }
    }

    companion object {
        /** The controls of [instance]. */
        @JvmStatic
        fun create(instance: Sparsetable) = InstanceControl(instance)
    }
}
