// Shared set-up for the API tests: a fresh in-memory instance on a manual clock with one
// table, so every test starts from the same, deterministic state.
package dev.sparsetable

import dev.sparsetable.admin.BigtableTableAdminClient

/** The clock's start in every test: 2023-11-14T22:13:20Z, as the shared vectors use. */
const val T0: Long = 1_700_000_000_000_000L

/** Runs [block] with a data client and an admin client of a fresh instance holding table `t` (family `cf`). */
fun withTable(
    clock: ManualClock = ManualClock(T0),
    block: (client: BigtableDataClient, admin: BigtableTableAdminClient, clock: ManualClock) -> Unit,
) {
    BigtableDataClient.createInMemory(clock).use { client ->
        val admin = BigtableTableAdminClient.create(client)
        admin.createTable("t") { addFamily("cf") }
        block(client, admin, clock)
    }
}

fun Row.values(): List<String> = cells.map { it.valueUtf8 }

fun List<Row>.keys(): List<String> = map { it.keyUtf8 }

fun ServerStream<Row>.keys(): List<String> = use { it.map { r -> r.keyUtf8 } }
