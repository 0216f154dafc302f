// The data client's settings, shaped like `com.google.cloud.bigtable.data.v2.BigtableDataSettings`:
// which embedded instance the client uses (in place of a project and instance id) and the app
// profile its data calls go through. Holds values only; routing is the core's.
package dev.sparsetable

/**
 * What a [BigtableDataClient] connects to: an [instance] and the [appProfileId] its data calls
 * go through.
 *
 * ```
 * val settings = BigtableDataSettings.newBuilder().setInstance(instance).setAppProfileId("to-c1").build()
 * BigtableDataClient.create(settings).use { client -> ... }
 * ```
 */
class BigtableDataSettings private constructor(
    /** The instance the client reads and writes. */
    val instance: Sparsetable,
    /** The app profile of every data call (`""`: the instance's default profile). */
    val appProfileId: String,
) {
    /** A builder that starts from these settings. */
    fun toBuilder(): Builder = Builder().setInstance(instance).setAppProfileId(appProfileId)

    override fun toString() = "BigtableDataSettings(appProfileId=\"$appProfileId\")"

    /** Builds [BigtableDataSettings]; the instance is required. */
    class Builder internal constructor() {
        private var instance: Sparsetable? = null
        private var appProfileId = ""

        /** The instance the client will use. */
        fun setInstance(instance: Sparsetable): Builder = apply { this.instance = instance }

        /** The app profile of every data call (`""`, the default: the instance's default profile). */
        fun setAppProfileId(appProfileId: String): Builder = apply { this.appProfileId = appProfileId }

        /** The app profile set so far. */
        fun getAppProfileId(): String = appProfileId

        /** The settings; throws IllegalStateException without an instance. */
        fun build(): BigtableDataSettings =
            BigtableDataSettings(checkNotNull(instance) { "BigtableDataSettings needs setInstance(...)" }, appProfileId)
    }

    companion object {
        /** A builder of settings. */
        @JvmStatic
        fun newBuilder(): Builder = Builder()
    }
}
