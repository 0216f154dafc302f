// An embedded Sparsetable instance: the one native database that data and admin clients
// share, as the clients of one Bigtable instance share its tables; in memory, or durable in a
// directory. Closing it frees the native database (and the directory's lock); clients used
// after that throw IllegalStateException.
package dev.sparsetable

import dev.sparsetable.ffi.Database as NativeDatabase
import dev.sparsetable.ffi.Durability as NativeDurability
import dev.sparsetable.ffi.GcMode as NativeGcMode
import dev.sparsetable.ffi.InstancePlane
import java.io.File

/**
 * When a durable instance acknowledges a write, relative to the disk.
 *
 * - [SYNC]: after its commit log record is fsynced; concurrent writers share one fsync (group
 *   commit). An acknowledged write survives a crash of the process or the machine.
 * - [interval]: the log is fsynced in the background every interval; a machine crash loses at
 *   most about that window, a process crash nothing.
 * - [NONE]: never fsynced by the engine; a process crash loses nothing (the OS has the
 *   bytes), a machine crash may lose what the OS had not written back.
 */
class Durability private constructor(internal val native: NativeDurability, private val name: String) {
    override fun toString() = name

    companion object {
        /** Acknowledge after fsync. */
        @JvmField
        val SYNC = Durability(NativeDurability.Sync, "SYNC")

        /** Never fsync. */
        @JvmField
        val NONE = Durability(NativeDurability.None, "NONE")

        /** Fsync every [micros] microseconds in the background. */
        @JvmStatic
        fun intervalMicros(micros: Long) = Durability(NativeDurability.Interval(micros), "INTERVAL(${micros}us)")

        /** Fsync every [interval] in the background. */
        @JvmStatic
        fun interval(interval: java.time.Duration) = intervalMicros(interval.toNanos() / 1000)
    }
}

/**
 * When cells a column family's GC rule makes collectable stop being readable.
 *
 * - [IMMEDIATE] (the default): at once, so reads never depend on when compaction ran.
 * - [BACKGROUND]: as Cloud Bigtable, which collects in the background, possibly days later,
 *   and returns eligible cells until then: they stay readable until
 *   [Sparsetable.collectGarbage] (or a compaction) removes them.
 */
enum class GcMode(internal val native: NativeGcMode) {
    /** Collectable cells vanish from reads at once. */
    IMMEDIATE(NativeGcMode.IMMEDIATE),

    /** Collectable cells stay readable until collected. */
    BACKGROUND(NativeGcMode.BACKGROUND),
}

/**
 * A Sparsetable database: [inMemory], or durable in a directory with [open].
 *
 * ```
 * Sparsetable.open(File(context.filesDir, "db"), Durability.SYNC).use { instance ->
 *     BigtableDataClient.create(instance).use { client -> ... }
 * }
 * ```
 */
