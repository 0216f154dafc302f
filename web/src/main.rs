//! Entry point: mounts the playground into the page (browser builds only).

#[cfg(target_arch = "wasm32")]
fn main() {
    yew::Renderer::<sparsetable_web::components::app::App>::new().render();
}

/// The playground only runs in a browser; the host build exists for the reducer's tests.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the playground runs in a browser: build it with scripts/playground.sh");
    std::process::exit(2);
}
