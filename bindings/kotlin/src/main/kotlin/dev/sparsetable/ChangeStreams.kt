// Change streams, shaped like the Java client's `readChangeStream` and
// `generateInitialChangeStreamPartitions` (com.google.cloud.bigtable.data.v2.models:
// ReadChangeStreamQuery, ChangeStreamRecord, ChangeStreamMutation, CloseStream,
// ChangeStreamContinuationToken), over the embedded engine. Each call converts and makes one
// native call; where a read starts, what it returns and when it ends are the core's rules
// (docs/replication.md, "Change streams"). Heartbeats are not sent: an embedded reader polls.
package dev.sparsetable

import dev.sparsetable.ffi.ChangeStream as NativeChangeStream
import dev.sparsetable.ffi.ChangeStreamRecord as NativeRecord
import dev.sparsetable.ffi.ContinuationToken as NativeToken
import dev.sparsetable.ffi.Mutation as NativeMutation
import java.time.Instant

/** Where a read of one piece of a partition left off. */
class ChangeStreamContinuationToken(val partition: ByteStringRange, val token: String) {
    internal fun toNative() = NativeToken(partition.toNative(), token)
}

/** What to read of a table's change stream: a partition, from a time or from tokens, until a time. */
class ReadChangeStreamQuery private constructor(val tableId: String) {
    internal var partition: ByteStringRange = ByteStringRange.unbounded()
    internal var startMicros: Long? = null
    internal var endMicros: Long? = null
    internal val tokens = mutableListOf<ChangeStreamContinuationToken>()

    /** The partition to read (from [BigtableDataClient.generateInitialChangeStreamPartitions]). */
    fun streamPartition(range: ByteStringRange): ReadChangeStreamQuery = apply { partition = range }

    /** Starts with the changes committed at or after [time]. */
    fun startTime(time: Instant): ReadChangeStreamQuery = apply { startMicros = micros(time) }

    /** Starts with the changes committed at or after [micros] since the epoch. */
    fun startTime(micros: Long): ReadChangeStreamQuery = apply { startMicros = micros }

    /** Ends the stream once the engine's clock reaches [time]. */
    fun endTime(time: Instant): ReadChangeStreamQuery = apply { endMicros = micros(time) }

    /** Ends the stream once the engine's clock reaches [micros] since the epoch. */
    fun endTime(micros: Long): ReadChangeStreamQuery = apply { endMicros = micros }

    /** Resumes where [tokens] left off; their partitions must cover the query's exactly. */
    fun continuationTokens(tokens: List<ChangeStreamContinuationToken>): ReadChangeStreamQuery =
        apply { this.tokens.clear(); this.tokens += tokens }

    companion object {
        /** A query of [tableId]'s change stream (the whole key space, from now). */
        @JvmStatic
        fun create(tableId: String) = ReadChangeStreamQuery(tableId)

        private fun micros(t: Instant): Long = Math.addExact(Math.multiplyExact(t.epochSecond, 1_000_000L), (t.nano / 1000).toLong())
    }
}

/** What a change stream returns. */
sealed interface ChangeStreamRecord

/** Who made a change. */
enum class MutationType { USER, GARBAGE_COLLECTION }

/** One mutation of a [ChangeStreamMutation]. */
sealed interface Entry {
    /** A value written. */
    data class SetCell(val familyName: String, val qualifier: ByteArray, val timestamp: Long, val value: ByteArray) : Entry

    /** A column's cells deleted in `[startMicros, endMicros)` (null end: unbounded). */
    data class DeleteCells(val familyName: String, val qualifier: ByteArray, val startMicros: Long, val endMicros: Long?) : Entry

    /** A family's cells deleted. */
    data class DeleteFamily(val familyName: String) : Entry

    /** The whole row deleted (the engine records a row delete as [DeleteFamily] entries, one per family with data, as Bigtable does; this entry is for completeness). */
    object DeleteRow : Entry

    /** An int64 merged into an aggregate cell. */
    data class AddToCell(val familyName: String, val qualifier: ByteArray, val timestamp: Long, val input: Long) : Entry

    /** An aggregate state merged into a cell. */
    data class MergeToCell(val familyName: String, val qualifier: ByteArray, val timestamp: Long, val state: ByteArray) : Entry
}