class Sparsetable private constructor(
    internal val database: NativeDatabase,
    /** The manual clock the database reads, if it was made on one. */
    val clock: ManualClock? = null,
) : AutoCloseable {
    @Volatile
    private var planeRef: InstancePlane? = null

    @Volatile
    private var adminRef: dev.sparsetable.ffi.InstanceAdmin? = null

    /** The instance's clusters and routing, once an instance admin or app profile asked for them. */
    internal val planeOrNull: InstancePlane? get() = planeRef

    /**
     * The instance's clusters, app profiles and replication (the core's InstanceData), made on
     * first need with one cluster, [DEFAULT_CLUSTER_ID], whose copy is this database.
     */
    internal fun plane(): InstancePlane = planeRef ?: synchronized(this) {
        planeRef ?: native { InstancePlane(database, DEFAULT_CLUSTER_ID, clock?.native) }.also { planeRef = it }
    }

    /**
     * The instance's clusters and app profiles (the core's InstanceRecord), made on first need
     * with the plane's one cluster; every change it accepts configures the plane.
     */
    internal fun admin(): dev.sparsetable.ffi.InstanceAdmin = adminRef ?: synchronized(this) {
        adminRef ?: native { dev.sparsetable.ffi.InstanceAdmin(plane(), PROJECT_ID, INSTANCE_ID, DEFAULT_CLUSTER_ID) }.also { adminRef = it }
    }

    /**
     * The instance record whose logical views a query may read: the admin once made (a
     * directory with an `INSTANCE` file makes it when opened); null while there can be no view.
     */
    internal fun viewsOrNull(): dev.sparsetable.ffi.InstanceAdmin? = adminRef

    /** The time the database sees, in microseconds since the epoch. */
    val nowMicros: Long get() = native { database.nowMicros() }

    /** When collectable cells stop being readable (see [GcMode]). */
    val gcMode: GcMode
        get() = native { database.gcMode() }.let { m -> GcMode.entries.first { it.native == m } }

    /**
     * Runs garbage collection now on [tableId] (every table when `null`), on every cluster: in
     * [GcMode.BACKGROUND] reads then stop returning the cells GC rules made collectable; in
     * [GcMode.IMMEDIATE] they never did.
     *
     * @throws NotFoundException for an unknown table.
     */
    @JvmOverloads
    fun collectGarbage(tableId: String? = null) {
        val plane = planeRef
        if (plane != null) native { plane.collectGarbage(tableId) } else native { database.collectGarbage(tableId) }
    }

    /** Seeds the random draws of row-sample filters, so sampled reads repeat exactly. */
    fun setRandomSeed(seed: Long) = native { database.setRandomSeed(seed.toULong()) }

    /**
     * Flushes every table's memory to run files and starts a fresh commit log (shortens the
     * next open's recovery); a no-op in memory.
     *
     * @throws UnavailableException if the disk refused.
     */
    fun checkpoint() = native { database.checkpoint() }

    /**
     * Frees the native database; for a durable one, joins its background thread and releases
     * the directory (a stream still open keeps its view, and the directory, until it is
     * closed). Idempotent.
     */
    override fun close() {
        adminRef?.close()
        planeRef?.close()
        database.close()
    }

    /** One call into the native library that does nothing: the binding's fixed per-call cost. */
    fun noop() = database.noop()

    companion object {
        /** The id of an instance's first cluster until [dev.sparsetable.admin.BigtableInstanceAdminClient] changes the clusters. */
        const val DEFAULT_CLUSTER_ID = "sparsetable-c1"

        /**
         * The project id the instance's admin errors name (`projects/{project}/instances/{instance}`):
         * in memory, and on a directory that is not `DATA_DIR/{project}/{instance}` (the server's
         * layout, whose names are used) or whose `INSTANCE` file names another instance.
         */
        const val PROJECT_ID = "sparsetable"

        /** The instance id the instance's admin errors name (as [PROJECT_ID]). */
        const val INSTANCE_ID = "sparsetable"

        /** An empty in-memory database on the system clock. */
        @JvmStatic
        fun inMemory(): Sparsetable = Sparsetable(NativeDatabase())

        /** An empty in-memory database that reads the time from [clock] only. */
        @JvmStatic
        fun inMemory(clock: ManualClock): Sparsetable = Sparsetable(NativeDatabase.withManualClock(clock.native), clock)

        /** An empty in-memory database in [gcMode], on [clock] (the system clock when `null`). */
        @JvmStatic
        fun inMemory(clock: ManualClock?, gcMode: GcMode): Sparsetable {
            val database = if (clock == null) NativeDatabase() else NativeDatabase.withManualClock(clock.native)
            native { database.setGcMode(gcMode.native) }
            return Sparsetable(database, clock)
        }

        /**
         * Opens the durable database in directory [path], creating it if needed, on the system
         * clock. Opening recovers every write the previous process acknowledged (replaying the
         * commit log); writes are then acknowledged as [durability] says. One process (one
         * open instance) holds a directory at a time. A directory with an `INSTANCE` file
         * (written by [dev.sparsetable.admin.BigtableInstanceAdminClient], or the server's) opens
         * as the instance it records: its clusters, app profiles, logical views and
         * materialized views (loaded from the copy the last checkpoint stored when their table
         * has not changed since, else recomputed from it), and every other cluster's copy
         * and queued replication write, kept under `replicas/` and `replication/` in the
         * directory.
         *
         * @throws FailedPreconditionException if another instance, in this process or another,
         * holds the directory (the message names the holder's pid).
         * @throws DataLossException if a file of the database is corrupt.
         * @throws UnavailableException if the directory cannot be created or written.
         */
        @JvmStatic
        @JvmOverloads
        fun open(path: String, durability: Durability = Durability.SYNC, gcMode: GcMode = GcMode.IMMEDIATE): Sparsetable {
            val instance = Sparsetable(native { NativeDatabase.openWithGcMode(path, durability.native, gcMode.native) })
            // A directory an instance admin (or the server) changed is that instance again at
            // once: its clusters route data calls, its copies and queued writes are back, and
            // its views can be queried.
            if (File(path, "INSTANCE").isFile) {
                try {
                    instance.admin()
                } catch (e: Throwable) {
                    instance.close()
                    throw e
                }
            }
            return instance
        }

        /** [open] of a [File] directory. */
        @JvmStatic
        @JvmOverloads
        fun open(path: File, durability: Durability = Durability.SYNC, gcMode: GcMode = GcMode.IMMEDIATE): Sparsetable =
            open(path.path, durability, gcMode)
    }
}
