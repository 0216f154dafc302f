// Exceptions of the Kotlin API, named after gRPC status codes as in Google's gax
// (`com.google.api.gax.rpc.NotFoundException`, ...), and the ONE place that turns the native
// layer's `SparsetableException` into them. Every public call reaches native code through
// `native { }`, so no native exception escapes untranslated.
package dev.sparsetable

import dev.sparsetable.ffi.SparsetableException

/** gRPC's status codes that Sparsetable reports, with their wire numbers (every one but OK). */
enum class StatusCode(val value: Int) {
    /** The call was cancelled (with Sparsetable: an injected fault). */
    CANCELLED(1),
    INVALID_ARGUMENT(3),
    DEADLINE_EXCEEDED(4),
    NOT_FOUND(5),
    ALREADY_EXISTS(6),
    RESOURCE_EXHAUSTED(8),
    /** The caller may not do this (a request outside an authorized view). */
    PERMISSION_DENIED(7),
    FAILED_PRECONDITION(9),
    ABORTED(10),
    OUT_OF_RANGE(11),
    UNIMPLEMENTED(12),
    INTERNAL(13),
    UNAVAILABLE(14),
    DATA_LOSS(15),

    /** The request has no valid credentials (with Sparsetable: an injected fault). */
    UNAUTHENTICATED(16),

    /**
     * An error with no better code (with Sparsetable: an injected fault), or a code this
     * version of the binding does not know; the exception's message names it.
     */
    UNKNOWN(2),
}

/**
 * A failed call, as gax's `ApiException`: [statusCode] is the gRPC code, [isRetryable] says
 * whether the same call may succeed later. Catch a subclass to handle one code.
 */
sealed class ApiException(
    message: String,
    /** The gRPC status code of the failure, as gax's `ApiException.getStatusCode()`. */
    val statusCode: StatusCode,
    /** Whether the same call may succeed if tried again: UNAVAILABLE, ABORTED, RESOURCE_EXHAUSTED. */
    val isRetryable: Boolean,
) : RuntimeException(message)

/** The request is malformed (bad key, limit, timestamp, range, schema). */
class InvalidArgumentException(message: String) : ApiException(message, StatusCode.INVALID_ARGUMENT, false)

/** The call ran past its deadline (with Sparsetable: an injected fault); retry. */
class DeadlineExceededException(message: String) : ApiException(message, StatusCode.DEADLINE_EXCEEDED, true)

/** A table or column family does not exist. */
class NotFoundException(message: String) : ApiException(message, StatusCode.NOT_FOUND, false)

/** A table or column family to create exists already. */
class AlreadyExistsException(message: String) : ApiException(message, StatusCode.ALREADY_EXISTS, false)

/** A resource ran out; retry later. */
class ResourceExhaustedException(message: String) : ApiException(message, StatusCode.RESOURCE_EXHAUSTED, true)

/** The database's state forbids the call, e.g. deleting a protected table. */
class FailedPreconditionException(message: String) : ApiException(message, StatusCode.FAILED_PRECONDITION, false)

/** The call was aborted by a conflict; retry. */
class AbortedException(message: String) : ApiException(message, StatusCode.ABORTED, true)

/** A value is outside its valid range. */
class OutOfRangeException(message: String) : ApiException(message, StatusCode.OUT_OF_RANGE, false)

/** The operation is not implemented. */
class UnimplementedException(message: String) : ApiException(message, StatusCode.UNIMPLEMENTED, false)

/** An invariant of the engine broke: a bug, never a caller's mistake. */
class InternalException(message: String) : ApiException(message, StatusCode.INTERNAL, false)

/** The storage is temporarily unavailable; retry. */
class UnavailableException(message: String) : ApiException(message, StatusCode.UNAVAILABLE, true)

/** Stored data failed a checksum or could not be decoded. */
class DataLossException(message: String) : ApiException(message, StatusCode.DATA_LOSS, false)

/** UNKNOWN (an injected fault), or a code this binding does not know yet (the engine gained one). */
class UnknownException(message: String) : ApiException(message, StatusCode.UNKNOWN, false)

/** The call was cancelled (with Sparsetable: only an injected fault), as gax's `CancelledException`. */
class CancelledException(message: String) : ApiException(message, StatusCode.CANCELLED, false)

/** The request has no valid credentials (with Sparsetable: only an injected fault), as gax's `UnauthenticatedException`. */
class UnauthenticatedException(message: String) : ApiException(message, StatusCode.UNAUTHENTICATED, false)

/** The caller may not do this: a request reaching outside an authorized view, as gax's `PermissionDeniedException`. */
class PermissionDeniedException(message: String) : ApiException(message, StatusCode.PERMISSION_DENIED, false)

/** One entry of a [bulkMutateRows][BigtableDataClient.bulkMutateRows] call that failed. */
class FailedMutation internal constructor(
    /** The entry's position in the [BulkMutation]. */
    val index: Int,
    /** Why it failed. */
    val error: ApiException,
) {
    override fun toString() = "FailedMutation(index=$index, error=${error.message})"
}

/**
 * Some entries of a bulk mutation failed; the others were applied. [statusCode] is the first
 * failure's; the call is retryable if every failure is.
 */
class MutateRowsException internal constructor(val failedMutations: List<FailedMutation>) : ApiException(
    "${failedMutations.size} of the entries failed: $failedMutations",
    failedMutations.first().error.statusCode,
    failedMutations.all { it.error.isRetryable },
)

/** The native error's code and reason, whichever variant carries them. */
internal fun toApiException(e: SparsetableException): ApiException {
    val (code, reason) = when (e) {
        is SparsetableException.InvalidRequest -> e.code to e.reason
        is SparsetableException.NotFound -> e.code to e.reason
        is SparsetableException.AlreadyExists -> e.code to e.reason
        is SparsetableException.FailedPrecondition -> e.code to e.reason
        is SparsetableException.Retryable -> e.code to e.reason
        is SparsetableException.Internal -> e.code to e.reason
    }
    return toApiException(code, reason).also { it.initCause(e) }
}

/** THE mapping from a gRPC code name (as the engine reports it) to the Kotlin exception. */
internal fun toApiException(code: String, reason: String): ApiException {
    val message = "$code: $reason"
    return when (code) {
        "INVALID_ARGUMENT" -> InvalidArgumentException(message)
        "DEADLINE_EXCEEDED" -> DeadlineExceededException(message)
        "NOT_FOUND" -> NotFoundException(message)
        "ALREADY_EXISTS" -> AlreadyExistsException(message)
        "RESOURCE_EXHAUSTED" -> ResourceExhaustedException(message)
        "FAILED_PRECONDITION" -> FailedPreconditionException(message)
        "ABORTED" -> AbortedException(message)
        "OUT_OF_RANGE" -> OutOfRangeException(message)
        "UNIMPLEMENTED" -> UnimplementedException(message)
        "INTERNAL" -> InternalException(message)
        "UNAVAILABLE" -> UnavailableException(message)
        "DATA_LOSS" -> DataLossException(message)
        "CANCELLED" -> CancelledException(message)
        "UNAUTHENTICATED" -> UnauthenticatedException(message)
        "PERMISSION_DENIED" -> PermissionDeniedException(message)
        else -> UnknownException(message)
    }
}

/** Runs a native call, translating its error. */
internal inline fun <T> native(block: () -> T): T =
    try {
        block()
    } catch (e: SparsetableException) {
        throw toApiException(e)
    }
