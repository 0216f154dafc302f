// JVM benchmark: Sparsetable (through the jar, on the JVM) beside what JVM and Android
// developers use instead, SQLite through JDBC (xerial sqlite-jdbc) and H2, all in memory, in
// one process and one run, so the ratios compare like with like on the same (busy) machine.
// Operations: point writes (one row per call), batched writes (100 rows per call/transaction),
// point reads by key, full scans, and the binding's per-call overhead (an empty native call).
// Usage: bindings/kotlin/bench/run.sh [N]; prints one line per operation and engine.
import dev.sparsetable.BigtableDataClient
import dev.sparsetable.BulkMutation
import dev.sparsetable.Query
import dev.sparsetable.RowMutation
import dev.sparsetable.RowMutationEntry
import dev.sparsetable.Sparsetable
import dev.sparsetable.admin.BigtableTableAdminClient
import java.sql.Connection
import java.sql.DriverManager
import kotlin.random.Random

private val VALUE = ByteArray(100) { it.toByte() }

private fun key(i: Int) = "user%08d".format(i)

/** Best of [rounds] timings of [block], in nanoseconds per operation of [ops] operations. */
private fun measure(ops: Int, rounds: Int = 3, block: () -> Unit): Double {
    var best = Long.MAX_VALUE
    repeat(rounds) {
        val t = System.nanoTime()
        block()
        best = minOf(best, System.nanoTime() - t)
    }
    return best.toDouble() / ops
}

private interface Engine {
    val name: String
    fun reset()
    fun pointWrites(n: Int)
    fun batchedWrites(n: Int, batch: Int)
    fun pointReads(keys: IntArray): Int
    fun scan(): Int
}

private class SparsetableEngine : Engine {
    override val name = "sparsetable"
    private var instance = Sparsetable.inMemory()
    private var client = BigtableDataClient.create(instance)
    val raw get() = instance

    override fun reset() {
        client.close(); instance.close()
        instance = Sparsetable.inMemory()
        client = BigtableDataClient.create(instance)
        BigtableTableAdminClient.create(instance).createTable("t") { addFamily("cf") }
    }

    override fun pointWrites(n: Int) {
        for (i in 0 until n) client.mutateRow(RowMutation.create("t", key(i)).setCell("cf", "v", 1_000, VALUE))
    }

    override fun batchedWrites(n: Int, batch: Int) {
        var i = 0
        while (i < n) {
            val bulk = BulkMutation.create("t")
            for (j in i until minOf(n, i + batch)) bulk.add(RowMutationEntry.create(key(j)).setCell("cf", "v", 1_000, VALUE))
            client.bulkMutateRows(bulk)
            i += batch
        }
    }

    override fun pointReads(keys: IntArray): Int = keys.count { client.readRow("t", key(it)) != null }

    override fun scan(): Int = client.readRows(Query.create("t")).count()
}

private class JdbcEngine(override val name: String, private val url: String) : Engine {
    private var conn: Connection = DriverManager.getConnection(url)

    override fun reset() {
        conn.close()
        conn = DriverManager.getConnection(url)
        conn.createStatement().use {
            it.execute("DROP TABLE IF EXISTS t")
            it.execute("CREATE TABLE t (k VARCHAR(64) PRIMARY KEY, v VARBINARY(200))")
        }
        conn.autoCommit = true
    }

    override fun pointWrites(n: Int) {
        conn.prepareStatement("INSERT INTO t (k, v) VALUES (?, ?)").use { st ->
            for (i in 0 until n) {
                st.setString(1, key(i)); st.setBytes(2, VALUE); st.executeUpdate()
            }
        }
    }

    override fun batchedWrites(n: Int, batch: Int) {
        conn.autoCommit = false
        conn.prepareStatement("INSERT INTO t (k, v) VALUES (?, ?)").use { st ->
            var i = 0
            while (i < n) {
                for (j in i until minOf(n, i + batch)) {
                    st.setString(1, key(j)); st.setBytes(2, VALUE); st.addBatch()
                }
                st.executeBatch()
                conn.commit()
                i += batch
            }
        }
        conn.autoCommit = true
    }

    override fun pointReads(keys: IntArray): Int = conn.prepareStatement("SELECT v FROM t WHERE k = ?").use { st ->
        keys.count { k ->
            st.setString(1, key(k))
            st.executeQuery().use { rs -> rs.next() && rs.getBytes(1) != null }
        }
    }

    override fun scan(): Int = conn.createStatement().use { st ->
        st.executeQuery("SELECT k, v FROM t ORDER BY k").use { rs ->
            var n = 0
            while (rs.next()) { rs.getString(1); rs.getBytes(2); n++ }
            n
        }
    }
}

fun main(args: Array<String>) {
    val n = args.getOrNull(0)?.toInt() ?: 20_000
    val sparse = SparsetableEngine()
    val engines = listOf(
        sparse,
        JdbcEngine("sqlite-jdbc", "jdbc:sqlite::memory:"),
        JdbcEngine("h2", "jdbc:h2:mem:bench;DB_CLOSE_DELAY=-1"),
    )
    val reads = IntArray(n) { Random(42).nextInt(n) }.let { r -> val rnd = Random(7); IntArray(n) { rnd.nextInt(n) } }
    val results = linkedMapOf<String, MutableMap<String, Double>>()
    fun record(op: String, engine: String, ns: Double) {
        results.getOrPut(op) { linkedMapOf() }[engine] = ns
        println("%-16s %-12s %10.0f ns/op".format(op, engine, ns))
    }
    // Warm-up: JIT, class loading, native library load.
    for (e in engines) { e.reset(); e.pointWrites(2_000); e.pointReads(reads.copyOf(2_000)); e.scan() }
    for (e in engines) {
        record("point write", e.name, measure(n) { e.reset(); e.pointWrites(n) })
        record("batched write", e.name, measure(n) { e.reset(); e.batchedWrites(n, 100) })
        check(e.pointReads(reads) == n) { "${e.name} lost rows" }
        record("point read", e.name, measure(n) { e.pointReads(reads) })
        record("scan (per row)", e.name, measure(n * 5) { repeat(5) { check(e.scan() == n) } })
    }
    val noop = measure(1_000_000) { repeat(1_000_000) { sparse.raw.noop() } }
    println("%-16s %-12s %10.1f ns/op".format("empty FFI call", "sparsetable", noop))
    println()
    println("| operation (n=$n, in memory) | sparsetable ns/op | sqlite-jdbc ns/op | h2 ns/op | sqlite / sparsetable | h2 / sparsetable |")
    println("|---|---|---|---|---|---|")
    for ((op, m) in results) {
        val s = m.getValue("sparsetable"); val q = m.getValue("sqlite-jdbc"); val h = m.getValue("h2")
        println("| $op | %.0f | %.0f | %.0f | %.2f | %.2f |".format(s, q, h, q / s, h / s))
    }
    println("| empty FFI call | %.1f | | | | |".format(noop))
}
