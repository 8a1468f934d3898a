//! The options `new CheckpointStore(path, backend, options)` takes beyond
//! the backend.

use agent_checkpoint_store::StoreOptions;
use napi_derive::napi;

/// How a `CheckpointStore` writes.
#[napi(object)]
#[derive(Debug, Clone, Default)]
pub struct StoreOpenOptions {
    /// Sign every commit the store writes (`true`), never (`false`), or as
    /// git's `commit.gpgSign` says (absent, the default).
    pub sign_commits: Option<bool>,
}

/// `options` with `open`'s settings applied.
pub(crate) fn apply(options: StoreOptions, open: Option<&StoreOpenOptions>) -> StoreOptions {
    match open.and_then(|o| o.sign_commits) {
        Some(sign) => options.sign_commits(sign),
        None => options,
    }
}
