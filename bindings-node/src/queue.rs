//! `PushQueue`: the JSONL list of checkpoint refs awaiting push.

use std::sync::Arc;

use napi::bindgen_prelude::AsyncTask;
use napi::Env;
use napi_derive::napi;

use crate::error::OrThrow;
use crate::task::{spawn, Work};

/// The push queue of one repository, kept in `directory` (the git common
/// dir). Every method locks the queue for its whole duration.
#[napi]
pub struct PushQueue {
    inner: Arc<agent_checkpoint_naming::queue::PushQueue>,
}

#[napi]
impl PushQueue {
    /// The queue kept in `directory`; nothing is touched until a method runs.
    #[napi(constructor)]
    pub fn new(directory: String) -> PushQueue {
        PushQueue {
            inner: Arc::new(agent_checkpoint_naming::queue::PushQueue::new(directory)),
        }
    }

    /// The queue file (`entire-checkpoint-push-queue.jsonl` in the directory).
    #[napi(getter)]
    pub fn path(&self) -> String {
        self.inner.path().to_string_lossy().into_owned()
    }

    /// The directory the queue lives in.
    #[napi(getter)]
    pub fn directory(&self) -> String {
        self.inner.directory().to_string_lossy().into_owned()
    }

    /// Appends one ref as a whole line; throws `invalid_ref_name` for a ref
    /// that is not a valid full git ref name.
    #[napi]
    pub fn enqueue(&self, env: &Env, ref_name: String) -> napi::Result<()> {
        self.inner.enqueue(&ref_name).or_throw(env)
    }

    /// Appends every ref under one lock; if one is invalid nothing is written.
    #[napi]
    pub fn enqueue_all(&self, env: &Env, refs: Vec<String>) -> napi::Result<()> {
        self.inner.enqueue_all(&refs).or_throw(env)
    }

    /// The queued refs, de-duplicated in first-seen order; nothing is
    /// removed, but the file is compacted when it held duplicates or junk.
    #[napi]
    pub fn drain(&self, env: &Env) -> napi::Result<Vec<String>> {
        self.inner.drain().map(|d| d.refs).or_throw(env)
    }

    /// Like `drain`, but never rewrites the queue file.
    #[napi]
    pub fn peek(&self, env: &Env) -> napi::Result<Vec<String>> {
        self.inner.peek().map(|d| d.refs).or_throw(env)
    }

    /// Removes every entry of `refs`, keeping refs enqueued since a drain.
    #[napi]
    pub fn remove(&self, env: &Env, refs: Vec<String>) -> napi::Result<()> {
        self.inner.remove(&refs).or_throw(env)
    }

    /// `enqueue` off the JavaScript thread (the lock may wait for another
    /// process): resolves when the ref is written, rejects with the same
    /// `Error`.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn enqueue_async(&self, ref_name: String) -> AsyncTask<Work<(), ()>> {
        let queue = Arc::clone(&self.inner);
        spawn(move || queue.enqueue(&ref_name))
    }

    /// `enqueueAll` off the JavaScript thread.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn enqueue_all_async(&self, refs: Vec<String>) -> AsyncTask<Work<(), ()>> {
        let queue = Arc::clone(&self.inner);
        spawn(move || queue.enqueue_all(&refs))
    }

    /// `drain` off the JavaScript thread.
    #[napi(ts_return_type = "Promise<string[]>")]
    pub fn drain_async(&self) -> AsyncTask<Work<Vec<String>, Vec<String>>> {
        let queue = Arc::clone(&self.inner);
        spawn(move || queue.drain().map(|d| d.refs))
    }

    /// `peek` off the JavaScript thread.
    #[napi(ts_return_type = "Promise<string[]>")]
    pub fn peek_async(&self) -> AsyncTask<Work<Vec<String>, Vec<String>>> {
        let queue = Arc::clone(&self.inner);
        spawn(move || queue.peek().map(|d| d.refs))
    }

    /// `remove` off the JavaScript thread.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn remove_async(&self, refs: Vec<String>) -> AsyncTask<Work<(), ()>> {
        let queue = Arc::clone(&self.inner);
        spawn(move || queue.remove(&refs))
    }
}
