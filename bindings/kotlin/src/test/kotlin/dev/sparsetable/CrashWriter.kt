// The child process of DurabilityTest: opens the durable database in args[0] and writes rows
// w0, w1, ... one MutateRow each, printing "ack N" after write N returned (was acknowledged),
// until it is killed. Also prints "open" once the database is open, so the parent can try a
// second opener while this process holds the directory.
package dev.sparsetable

import dev.sparsetable.admin.BigtableTableAdminClient

object CrashWriter {
    @JvmStatic
    fun main(args: Array<String>) {
        val instance = Sparsetable.open(args[0], Durability.SYNC)
        val admin = BigtableTableAdminClient.create(instance)
        if (!admin.exists("t")) admin.createTable("t") { addFamily("cf") }
        val client = BigtableDataClient.create(instance)
        println("open")
        System.out.flush()
        var i = 0
        while (true) {
            client.mutateRow(RowMutation.create("t", "w$i").setCell("cf", "q", 1_000, "value $i"))
            println("ack $i")
            System.out.flush()
            i++
        }
    }
}
