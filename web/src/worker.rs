//! The Web Worker's side: runs the [`Engine`] off the page's thread, and keeps the session in
//! IndexedDB.
//!
//! The same wasm module runs on the page and in the worker (`worker.js` loads it); `main`
//! starts this loop when it finds itself in a worker. The loop handles one request per
//! message, in the order the page sent them, and posts the replies back. The session is kept
//! in IndexedDB (`web/js/session_store.js`): read once at start, written once changes have
//! settled for [`SAVE_DELAY_MS`] (an export of every table, deflated), and at once when the
//! page asks ([`Request::SaveNow`], sent when the page is hidden or left, so a write made
//! just before a reload is kept). Both run here, so neither blocks the page, and IndexedDB
//! has no 5 MB cap as localStorage has.
//!
//! Invariants: nothing here panics on a message; a request that does not decode is answered
//! with an error the page shows; requests that arrive while the stored session is being read
//! wait and run after the start, in order.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::remote::{decode, encode_reply, Engine, Reply, Request, Update};
use crate::state::ShownError;

#[wasm_bindgen(module = "/js/session_store.js")]
extern "C" {
    #[wasm_bindgen(js_name = loadSession, catch)]
    async fn load_session() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = saveSession, catch)]
    async fn save_session(token: &str) -> Result<JsValue, JsValue>;
}

/// Idle time after a change before the session is saved: short, so little work is ever
/// unsaved, yet a burst of actions (a scenario, a load) still saves once.
pub const SAVE_DELAY_MS: u32 = 50;

/// Whether this code runs in a dedicated worker (not on a page).
pub fn in_worker() -> bool {
    js_sys::global()
        .dyn_into::<DedicatedWorkerGlobalScope>()
        .is_ok()
}

/// The worker's state: the engine, the pending save, and requests waiting for the start.
struct Worker {
    scope: DedicatedWorkerGlobalScope,
    engine: Engine,
    save: Option<Timeout>,
    /// `Some` while the stored session is being read: requests that arrive meanwhile.
    queued: Option<VecDeque<Request>>,
}

/// Posts a reply: its JSON text, or `[text, bytes]` when a grid travels beside it (the bytes'
/// buffer is transferred, not copied).
fn post(scope: &DedicatedWorkerGlobalScope, reply: Reply) {
    // An encoding failure is reported as an error in an update instead of the reply.
    let (text, grid) = encode_reply(reply).unwrap_or_else(|e| {
        encode_reply(Reply::Update(Box::new(Update::error(e)))).unwrap_or_default()
    });
    let _ = match grid {
        None => scope.post_message(&JsValue::from(text)),
        Some(bytes) => {
            let array = js_sys::Uint8Array::from(bytes.as_slice());
            let message = js_sys::Array::of2(&JsValue::from(text), &array);
            scope.post_message_with_transfer(&message, &js_sys::Array::of1(&array.buffer()))
        }
    };
}

/// Starts the loop: installs the message handler and tells the page the worker is loaded.
pub fn run() {
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else {
        return;
    };
    let worker = Rc::new(RefCell::new(Worker {
        scope: scope.clone(),
        engine: Engine::new(0),
        save: None,
        queued: None,
    }));
    let on_message = {
        let worker = worker.clone();
        Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| {
            let text = e.data().as_string().unwrap_or_default();
            receive(&worker, &text);
        })
    };
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    post(&scope, Reply::Loaded);
}

/// Takes one message from the page.
fn receive(worker: &Rc<RefCell<Worker>>, text: &str) {
    let request = match decode::<Request>(text) {
        Ok(request) => request,
        Err(e) => {
            let w = worker.borrow();
            post(&w.scope, Reply::Update(Box::new(Update::error(e))));
            return;
        }
    };
    if let Some(queue) = worker.borrow_mut().queued.as_mut() {
        queue.push_back(request);
        return;
    }
    match request {
        Request::Start {
            now_micros,
            session,
            stored,
        } => {
            // The stored session is read first (asynchronously); IndexedDB's copy comes before
            // one the page found in localStorage (where sessions were kept before).
            worker.borrow_mut().queued = Some(VecDeque::new());
            let worker = worker.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let kept = load_session().await.ok().and_then(|v| v.as_string());
                handle(
                    &worker,
                    Request::Start {
                        now_micros,
                        session,
                        stored: kept.or(stored),
                    },
                );
                loop {
                    let next = worker
                        .borrow_mut()
                        .queued
                        .as_mut()
                        .and_then(VecDeque::pop_front);
                    match next {
                        Some(request) => handle(&worker, request),
                        None => break,
                    }
                }
                worker.borrow_mut().queued = None;
            });
        }
        Request::SaveNow => save_now(worker),
        request => handle(worker, request),
    }
}

/// Runs one request and posts its replies; schedules a save after a change.
fn handle(worker: &Rc<RefCell<Worker>>, request: Request) {
    let mut w = worker.borrow_mut();
    for reply in w.engine.handle(request) {
        post(&w.scope, reply);
    }
    if w.engine.unsaved() {
        // Replacing the timer cancels the previous one: a burst of changes saves once.
        let again = worker.clone();
        w.save = Some(Timeout::new(SAVE_DELAY_MS, move || save(&again)));
    }
}

/// Saves the session now if it changed since the last save (the page is going away), and
/// cancels the pending timer.
fn save_now(worker: &Rc<RefCell<Worker>>) {
    let pending = worker.borrow_mut().save.take();
    drop(pending);
    if worker.borrow().engine.unsaved() {
        save(worker);
    }
}

/// Writes the session to IndexedDB and tells the page how it went.
fn save(worker: &Rc<RefCell<Worker>>) {
    let token = worker.borrow_mut().engine.save();
    // A spent timer stays in `save` until the next change replaces it: dropping it here would
    // free the closure that is running.
    let again = worker.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let result = match token {
            Ok(token) => match save_session(&token).await {
                Ok(_) => Ok(token.len()),
                Err(e) => Err(ShownError {
                    code: "RESOURCE_EXHAUSTED".into(),
                    message: format!(
                        "the browser refused to keep the session: {}",
                        js_sys::Reflect::get(&e, &"message".into())
                            .ok()
                            .and_then(|m| m.as_string())
                            .unwrap_or_else(|| format!("{e:?}"))
                    ),
                }),
            },
            Err(e) => Err(e),
        };
        post(&again.borrow().scope, Reply::Saved(result));
    });
}
