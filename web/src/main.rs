//! Entry point (browser builds only). The same module runs twice: on the page it mounts the
//! playground; in the engine's Web Worker (`worker.js` loads it) it runs the engine loop.

#[cfg(target_arch = "wasm32")]
fn main() {
    if sparsetable_web::worker::in_worker() {
        sparsetable_web::worker::run();
    } else {
        yew::Renderer::<sparsetable_web::components::app::App>::new().render();
    }
}

/// The playground only runs in a browser; the host build exists for the reducer's tests.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the playground runs in a browser: build it with scripts/playground.sh");
    std::process::exit(2);
}
