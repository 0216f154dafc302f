// An embedded Sparsetable instance: the one native database that data and admin clients
// share, as the clients of one Bigtable instance share its tables. Closing it frees the
// native database; clients used after that throw IllegalStateException.
package dev.sparsetable

import dev.sparsetable.ffi.Database as NativeDatabase

/**
 * An in-memory Sparsetable database.
 *
 * ```
 * Sparsetable.inMemory(ManualClock(1_700_000_000_000_000)).use { instance ->
 *     BigtableDataClient.create(instance).use { client -> ... }
 * }
 * ```
 */
class Sparsetable private constructor(internal val database: NativeDatabase) : AutoCloseable {
    /** The time the database sees, in microseconds since the epoch. */
    val nowMicros: Long get() = native { database.nowMicros() }

    /** Seeds the random draws of row-sample filters, so sampled reads repeat exactly. */
    fun setRandomSeed(seed: Long) = native { database.setRandomSeed(seed.toULong()) }

    /** Frees the native database. Idempotent. */
    override fun close() = database.close()

    companion object {
        /** An empty in-memory database on the system clock. */
        @JvmStatic
        fun inMemory(): Sparsetable = Sparsetable(NativeDatabase())

        /** An empty in-memory database that reads the time from [clock] only. */
        @JvmStatic
        fun inMemory(clock: ManualClock): Sparsetable = Sparsetable(NativeDatabase.withManualClock(clock.native))
    }
}
