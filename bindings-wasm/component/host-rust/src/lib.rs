//! Embeds the agent-checkpoint WASI component with `wasmtime` and
//! `wasmtime-wasi`: the reference Rust host, used by the tests in `tests/`.
//!
//! ```no_run
//! # fn main() -> wasmtime::Result<()> {
//! use agent_checkpoint_component_host::{
//!     CaptureOptions, ComponentHost, DiffOptions, OnConflict, PlanOptions,
//!     RecordAppliedOptions, RollbackOptions,
//! };
//!
//! let host = ComponentHost::new("agent_checkpoint_component.wasm".as_ref())?;
//! let mut instance = host.instantiate("/home/me/project".as_ref(), "/project")?;
//! let options = CaptureOptions {
//!     allow_git_dir: false,
//!     max_file_bytes: None,
//!     key: None,
//!     record_root: true,
//! };
//! let snapshot = instance
//!     .call(|c, store| c.call_create_checkpoint(store, "/project", &["src/a.py".into()], &options))?
//!     .map_err(|e| wasmtime::Error::msg(e.message))?;
//!
//! // The guard, the preview and redo (README: "In the WASI component").
//! let key = Some(b"a secret".to_vec());
//! let record = RecordAppliedOptions { allow_git_dir: false, key: key.clone() };
//! let applied = instance
//!     .call(|c, store| c.call_record_applied(store, "/project", &snapshot, &record))?
//!     .map_err(|e| wasmtime::Error::msg(e.message))?;
//! let plan = PlanOptions {
//!     allow_git_dir: false,
//!     on_conflict: OnConflict::Skip,
//!     key: key.clone(),
//!     restore_setid: false,
//!     strict_root: false,
//!     diff: Some(DiffOptions { context: 3, max_bytes: 1 << 20 }),
//! };
//! let items = instance.call(|c, store| c.call_plan_rollback(store, "/project", &applied, &plan))?;
//! let options = RollbackOptions {
//!     durable: true,
//!     allow_git_dir: false,
//!     on_conflict: OnConflict::Skip,
//!     key,
//!     redo: true,
//!     restore_setid: false,
//!     strict_root: false,
//!     max_file_bytes: None,
//! };
//! let report = instance.call(|c, store| c.call_rollback(store, "/project", &applied, &options))?;
//! # let _ = (items, report);
//! # Ok(()) }
//! ```

use std::path::Path;

use wasmtime::component::{Component, Linker, ResourceTable};
use wasmtime::{Engine, Result, Store};
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

/// The host side of the WIT world, generated from `../wit/checkpoint.wit`.
#[allow(missing_docs, reason = "generated; the WIT file documents the world")]
mod bindings {
    wasmtime::component::bindgen!({
        world: "checkpoint",
        path: "../wit",
    });
}

pub use bindings::{
    CaptureOptions, CapturedKind, CapturedPath, Checkpoint, CheckpointError, DiffLine,
    DiffLineKind, DiffOptions, ErrorCode, Hunk, IdKind, OnConflict, PathDiff, PathProblem,
    PlanAction, PlanItem, PlanOptions, RecordAppliedOptions, RollbackOptions, RollbackReport,
    ShadowBranch,
};

/// What one store holds: the WASI context (with its preopen) and its resources.
pub struct HostState {
    ctx: WasiCtx,
    table: ResourceTable,
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.ctx,
            table: &mut self.table,
        }
    }
}

/// The compiled component and a linker with WASI preview 2 in it.
pub struct ComponentHost {
    engine: Engine,
    component: Component,
    linker: Linker<HostState>,
}

impl ComponentHost {
    /// Compiles the component at `wasm`.
    pub fn new(wasm: &Path) -> Result<ComponentHost> {
        let engine = Engine::default();
        let component = Component::from_file(&engine, wasm)?;
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
        Ok(ComponentHost {
            engine,
            component,
            linker,
        })
    }

    /// A fresh instance whose only preopen is the host directory `preopen`,
    /// mounted at the guest path `guest`.
    pub fn instantiate(&self, preopen: &Path, guest: &str) -> Result<Instance> {
        let ctx = WasiCtxBuilder::new()
            .preopened_dir(preopen, guest, FsPerms::ReadWrite)?
            .build();
        let mut store = Store::new(
            &self.engine,
            HostState {
                ctx,
                table: ResourceTable::new(),
            },
        );
        let checkpoint = Checkpoint::instantiate(&mut store, &self.component, &self.linker)?;
        Ok(Instance { store, checkpoint })
    }
}

/// One instance of the component and its store.
pub struct Instance {
    store: Store<HostState>,
    checkpoint: Checkpoint,
}

impl Instance {
    /// Calls exports: `f` gets the bindings and the store.
    pub fn call<T>(
        &mut self,
        f: impl FnOnce(&Checkpoint, &mut Store<HostState>) -> wasmtime::Result<T>,
    ) -> wasmtime::Result<T> {
        f(&self.checkpoint, &mut self.store)
    }
}

/// The snake_case spelling of a WIT error code, as the other bindings use.
pub fn snake_code(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::InvalidCheckpointId => "invalid_checkpoint_id",
        ErrorCode::InvalidRefName => "invalid_ref_name",
        ErrorCode::InvalidPath => "invalid_path",
        ErrorCode::PathEscapesRoot => "path_escapes_root",
        ErrorCode::NotAFile => "not_a_file",
        ErrorCode::NotADirectory => "not_a_directory",
        ErrorCode::MalformedSnapshot => "malformed_snapshot",
        ErrorCode::UnsupportedVersion => "unsupported_version",
        ErrorCode::TooLarge => "too_large",
        ErrorCode::InvalidArgument => "invalid_argument",
        ErrorCode::InvalidPattern => "invalid_pattern",
        ErrorCode::Unauthenticated => "unauthenticated",
        ErrorCode::RootMismatch => "root_mismatch",
        ErrorCode::NotFound => "not_found",
        ErrorCode::NoTranscript => "no_transcript",
        ErrorCode::NotARepository => "not_a_repository",
        ErrorCode::CorruptObject => "corrupt_object",
        ErrorCode::RefBusy => "ref_busy",
        ErrorCode::Conflict => "conflict",
        ErrorCode::RemoteUnreachable => "remote_unreachable",
        ErrorCode::AuthFailed => "auth_failed",
        ErrorCode::Rejected => "rejected",
        ErrorCode::PermissionDenied => "permission_denied",
        ErrorCode::Io => "io",
    }
}

/// The spelling of a WIT diff line kind (`context`, `removed`, `added`).
pub fn line_kind_name(kind: DiffLineKind) -> &'static str {
    match kind {
        DiffLineKind::Context => "context",
        DiffLineKind::Removed => "removed",
        DiffLineKind::Added => "added",
    }
}

/// The snake_case spelling of a WIT plan action (`keep`, ..., `refuse`).
pub fn action_name(action: PlanAction) -> &'static str {
    match action {
        PlanAction::Keep => "keep",
        PlanAction::Write => "write",
        PlanAction::Remove => "remove",
        PlanAction::Rmdir => "rmdir",
        PlanAction::Conflict => "conflict",
        PlanAction::Refuse => "refuse",
    }
}
