//! The page's side of the engine worker: starts it, sends it requests, and routes its replies
//! (updates to the views, answers to whoever asked, how each save of the session went).
//!
//! The worker is `worker.js` beside the page, a module worker that runs the same wasm. The
//! page's first message to it is the page's own compiled `WebAssembly.Module`, which the
//! worker instantiates: the wasm is downloaded and compiled once per visit, not once per
//! thread. Until the worker says it is loaded nothing else is sent; then the first request
//! starts the engine with the session to open: a `#s=` share link's, else the one the worker
//! keeps in IndexedDB, else one an older version of the page kept in localStorage (removed
//! once the worker has saved). Requests are answered in the order sent.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};
use yew::Callback;

use crate::remote::{decode_reply, encode, Answer, Reply, Request, Update};
use crate::state::{Action, ShownError};

/// Where earlier versions of the page kept the session (localStorage); now only read once.
pub const LEGACY_STORAGE_KEY: &str = "sparsetable-playground-session";

type Waiter = Box<dyn FnOnce(Result<Answer, ShownError>)>;

/// A handle on the engine worker; clones share it.
#[derive(Clone)]
pub struct Client {
    worker: Worker,
    next_id: Rc<Cell<u32>>,
    waiting: Rc<RefCell<BTreeMap<u32, Waiter>>>,
}

impl PartialEq for Client {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.waiting, &other.waiting)
    }
}

/// localStorage, if the page may use it.
fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// The session of the link the page was opened with.
fn linked_session() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    hash.strip_prefix("#s=").map(str::to_owned)
}

/// A session an earlier version of the page kept in localStorage.
fn legacy_session() -> Option<String> {
    storage()?.get_item(LEGACY_STORAGE_KEY).ok().flatten()
}

impl Client {
    /// Starts the worker. `on_update` receives every change to the views, the updates that
    /// arrived within one animation frame together (a burst of actions redraws once per
    /// frame); `on_saved` the result of each save to browser storage, in words; `on_failure`
    /// why the worker could not load or stopped (its script or module failed, or it crashed).
    ///
    /// # Errors
    /// The browser's, if it cannot start a module worker.
    pub fn spawn(
        on_update: Callback<Vec<Update>>,
        on_saved: Callback<String>,
        on_failure: Callback<String>,
    ) -> Result<Self, JsValue> {
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options("./worker.js", &options)?;
        // The module this page runs, so the worker need not fetch and compile it again (a
        // Module is cloned to a worker of the same origin without copying its code).
        worker.post_message(&wasm_bindgen::module())?;
        let client = Client {
            worker,
            next_id: Rc::new(Cell::new(0)),
            waiting: Rc::default(),
        };
        let batch = Batch::new(on_update);
        let on_message = {
            let client = client.clone();
            Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| {
                // Text, or `[text, bytes]` when a grid travels beside it.
                let data = e.data();
                let (text, grid) = match data.dyn_ref::<js_sys::Array>() {
                    Some(parts) => (
                        parts.get(0).as_string().unwrap_or_default(),
                        parts
                            .get(1)
                            .dyn_ref::<js_sys::Uint8Array>()
                            .map(js_sys::Uint8Array::to_vec),
                    ),
                    None => (data.as_string().unwrap_or_default(), None),
                };
                match decode_reply(&text, grid.as_deref()) {
                    Ok(Reply::Loaded) => client.send(&Request::Start {
                        // The clock starts at the page's load time, on a whole millisecond.
                        now_micros: (js_sys::Date::now() as i64) * 1000,
                        session: linked_session(),
                        stored: legacy_session(),
                    }),
                    Ok(Reply::Update(update)) => batch.push(*update),
                    Ok(Reply::Answer { id, result }) => {
                        let waiter = client.waiting.borrow_mut().remove(&id);
                        if let Some(waiter) = waiter {
                            waiter(result);
                        }
                    }
                    Ok(Reply::Saved(result)) => on_saved.emit(store(result)),
                    Err(e) => batch.push(Update::error(e)),
                }
            })
        };
        client
            .worker
            .set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // The handler lives as long as the page.
        on_message.forget();
        let on_error = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
            // An ErrorEvent when the worker's code threw; a plain Event when its script could
            // not be fetched or parsed.
            let message = e
                .dyn_ref::<web_sys::ErrorEvent>()
                .map(web_sys::ErrorEvent::message)
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| {
                    "its script (worker.js or the module it loads) did not load".into()
                });
            on_failure.emit(message);
        });
        client
            .worker
            .set_onerror(Some(on_error.as_ref().unchecked_ref()));
        on_error.forget();
        client.save_when_leaving();
        Ok(client)
    }

    /// Asks the worker to save at once when the page is hidden (`visibilitychange`, the last
    /// event a mobile browser reliably sends) or left (`pagehide`: a reload or navigation), so
    /// no change waits out the save's debounce while the page goes away.
    fn save_when_leaving(&self) {
        let Some(window) = web_sys::window() else {
            return;
        };
        let client = self.clone();
        let on_leave = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
            // `pagehide` always; `visibilitychange` only when the page became hidden.
            let hidden = e.type_() == "pagehide"
                || web_sys::window()
                    .and_then(|w| w.document())
                    .is_none_or(|d| d.visibility_state() == web_sys::VisibilityState::Hidden);
            if hidden {
                client.send(&Request::SaveNow);
            }
        });
        let handler = on_leave.as_ref().unchecked_ref();
        let _ = window.add_event_listener_with_callback("pagehide", handler);
        if let Some(document) = window.document() {
            let _ = document.add_event_listener_with_callback("visibilitychange", handler);
        }
        // The handler lives as long as the page.
        on_leave.forget();
    }

    fn send(&self, request: &Request) {
        if let Ok(text) = encode(request) {
            let _ = self.worker.post_message(&JsValue::from(text));
        }
    }

    /// Runs an action in the engine; the views change when its update arrives.
    pub fn act(&self, action: Action) {
        self.send(&Request::Act(action));
    }

    /// Sends the request `make` builds with a fresh id; `then` receives its answer.
    pub fn ask(
        &self,
        make: impl FnOnce(u32) -> Request,
        then: impl FnOnce(Result<Answer, ShownError>) + 'static,
    ) {
        let id = self.next_id.get().wrapping_add(1);
        self.next_id.set(id);
        self.waiting.borrow_mut().insert(id, Box::new(then));
        self.send(&make(id));
    }

    /// Asks for text (an export, a share token): `then` receives it or the error.
    pub fn ask_text(
        &self,
        make: impl FnOnce(u32) -> Request,
        then: impl FnOnce(Result<String, ShownError>) + 'static,
    ) {
        self.ask(make, move |result| {
            then(result.and_then(|answer| match answer {
                Answer::Text(text) => Ok(text),
                Answer::Keys(_) => Err(ShownError {
                    code: "INTERNAL".into(),
                    message: "the engine answered with row keys, not text".into(),
                }),
            }))
        });
    }
}

