// The README's Kotlin example: an in-memory Sparsetable on a manual clock, used through the
// Bigtable-shaped clients. scripts/suites/kotlin.sh compiles and runs it, so it stays true.
import dev.sparsetable.BigtableDataClient
import dev.sparsetable.ManualClock
import dev.sparsetable.NotFoundException
import dev.sparsetable.Query
import dev.sparsetable.RowMutation
import dev.sparsetable.admin.BigtableTableAdminClient
import dev.sparsetable.admin.CreateTableRequest
import dev.sparsetable.admin.GCRULES

fun main() {
    val clock = ManualClock(1_700_000_000_000_000) // microseconds since the epoch
    BigtableDataClient.createInMemory(clock).use { client ->
        val admin = BigtableTableAdminClient.create(client)
        admin.createTable(CreateTableRequest.of("users").addFamily("profile", GCRULES.maxVersions(2)))

        client.mutateRow(RowMutation.create("users", "alice").setCell("profile", "name", 1_000, "Alice"))
        client.mutateRow("users", "bob") {           // the same, as a Kotlin DSL
            setCell("profile", "name", "Bob")         // no timestamp: the database's clock
            setCell("profile", "email".toByteArray(), 2_000, byteArrayOf(0x62, 0x40))
        }

        val alice = client.readRow("users", "alice")!!
        println("${alice.keyUtf8}: ${alice.cells.map { "${it.family}:${it.qualifierUtf8}@${it.timestamp}=${it.valueUtf8}" }}")

        for (row in client.readRows(Query.create("users").prefix("b").limit(10))) {
            println("${row.keyUtf8} has ${row.cells.size} cells, newest name ${row.getCells("profile", "name")[0].valueUtf8}")
        }

        try {
            client.readRow("no-such-table", "r")
        } catch (e: NotFoundException) {
            println("${e.statusCode}: retryable=${e.isRetryable}")
        }
    }
}
