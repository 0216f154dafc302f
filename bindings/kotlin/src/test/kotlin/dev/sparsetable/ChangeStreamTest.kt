// readChangeStream against the real native engine, as the Java client is used: a table
// created with a change stream retention, its partitions, a read from a start time to an
// end time, a resume from a token, and the errors of a table without a change stream.
package dev.sparsetable

import org.junit.Test
import java.time.Duration
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertIs
import kotlin.test.assertTrue

class ChangeStreamTest {
    private fun withStream(block: (BigtableDataClient, ManualClock) -> Unit) = withTable { client, admin, clock ->
        admin.createTable("cs") {
            addFamily("cf")
            addChangeStreamRetention(Duration.ofDays(1))
        }
        block(client, clock)
    }

    @Test
    fun readChangeStreamReturnsTheWritesInCommitOrderThenCloses() = withStream { client, clock ->
        val start = clock.nowMicros
        for (k in listOf("b", "a", "c")) {
            client.mutateRow(RowMutation.create("cs", k).setCell("cf", "q", "v-$k"))
            clock.advanceMicros(1_000)
        }
        val partitions = client.generateInitialChangeStreamPartitions("cs")
        assertEquals(1, partitions.size)
        val query = ReadChangeStreamQuery.create("cs").streamPartition(partitions[0])
            .startTime(start).endTime(clock.nowMicros)
        val records = client.readChangeStream(query).toList()
        val changes = records.filterIsInstance<ChangeStreamMutation>()
        assertEquals(listOf("b", "a", "c"), changes.map { it.rowKeyUtf8 })
        val set = assertIs<Entry.SetCell>(changes[0].entries.single())
        assertEquals("cf", set.familyName)
        assertEquals("v-b", String(set.value, Charsets.UTF_8))
        assertEquals(start, set.timestamp, "server time resolved")
        assertIs<CloseStream>(records.last())

        // Resuming from the first change's token returns the two after it.
        val resumed = client.readChangeStream(
            ReadChangeStreamQuery.create("cs").streamPartition(partitions[0])
                .continuationTokens(listOf(ChangeStreamContinuationToken(partitions[0], changes[0].token)))
                .endTime(clock.nowMicros),
        ).toList().filterIsInstance<ChangeStreamMutation>()
        assertEquals(listOf("a", "c"), resumed.map { it.rowKeyUtf8 })
    }

    @Test
    fun pollReturnsWhatIsThereWithoutWaiting() = withStream { client, _ ->
        val stream = client.readChangeStream(ReadChangeStreamQuery.create("cs"))
        assertTrue(stream.poll().isEmpty())
        client.mutateRow(RowMutation.create("cs", "k").setCell("cf", "q", 1_000, "v"))
        assertEquals(MutationType.USER, assertIs<ChangeStreamMutation>(stream.poll().single()).type)
        client.mutateRow(RowMutation.create("cs", "k").deleteRow())
        val polled = stream.poll()
        // A row delete is recorded as a delete of each family the row had data in.
        assertEquals(Entry.DeleteFamily("cf"), assertIs<ChangeStreamMutation>(polled.single()).entries.single())
        stream.cancel()
        assertTrue(stream.poll().isEmpty())
    }

    @Test
    fun aTableWithoutAChangeStreamAndBadTokensAreRefused() = withStream { client, clock ->
        assertFailsWith<FailedPreconditionException> { client.generateInitialChangeStreamPartitions("t") }
        assertFailsWith<InvalidArgumentException> {
            client.readChangeStream(
                ReadChangeStreamQuery.create("cs")
                    .continuationTokens(listOf(ChangeStreamContinuationToken(ByteStringRange.unbounded(), "garbage"))),
            )
        }
        assertFailsWith<InvalidArgumentException> {
            client.readChangeStream(ReadChangeStreamQuery.create("cs").startTime(clock.nowMicros + 1))
        }
    }
}
