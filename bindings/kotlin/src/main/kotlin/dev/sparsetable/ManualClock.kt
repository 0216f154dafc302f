// A clock that only moves when told to. Databases built on it (`Sparsetable.inMemory(clock)`)
// read the time from it alone: server-side timestamps (-1) and max-age GC become
// deterministic, which tests and time-travel demos need.
package dev.sparsetable

import java.time.Duration
import java.time.Instant
import java.time.temporal.ChronoUnit
import dev.sparsetable.ffi.ManualClock as NativeManualClock

/** A manual clock in microseconds since the Unix epoch. Thread-safe. */
class ManualClock(startMicros: Long) {
    internal val native = NativeManualClock(startMicros)

    /** The current time in microseconds. */
    val nowMicros: Long get() = native.nowMicros()

    /** The current time as an [Instant]. */
    val instant: Instant get() = Instant.EPOCH.plus(nowMicros, ChronoUnit.MICROS)

    /** Sets the time. */
    fun setMicros(micros: Long) = native.setMicros(micros)

    /** Moves the time by [deltaMicros] (negative moves it back). */
    fun advanceMicros(deltaMicros: Long) = native.advanceMicros(deltaMicros)

    /** Moves the time by [duration], truncated to microseconds. */
    fun advance(duration: Duration) = advanceMicros(durationToMicros(duration, "duration"))

    companion object {
        /** A clock starting at [instant]. */
        @JvmStatic
        fun at(instant: Instant): ManualClock =
            ManualClock(durationToMicros(Duration.between(Instant.EPOCH, instant), "instant"))
    }
}

/** A [Duration] in whole microseconds; [InvalidArgumentException] if it does not fit a Long. */
internal fun durationToMicros(duration: Duration, field: String): Long =
    try {
        Math.addExact(Math.multiplyExact(duration.seconds, 1_000_000L), duration.nano / 1_000L)
    } catch (e: ArithmeticException) {
        throw InvalidArgumentException("INVALID_ARGUMENT: $field $duration does not fit in 64-bit microseconds")
    }