/** One committed change of one row. */
class ChangeStreamMutation internal constructor(
    /** The row. */
    val rowKey: ByteArray,
    /** Who made the change: a user's write, or cells a family's GC rule collected. */
    val type: MutationType,
    /** The cluster that committed it. */
    val sourceClusterId: String,
    /** When it committed. */
    val commitTimestamp: Instant,
    /** Orders changes with the same commit time. */
    val tieBreaker: Int,
    /** Resume here to read what follows. */
    val token: String,
    /** No change committed before this is still to come. */
    val estimatedLowWatermark: Instant,
    /** Its mutations, in order. */
    val entries: List<Entry>,
) : ChangeStreamRecord {
    /** The row key as UTF-8. */
    val rowKeyUtf8: String get() = String(rowKey, Charsets.UTF_8)
}

/** The end of a stream: at its end time (no new partitions) or because its partition changed. */
class CloseStream internal constructor(
    /** One token per piece of the old partition (empty at the end time). */
    val changeStreamContinuationTokens: List<ChangeStreamContinuationToken>,
    /** The partitions that now cover the old one (empty at the end time). */
    val newPartitions: List<ByteStringRange>,
) : ChangeStreamRecord

/**
 * An open change stream. Iterating returns the changes in commit order and, last, a
 * [CloseStream]; when nothing new has been committed it waits (polling every few
 * milliseconds) until something is, or until [cancel]. [poll] returns what is there now
 * without waiting.
 */
class ChangeStream internal constructor(private val native: NativeChangeStream) : Iterable<ChangeStreamRecord>, AutoCloseable {
    @Volatile
    private var done = false

    /** The records available now (empty if none, or once the stream ended). */
    fun poll(): List<ChangeStreamRecord> {
        if (done) return emptyList()
        val records = native { native.poll() }.map { it.toRecord() }
        if (records.lastOrNull() is CloseStream) done = true
        return records
    }

    override fun iterator(): Iterator<ChangeStreamRecord> = object : Iterator<ChangeStreamRecord> {
        private val buffer = ArrayDeque<ChangeStreamRecord>()

        override fun hasNext(): Boolean {
            while (buffer.isEmpty() && !done) {
                buffer += poll()
                if (buffer.isEmpty() && !done) Thread.sleep(POLL_MILLIS)
            }
            return buffer.isNotEmpty()
        }

        override fun next(): ChangeStreamRecord {
            if (!hasNext()) throw NoSuchElementException()
            return buffer.removeFirst()
        }
    }

    /** Stops the stream; iteration ends. */
    fun cancel() {
        done = true
        native.cancel()
    }

    override fun close() = cancel()

    private companion object {
        const val POLL_MILLIS = 5L
    }
}

private fun instant(micros: Long): Instant = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000)

private fun NativeMutation.toEntry(): Entry = when (this) {
    is NativeMutation.SetCell -> Entry.SetCell(family, qualifier, timestampMicros, value)
    is NativeMutation.DeleteFromColumn -> Entry.DeleteCells(family, qualifier, startTimestampMicros, endTimestampMicros)
    is NativeMutation.DeleteFromFamily -> Entry.DeleteFamily(family)
    is NativeMutation.DeleteFromRow -> Entry.DeleteRow
    is NativeMutation.AddToCell -> Entry.AddToCell(family, qualifier, timestampMicros, input)
    is NativeMutation.MergeToCell -> Entry.MergeToCell(family, qualifier, timestampMicros, state)
}

private fun NativeRecord.toRecord(): ChangeStreamRecord = when (this) {
    is NativeRecord.Mutation -> ChangeStreamMutation(
        rowKey, if (garbageCollection) MutationType.GARBAGE_COLLECTION else MutationType.USER,
        sourceClusterId, instant(commitMicros), tiebreaker, token,
        instant(commitMicros), mutations.map { it.toEntry() },
    )
    is NativeRecord.CloseStream -> CloseStream(
        continuationTokens.map { ChangeStreamContinuationToken(ByteStringRange.fromNative(it.partition), it.token) },
        newPartitions.map { ByteStringRange.fromNative(it) },
    )
}
