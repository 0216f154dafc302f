// How text becomes bytes in this API: String overloads stand for their UTF-8 bytes, as
// `ByteString.copyFromUtf8` does in Google's Java client. One definition so every overload
// agrees.
package dev.sparsetable

internal fun String.utf8(): ByteArray = toByteArray(Charsets.UTF_8)
