//! `uniffi-bindgen`: reads the metadata that uniffi's proc-macros embed in the Sparsetable
//! cdylib and writes the Kotlin glue for it (`generate --library <.so> --language kotlin`).
//! It holds no logic of its own; uniffi's own command line does the work.

fn main() {
    uniffi::uniffi_bindgen_main()
}
