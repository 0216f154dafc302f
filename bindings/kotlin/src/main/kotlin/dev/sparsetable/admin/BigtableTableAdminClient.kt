// The table admin client, shaped like `com.google.cloud.bigtable.admin.v2
// .BigtableTableAdminClient`: create, get, list, update, delete tables, modify their
// families, drop row ranges, backups.
// Each call makes one native call; errors become ApiException subclasses.
package dev.sparsetable.admin

import dev.sparsetable.BigtableDataClient
import dev.sparsetable.NotFoundException
import dev.sparsetable.Sparsetable
import dev.sparsetable.ffi.DropRowRange
import dev.sparsetable.native
import java.util.concurrent.CompletableFuture

/** Administers the tables of one [Sparsetable] instance. Thread-safe. */
class BigtableTableAdminClient private constructor(val instance: Sparsetable) : AutoCloseable {
    @Volatile
    private var closed = false

    private fun db() = instance.database.also { check(!closed) { "BigtableTableAdminClient is closed" } }

    /**
     * Creates a table and returns it.
     *
     * @throws dev.sparsetable.AlreadyExistsException if it exists.
     * @throws dev.sparsetable.InvalidArgumentException for a bad id, family name or rule.
     */
    fun createTable(request: CreateTableRequest): Table {
        val db = db()
        val config = request.toNative()
        native { db.createTable(request.tableId, config) }
        // On a replicated instance the retention applies to every cluster's copy.
        val plane = instance.planeOrNull
        request.changeStreamRetentionMicros?.let {
            native { if (plane != null) plane.setChangeStream(request.tableId, it) else db.setChangeStream(request.tableId, it) }
        }
        return getTable(request.tableId)
    }

    /** Builds a [CreateTableRequest] with [block] and creates the table. */
    fun createTable(tableId: String, block: CreateTableRequest.() -> Unit = {}): Table =
        createTable(CreateTableRequest.of(tableId).apply(block))

    /** A table's schema. @throws NotFoundException if it does not exist. */
    fun getTable(tableId: String): Table {
        val db = db()
        return Table(native { db.getTable(tableId) })
    }

    /** Whether [tableId] exists. */
    fun exists(tableId: String): Boolean = try {
        getTable(tableId)
        true
    } catch (e: NotFoundException) {
        false
    }

    /** Every table id, sorted. */
    fun listTables(): List<String> = native { db().listTables() }.map { it.tableId }

    /**
     * Deletes a table and its data.
     *
     * @throws NotFoundException if it does not exist.
     * @throws dev.sparsetable.FailedPreconditionException if it has deletion protection.
     */
    fun deleteTable(tableId: String) {
        val db = db()
        native { db.deleteTable(tableId) }
    }

    /**
     * Applies family changes in order, all or nothing, and returns the table.
     *
     * @throws NotFoundException for an unknown table, or a family to update or drop.
     * @throws dev.sparsetable.AlreadyExistsException for a family to create that exists.
     * @throws dev.sparsetable.InvalidArgumentException for a bad name or rule, or no changes.
     */
    fun modifyFamilies(request: ModifyColumnFamiliesRequest): Table {
        val db = db()
        return Table(native { db.modifyColumnFamilies(request.tableId, request.toNative()) })
    }

    /** Builds a [ModifyColumnFamiliesRequest] with [block] and applies it. */
    fun modifyFamilies(tableId: String, block: ModifyColumnFamiliesRequest.() -> Unit): Table =
        modifyFamilies(ModifyColumnFamiliesRequest.of(tableId).apply(block))

    /**
     * Applies [request]'s option changes and returns the table.
     *
     * @throws NotFoundException if the table does not exist.
     * @throws dev.sparsetable.InvalidArgumentException for a row-key schema the core refuses,
     * a change of an existing one, or a removal without [UpdateTableRequest.setIgnoreWarnings].
     */
    fun updateTable(request: UpdateTableRequest): Table {
        val db = db()
        // First, as the change most likely refused (then nothing else is applied).
        request.rowKeySchema?.let { change ->
            native { db.setRowKeySchema(request.tableId, change.orElse(null)?.toNative(), request.ignoreWarnings) }
        }
        request.changeStream?.let { change ->
            val retention = change.orElse(null)
            // On a replicated instance the retention applies to every cluster's copy.
            val plane = instance.planeOrNull
            native { if (plane != null) plane.setChangeStream(request.tableId, retention) else db.setChangeStream(request.tableId, retention) }
        }
        val protect = request.deletionProtection ?: return getTable(request.tableId)
        return Table(native { db.setDeletionProtection(request.tableId, protect) })
    }

    /**
     * Deletes every row whose key starts with [prefix].
     *
     * @throws NotFoundException for an unknown table.
     * @throws dev.sparsetable.InvalidArgumentException for an empty prefix.
     */
    fun dropRowRange(tableId: String, prefix: ByteArray) {
        val db = db()
        dropRows(db, tableId, DropRowRange.Prefix(prefix.copyOf()))
    }

    /** [dropRowRange] with a UTF-8 prefix. */
    fun dropRowRange(tableId: String, prefix: String) = dropRowRange(tableId, prefix.toByteArray(Charsets.UTF_8))

    /** Deletes every row of the table. @throws NotFoundException for an unknown table. */
    fun dropAllRows(tableId: String) {
        val db = db()
        dropRows(db, tableId, DropRowRange.All)
    }

