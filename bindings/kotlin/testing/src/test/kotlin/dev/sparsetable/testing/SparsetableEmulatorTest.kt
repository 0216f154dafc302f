// The JVM test helpers against the real sparsetable-server (the `sparsetable.server.bin`
// system property the Kotlin suite sets): the JUnit 5 extension gives every test of a class the
// same running server and stops it after the class; the server can also be started and stopped
// by hand; a binary that is missing or exits at once is a clear error.
package dev.sparsetable.testing

import java.net.InetSocketAddress
import java.net.Socket
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith

private fun accepts(host: String, port: Int): Boolean =
    try {
        Socket().use { it.connect(InetSocketAddress(host, port), 2000) }
        true
    } catch (_: java.io.IOException) {
        false
    }

@ExtendWith(SparsetableEmulatorExtension::class)
class SparsetableEmulatorExtensionTest {
    @Test
    fun `a test gets the class's running server`(emulator: SparsetableEmulator) {
        assertEquals("127.0.0.1", emulator.host)
        assertTrue(emulator.isRunning)
        assertTrue(accepts(emulator.host, emulator.port))
        assertEquals("127.0.0.1:${emulator.port}", emulator.emulatorHost)
        seen += emulator
    }

    @Test
    fun `every test of the class shares it`(emulator: SparsetableEmulator) {
        assertTrue(accepts(emulator.host, emulator.port))
        seen += emulator
    }

    companion object {
        private val seen = mutableListOf<SparsetableEmulator>()

        @JvmStatic
        @AfterAll
        fun `one server for the class`() {
            assertEquals(1, seen.toSet().size)
        }
    }
}

class SparsetableEmulatorTest {
    @Test
    fun `start and close by hand, with a frozen clock`() {
        val emulator = SparsetableEmulator.start(clockMicros = 1_700_000_000_000_000)
        assertTrue(accepts(emulator.host, emulator.port))
        emulator.close()
        emulator.close()
        assertFalse(emulator.isRunning)
        assertFalse(accepts(emulator.host, emulator.port))
    }

    @Test
    fun `a missing binary or one that exits at once is a clear error`() {
        val missing = assertThrows(IllegalStateException::class.java) {
            SparsetableEmulator.start(binary = "/nonexistent/sparsetable-server")
        }
        assertTrue(missing.message!!.contains("SPARSETABLE_SERVER_BIN"), missing.message)
        val early = assertThrows(IllegalStateException::class.java) {
            SparsetableEmulator.start(args = listOf("--no-such-flag"))
        }
        assertTrue(early.message!!.contains("exited before it listened"), early.message)
    }
}
