// The tests run from the built jar: the native library is a resource inside it, and JNA was
// given no library path, so that resource is the only copy it can have loaded. The pom ships
// in the jar where Maven puts it.
package dev.sparsetable

import org.junit.Test
import kotlin.test.assertEquals
import kotlin.test.assertNotNull
import kotlin.test.assertNull
import kotlin.test.assertTrue

class PackagingTest {
    @Test
    fun theNativeLibraryIsLoadedFromTheJar() {
        assertNull(System.getProperty("jna.library.path"), "the suite must not point JNA at target/")
        val lib = assertNotNull(javaClass.classLoader.getResource("linux-x86-64/libsparsetable_kotlin.so"))
        assertEquals("jar", lib.protocol, "$lib")
        assertTrue(Regex("sparsetable(-[0-9.]+)?\\.jar!").containsMatchIn(lib.path), "$lib")
        // And it works: a native call succeeds.
        Sparsetable.inMemory().use { it.noop() }
        val api = assertNotNull(Sparsetable::class.java.protectionDomain.codeSource).location
        assertTrue(api.path.endsWith(".jar"), "API classes come from $api")
    }

    @Test
    fun thePomShipsInTheJarWithItsDependencies() {
        val pom = assertNotNull(javaClass.classLoader.getResource("META-INF/maven/dev.sparsetable/sparsetable/pom.xml")).readText()
        assertTrue("<artifactId>jna</artifactId>" in pom)
        assertTrue("<artifactId>kotlin-stdlib</artifactId>" in pom)
        assertTrue("@VERSION@" !in pom)
    }
}