/// Hands updates to the page at most once per animation frame after the first: an update
/// that arrives when none was applied in this frame is applied at once (a single write shows
/// without waiting for a frame); those that arrive after it wait for the next frame and are
/// applied together (a burst of load redraws once per frame, not once per tick).
#[derive(Clone)]
struct Batch {
    on_update: Callback<Vec<Update>>,
    /// Updates waiting for the next frame.
    waiting: Rc<RefCell<Vec<Update>>>,
    /// Whether an update was applied since the last frame (later ones wait).
    throttled: Rc<Cell<bool>>,
    /// Runs at the next frame: applies what waits, and stays throttled one more frame if
    /// there was any.
    on_frame: FrameCallback,
}

/// Set once, after the batch exists (the callback holds the batch; both live as long as the
/// page).
type FrameCallback = Rc<RefCell<Option<Closure<dyn Fn()>>>>;

impl Batch {
    fn new(on_update: Callback<Vec<Update>>) -> Self {
        let batch = Batch {
            on_update,
            waiting: Rc::default(),
            throttled: Rc::default(),
            on_frame: Rc::default(),
        };
        let me = batch.clone();
        *batch.on_frame.borrow_mut() = Some(Closure::<dyn Fn()>::new(move || {
            let waiting = std::mem::take(&mut *me.waiting.borrow_mut());
            if waiting.is_empty() {
                me.throttled.set(false);
            } else {
                me.on_update.emit(waiting);
                me.next_frame();
            }
        }));
        batch
    }

    /// Asks for a frame; without frames (no window), the throttle lifts at once.
    fn next_frame(&self) {
        let asked = match (web_sys::window(), self.on_frame.borrow().as_ref()) {
            (Some(w), Some(f)) => w
                .request_animation_frame(f.as_ref().unchecked_ref())
                .is_ok(),
            _ => false,
        };
        if !asked {
            self.throttled.set(false);
        }
    }

    fn push(&self, update: Update) {
        if self.throttled.get() {
            self.waiting.borrow_mut().push(update);
        } else {
            self.throttled.set(true);
            self.on_update.emit(vec![update]);
            self.next_frame();
        }
    }
}

/// Says how a save went; once the worker has saved, an older localStorage copy goes.
fn store(result: Result<usize, ShownError>) -> String {
    match result {
        Ok(bytes) => {
            if let Some(s) = storage() {
                let _ = s.remove_item(LEGACY_STORAGE_KEY);
            }
            format!("Saved in this browser ({} KiB).", bytes / 1024)
        }
        Err(e) => format!("Not saved: {}", e.message),
    }
}
