// Test helpers for the JVM: a real sparsetable-server per test class, for code that talks to
// Bigtable through Google's Java client (or any gRPC client), as the pytest fixture and the
// npm package's `sparsetable/testing` do for Python and Node. The server runs out of process
// (the binary from `cargo install --path server`, or the one the Python wheel installs).
// Invariants: it listens on 127.0.0.1 on a port the OS picked; `close()` stops it and waits
// for it; a server that cannot start is an exception naming the binary and quoting what it
// printed, after a bounded wait, never a hang.
package dev.sparsetable.testing

import java.io.BufferedReader
import java.io.File
import java.io.InputStreamReader
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicReference
import org.junit.jupiter.api.extension.AfterAllCallback
import org.junit.jupiter.api.extension.BeforeAllCallback
import org.junit.jupiter.api.extension.ExtensionContext
import org.junit.jupiter.api.extension.ParameterContext
import org.junit.jupiter.api.extension.ParameterResolver

/**
 * A running `sparsetable-server` on 127.0.0.1. Start one with [SparsetableEmulator.start]; in
 * JUnit 5 tests let [SparsetableEmulatorExtension] start and stop it. Point Google's Java
 * client at it with `BigtableDataSettings.newBuilderForEmulator(emulator.host, emulator.port)`.
 */
class SparsetableEmulator private constructor(
    private val process: Process,
    /** The address it listens on (`127.0.0.1`). */
    val host: String,
    /** The port it listens on. */
    val port: Int,
) : AutoCloseable {
    /** `host:port`, what the `BIGTABLE_EMULATOR_HOST` variable takes. */
    val emulatorHost: String get() = "$host:$port"

    /** Whether the server process is still running. */
    val isRunning: Boolean get() = process.isAlive

    /** Stops the server and waits for it to exit (a second call does nothing). */
    override fun close() {
        if (!process.isAlive) return
        process.destroy()
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor()
        }
    }

    /** Starting servers. */
    companion object {
        private val READY = Regex("^export BIGTABLE_EMULATOR_HOST=(\\S+):(\\d+)$")

        /**
         * Starts `sparsetable-server` on a free port of 127.0.0.1 and returns once it listens.
         *
         * @param binary The server binary: this, else the `sparsetable.server.bin` system
         *   property, else `$SPARSETABLE_SERVER_BIN`, else `sparsetable-server` on `PATH`.
         * @param dataDir Keep data in this directory (`--data-dir`); in memory when null.
         * @param clockMicros Freeze the server's clock here (`--clock-micros`), for exact tests.
         * @param args More command-line flags (`sparsetable-server --help` lists them).
         * @param startupMillis How long to wait for the server to listen.
         * @throws IllegalStateException If the binary cannot be run, exits early, or does not
         *   listen in time; the message quotes what it printed.
         */
        @JvmStatic
        @JvmOverloads
        fun start(
            binary: String? = null,
            dataDir: File? = null,
            clockMicros: Long? = null,
            args: List<String> = emptyList(),
            startupMillis: Long = 30_000,
        ): SparsetableEmulator {
            val bin = binary
                ?: System.getProperty("sparsetable.server.bin")
                ?: System.getenv("SPARSETABLE_SERVER_BIN")
                ?: "sparsetable-server"
            val command = mutableListOf(bin, "--host", "127.0.0.1", "--port", "0")
            dataDir?.let { command += listOf("--data-dir", it.path) }
            clockMicros?.let { command += listOf("--clock-micros", it.toString()) }
            command += args
            val process = try {
                ProcessBuilder(command).redirectErrorStream(true).start()
            } catch (e: java.io.IOException) {
                throw IllegalStateException(
                    "$bin could not be started (${e.message}); set SPARSETABLE_SERVER_BIN or pass binary",
                    e,
                )
            }
            val printed = StringBuffer()
            val found = AtomicReference<Pair<String, Int>?>(null)
            val ready = CountDownLatch(1)
            // The server's output is read on a thread of its own, so the wait below is bounded
            // even when it prints nothing, and the pipe never fills up while the tests run.
            val reader = Thread {
                BufferedReader(InputStreamReader(process.inputStream)).useLines { lines ->
                    for (line in lines) {
                        if (found.get() != null) continue
                        printed.append(line).append('\n')
                        READY.find(line)?.let { m ->
                            found.set(m.groupValues[1] to m.groupValues[2].toInt())
                            ready.countDown()
                        }
                    }
                }
                ready.countDown()
            }
            reader.isDaemon = true
            reader.start()
            ready.await(startupMillis, TimeUnit.MILLISECONDS)
            val address = found.get()
            if (address == null) {
                // The output ends a moment before the process is reaped: give an exiting
                // server a few seconds to be seen as exited, so its error is named rightly.
                val exited = !process.isAlive || process.waitFor(5, TimeUnit.SECONDS)
                val why = if (exited) "exited before it listened (status ${process.exitValue()})" else "did not listen within $startupMillis ms"
                process.destroyForcibly()
                val tail = printed.toString().trim().lines().takeLast(20).joinToString("\n")
                throw IllegalStateException("$bin $why" + if (tail.isEmpty()) "" else "; it printed:\n$tail")
            }
            return SparsetableEmulator(process, address.first, address.second)
        }
    }
}

/**
 * A JUnit 5 extension that starts one [SparsetableEmulator] for a test class and stops it
 * after the class: `@ExtendWith(SparsetableEmulatorExtension::class)`, then take a
 * `SparsetableEmulator` parameter in a test, a `@BeforeAll` or a constructor. The binary is
 * found as [SparsetableEmulator.start] finds it.
 */
class SparsetableEmulatorExtension : BeforeAllCallback, AfterAllCallback, ParameterResolver {
    private fun store(context: ExtensionContext): ExtensionContext.Store =
        context.getStore(ExtensionContext.Namespace.create(SparsetableEmulatorExtension::class.java, context.requiredTestClass))

    /** Starts the class's server. */
    override fun beforeAll(context: ExtensionContext) {
        store(context).put(KEY, SparsetableEmulator.start())
    }

    /** Stops the class's server. */
    override fun afterAll(context: ExtensionContext) {
        store(context).remove(KEY, SparsetableEmulator::class.java)?.close()
    }

    /** Whether the parameter is a [SparsetableEmulator]. */
    override fun supportsParameter(parameterContext: ParameterContext, extensionContext: ExtensionContext): Boolean =
        parameterContext.parameter.type == SparsetableEmulator::class.java

    /** The class's server. */
    override fun resolveParameter(parameterContext: ParameterContext, extensionContext: ExtensionContext): Any =
        store(extensionContext).get(KEY, SparsetableEmulator::class.java)
            ?: throw IllegalStateException("no SparsetableEmulator: the extension starts one per test class")

    private companion object {
        const val KEY = "emulator"
    }
}