    /** DropRowRange at every cluster's copy on a replicated instance, else at the one database. */
    private fun dropRows(db: dev.sparsetable.ffi.Database, tableId: String, range: DropRowRange) {
        val plane = instance.planeOrNull
        native { if (plane != null) plane.dropRowRange(tableId, range) else db.dropRowRange(tableId, range) }
    }

    /**
     * Waits until every write to [tableId] acknowledged before the call has reached every
     * cluster (see [dev.sparsetable.InstanceControl.awaitReplication]); returns at once on an
     * instance of one cluster.
     */
    fun awaitReplication(tableId: String) {
        db()
        dev.sparsetable.InstanceControl.create(instance).awaitReplication(tableId)
    }

    /**
     * Snapshots table [tableId] as backup [backupId] (the Java client's
     * `createBackup(CreateBackupRequest.of(cluster, backupId).setSourceTableId(tableId))`; an
     * embedded instance has one implicit cluster, and backups do not expire).
     *
     * @throws NotFoundException for an unknown table.
     * @throws dev.sparsetable.AlreadyExistsException if [backupId] is taken.
     */
    fun createBackup(tableId: String, backupId: String): Backup {
        val db = db()
        return Backup(native { db.createBackup(tableId, backupId) })
    }

    /** A backup. @throws NotFoundException for an unknown backup. */
    fun getBackup(backupId: String): Backup {
        val db = db()
        return Backup(native { db.getBackup(backupId) })
    }

    /** Every backup's id, sorted. */
    fun listBackups(): List<String> = native { db().listBackups() }.map { it.backupId }

    /** Deletes a backup. @throws NotFoundException for an unknown backup. */
    fun deleteBackup(backupId: String) {
        val db = db()
        native { db.deleteBackup(backupId) }
    }

    /**
     * Creates table [tableId] with backup [backupId]'s schema and data.
     *
     * @throws NotFoundException for an unknown backup.
     * @throws dev.sparsetable.AlreadyExistsException if the table exists.
     */
    fun restoreTable(backupId: String, tableId: String): Table {
        val db = db()
        return Table(native { db.restoreTable(backupId, tableId) })
    }

    // The Java client's ...Async variants: the same calls on the common ForkJoin pool (each is
    // one short native call; a failure completes the future with the ApiException).
    private fun <T> async(block: () -> T): CompletableFuture<T> = CompletableFuture.supplyAsync(block)

    /** [createTable] asynchronously. */
    fun createTableAsync(request: CreateTableRequest): CompletableFuture<Table> = async { createTable(request) }

    /** [getTable] asynchronously. */
    fun getTableAsync(tableId: String): CompletableFuture<Table> = async { getTable(tableId) }

    /** [listTables] asynchronously. */
    fun listTablesAsync(): CompletableFuture<List<String>> = async { listTables() }

    /** [exists] asynchronously. */
    fun existsAsync(tableId: String): CompletableFuture<Boolean> = async { exists(tableId) }

    /** [deleteTable] asynchronously. */
    fun deleteTableAsync(tableId: String): CompletableFuture<Void?> = async { deleteTable(tableId); null }

    /** [modifyFamilies] asynchronously. */
    fun modifyFamiliesAsync(request: ModifyColumnFamiliesRequest): CompletableFuture<Table> = async { modifyFamilies(request) }

    /** [updateTable] asynchronously. */
    fun updateTableAsync(request: UpdateTableRequest): CompletableFuture<Table> = async { updateTable(request) }

    /** [dropRowRange] asynchronously. */
    fun dropRowRangeAsync(tableId: String, prefix: String): CompletableFuture<Void?> = async { dropRowRange(tableId, prefix); null }

    /** [dropAllRows] asynchronously. */
    fun dropAllRowsAsync(tableId: String): CompletableFuture<Void?> = async { dropAllRows(tableId); null }

    /** [createBackup] asynchronously. */
    fun createBackupAsync(tableId: String, backupId: String): CompletableFuture<Backup> = async { createBackup(tableId, backupId) }

    /** [getBackup] asynchronously. */
    fun getBackupAsync(backupId: String): CompletableFuture<Backup> = async { getBackup(backupId) }

    /** [listBackups] asynchronously. */
    fun listBackupsAsync(): CompletableFuture<List<String>> = async { listBackups() }

    /** [deleteBackup] asynchronously. */
    fun deleteBackupAsync(backupId: String): CompletableFuture<Void?> = async { deleteBackup(backupId); null }

    /** [restoreTable] asynchronously. */
    fun restoreTableAsync(backupId: String, tableId: String): CompletableFuture<Table> = async { restoreTable(backupId, tableId) }

    /** Closes the client (the instance stays open). Idempotent. */
    override fun close() {
        closed = true
    }

    companion object {
        /** An admin client of [instance]. */
        @JvmStatic
        fun create(instance: Sparsetable) = BigtableTableAdminClient(instance)

        /** An admin client of the instance [client] works on. */
        @JvmStatic
        fun create(client: BigtableDataClient) = BigtableTableAdminClient(client.instance)
    }
}

/** A backup of a table, as the Java admin client's `Backup` (the fields an embedded instance has). */
class Backup internal constructor(info: dev.sparsetable.ffi.BackupInfo) {
    /** The backup's id. */
    val id: String = info.backupId

    /** The table it was taken from. */
    val sourceTableId: String = info.sourceTable

    /** When it was taken, in microseconds since the epoch (the database clock). */
    val startTimeMicros: Long = info.createdMicros

    /** Approximate size in bytes. */
    val sizeBytes: Long = info.sizeBytes.toLong()

    override fun toString() = "Backup(id=$id, sourceTableId=$sourceTableId, sizeBytes=$sizeBytes)"
}
