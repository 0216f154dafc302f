//! The Web Worker's side: runs the [`Engine`] off the page's thread.
//!
//! The same wasm module runs on the page and in the worker (`worker.js` loads it); `main`
//! starts this loop when it finds itself in a worker. The loop handles one request per
//! message, in the order the page sent them, and posts the replies back as JSON text. Saving
//! the session (an export of every table, deflated) is debounced here, off the page's thread:
//! once changes have settled for [`SAVE_DELAY_MS`], the worker posts the token and the page
//! only stores it.
//!
//! Invariant: nothing here panics on a message; a request that does not decode is answered
//! with an error the page shows.

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::remote::{decode, encode_reply, Engine, Reply, Request, Update};

/// Idle time after a change before the session is saved.
pub const SAVE_DELAY_MS: u32 = 400;

/// Whether this code runs in a dedicated worker (not on a page).
pub fn in_worker() -> bool {
    js_sys::global()
        .dyn_into::<DedicatedWorkerGlobalScope>()
        .is_ok()
}

/// The worker's state: the engine and the pending save.
struct Worker {
    scope: DedicatedWorkerGlobalScope,
    engine: Engine,
    save: Option<Timeout>,
}

/// Posts a reply: its JSON text, or `[text, bytes]` when a grid travels beside it (the bytes'
/// buffer is transferred, not copied).
fn post(scope: &DedicatedWorkerGlobalScope, reply: Reply) {
    // An encoding failure is reported as an error in an update instead of the reply.
    let (text, grid) = encode_reply(reply).unwrap_or_else(|e| {
        let update = Update {
            error: crate::remote::Diff::Now(Some(e)),
            ..Update::default()
        };
        encode_reply(Reply::Update(Box::new(update))).unwrap_or_default()
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
    }));
    let on_message = {
        let worker = worker.clone();
        Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| {
            let text = e.data().as_string().unwrap_or_default();
            handle(&worker, &text);
        })
    };
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    post(&scope, Reply::Loaded);
}

fn handle(worker: &Rc<RefCell<Worker>>, text: &str) {
    let mut w = worker.borrow_mut();
    let replies = match decode::<Request>(text) {
        Ok(request) => w.engine.handle(request),
        Err(e) => vec![Reply::Update(Box::new(Update {
            error: crate::remote::Diff::Now(Some(e)),
            ..Update::default()
        }))],
    };
    for reply in replies {
        post(&w.scope, reply);
    }
    if w.engine.unsaved() {
        // Replacing the timer cancels the previous one: a burst of changes saves once.
        let again = worker.clone();
        w.save = Some(Timeout::new(SAVE_DELAY_MS, move || {
            let mut w = again.borrow_mut();
            let reply = w.engine.save();
            post(&w.scope, reply);
            // The spent timer stays in `save` until the next change replaces it: dropping it
            // here would free the closure that is running.
        }));
    }
}
