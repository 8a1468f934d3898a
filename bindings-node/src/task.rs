//! The one task type behind every `…Async` function: a closure run on the
//! libuv thread pool (all the file, git and redaction work), its result
//! converted to the JavaScript shape and its error turned into the same
//! `Error` the synchronous twin throws, on the JavaScript thread.

use napi::bindgen_prelude::{AsyncTask, ToNapiValue, TypeName};
use napi::{Env, Task};

use crate::error::to_js;

/// A closure for the thread pool.
pub(crate) type Job<T> = Box<dyn FnOnce() -> agent_checkpoint::Result<T> + Send>;

/// Work for the thread pool: its output `T` becomes the promise's value `J`.
pub struct Work<T, J> {
    job: Option<Job<T>>,
    convert: fn(T) -> agent_checkpoint::Result<J>,
}

impl<T, J> Task for Work<T, J>
where
    T: Send + 'static,
    J: ToNapiValue + TypeName,
{
    type Output = agent_checkpoint::Result<T>;
    type JsValue = J;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        match self.job.take() {
            Some(job) => Ok(job()),
            None => Err(napi::Error::new(
                napi::Status::GenericFailure,
                "the task already ran",
            )),
        }
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<J> {
        output.and_then(self.convert).map_err(|e| to_js(&env, &e))
    }
}

/// A promise of what `job` returns, run off the JavaScript thread.
pub fn spawn<J>(
    job: impl FnOnce() -> agent_checkpoint::Result<J> + Send + 'static,
) -> AsyncTask<Work<J, J>>
where
    J: ToNapiValue + TypeName + Send + 'static,
{
    spawn_then(job, Ok)
}

/// A promise of `convert(job())`: `job` runs off the JavaScript thread,
/// `convert` on it (for values that can only be made there, such as typed
/// arrays).
pub fn spawn_then<T, J>(
    job: impl FnOnce() -> agent_checkpoint::Result<T> + Send + 'static,
    convert: fn(T) -> agent_checkpoint::Result<J>,
) -> AsyncTask<Work<T, J>>
where
    T: Send + 'static,
    J: ToNapiValue + TypeName,
{
    AsyncTask::new(Work {
        job: Some(Box::new(job)),
        convert,
    })
}
