//! What JavaScript sees of a snapshot and of a rollback: the report, the
//! captured paths, and the read-only helpers that need no filesystem.

use std::sync::Arc;

use napi::bindgen_prelude::{JsObjectValue, Object, ToNapiValue, TypeName, ValueType};
use napi::{sys, Env, JsValue, Property, PropertyAttributes};
use napi_derive::napi;

use crate::error::OrThrow;

/// One path a rollback could not restore, or that its redo cannot carry.
#[napi(object)]
pub struct PathProblem {
    /// The canonical path.
    pub path: String,
    /// The stable error code (`conflict`, `not_a_directory`, `io`, ...).
    #[napi(ts_type = "ErrorCode")]
    pub code: String,
    /// Why, in words.
    pub reason: String,
}

/// What a rollback did.
#[napi(object, js_name = "RollbackReport", use_nullable = true)]
pub struct RollbackReportObject {
    /// Paths now as captured, sorted.
    pub restored: Vec<String>,
    /// Paths that could not be restored, sorted, each with its code and reason.
    pub unrestored: Vec<PathProblem>,
    /// Paths left as they were because they changed after the batch
    /// (`onConflict: 'skip'`), sorted: neither restored nor unrestored.
    pub conflicts: Vec<String>,
    /// Whether the snapshot was accepted (and so was applied).
    pub valid: bool,
    /// Valid, and every path restored.
    pub ok: bool,
    /// Why the snapshot was refused (`malformed_snapshot`, ...); `null` when valid.
    #[napi(ts_type = "ErrorCode")]
    pub error_code: Option<String>,
    /// The refusal's message; `null` when valid.
    pub error: Option<String>,
    /// The plan this rollback carried out (what `planRollback` says).
    pub plan: Vec<crate::plan::PlanItem>,
    /// The captured paths as they were just before this rollback: rolling
    /// it back brings the batch's result back. `null` when refused, or with
    /// `redo: false`. Its text is made the first time it is read.
    pub redo: Option<String>,
    /// Captured paths the redo cannot carry, and why.
    pub not_in_redo: Vec<PathProblem>,
    /// Paths the capture skipped for their size (over `maxFileBytes`):
    /// neither restored nor removed, left as they are.
    pub not_covered: Vec<NotCovered>,
    /// The root the snapshot was taken under, when it is not this one.
    pub other_root: Option<String>,
}

/// A path a snapshot does not cover: its capture skipped it for its size.
#[napi(object)]
pub struct NotCovered {
    /// The path.
    pub path: String,
    /// Its size in bytes when the capture looked at it.
    pub size: f64,
    /// Why: `too_large`.
    #[napi(ts_type = "ErrorCode")]
    pub code: String,
}

/// A rollback's report on its way to JavaScript: a plain object (the
/// `RollbackReport` interface) whose `redo` is an enumerable getter that
/// makes the redo text the first time it is read and then becomes a plain
/// property holding it. A caller that never reads `redo` never pays for
/// encoding it or for a string of the size of every file restored;
/// `JSON.stringify`, spreading and `structuredClone` read it as a field.
pub struct RollbackReport {
    object: RollbackReportObject,
    redo: Option<Arc<agent_checkpoint::Redo>>,
}

impl From<agent_checkpoint::RollbackReport> for RollbackReport {
    fn from(report: agent_checkpoint::RollbackReport) -> RollbackReport {
        agent_checkpoint::RollbackOutcome::from(Ok(report)).into()
    }
}

/// The core's outcome as JavaScript sees it: a refused snapshot is a
/// report with `valid: false` (the core's rule, not decided here).
impl From<agent_checkpoint::RollbackOutcome> for RollbackReport {
    fn from(outcome: agent_checkpoint::RollbackOutcome) -> RollbackReport {
        let (valid, ok) = (outcome.valid(), outcome.ok());
        let refusal = outcome.refusal;
        let report = outcome.report;
        let problems = |list: Vec<(String, agent_checkpoint::ErrorCode, String)>| {
            list.into_iter()
                .map(|(path, code, reason)| PathProblem {
                    path,
                    code: code.as_str().to_owned(),
                    reason,
                })
                .collect()
        };
        RollbackReport {
            object: RollbackReportObject {
                valid,
                ok,
                error_code: refusal.as_ref().map(|e| e.code().as_str().to_owned()),
                error: refusal.as_ref().map(ToString::to_string),
                unrestored: problems(
                    report
                        .unrestored
                        .into_iter()
                        .map(|u| (u.path, u.code, u.reason))
                        .collect(),
                ),
                not_in_redo: problems(
                    report
                        .not_in_redo
                        .into_iter()
                        .map(|n| (n.path, n.code, n.reason))
                        .collect(),
                ),
                not_covered: report
                    .not_covered
                    .into_iter()
                    .map(|n| NotCovered {
                        path: n.path,
                        size: n.size as f64,
                        code: n.code.as_str().to_owned(),
                    })
                    .collect(),
                restored: report.restored,
                conflicts: report.conflicts,
                other_root: report.plan.other_root.clone(),
                plan: report
                    .plan
                    .items
                    .into_iter()
                    .map(crate::plan::PlanItem::from)
                    .collect(),
                redo: None,
            },
            redo: report.redo.map(Arc::new),
        }
    }
}

impl TypeName for RollbackReport {
    fn type_name() -> &'static str {
        "RollbackReport"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

#[allow(
    unsafe_code,
    reason = "napi-rs's conversion trait is unsafe: the report's lazy `redo` getter"
)]
impl ToNapiValue for RollbackReport {
    unsafe fn to_napi_value(env: sys::napi_env, report: Self) -> napi::Result<sys::napi_value> {
        // SAFETY: `env` is the live environment napi-rs passes in.
        let raw = unsafe { RollbackReportObject::to_napi_value(env, report.object)? };
        let Some(redo) = report.redo else {
            return Ok(raw);
        };
        // SAFETY: `raw` is the object just made in `env`.
        let mut object =
            unsafe { <Object as napi::bindgen_prelude::FromNapiValue>::from_napi_value(env, raw)? };
        object.define_properties(&[Property::new()
            .with_utf8_name("redo")?
            .with_property_attributes(
                PropertyAttributes::Enumerable | PropertyAttributes::Configurable,
            )
            .with_getter_closure(move |env: Env, this: napi::bindgen_prelude::This| {
                let json = redo.to_json();
                let text = env.create_string(json.as_str())?;
                let mut object = this.object;
                object.define_properties(&[Property::new()
                    .with_utf8_name("redo")?
                    .with_value(&text)
                    .with_property_attributes(
                        PropertyAttributes::Writable
                            | PropertyAttributes::Enumerable
                            | PropertyAttributes::Configurable,
                    )])?;
                Ok(RawValue(text.raw()))
            })])?;
        Ok(raw)
    }
}

/// A JavaScript value already made, handed back as it is.
struct RawValue(sys::napi_value);

#[allow(
    unsafe_code,
    reason = "napi-rs's conversion trait is unsafe: a value already made in `env`"
)]
impl ToNapiValue for RawValue {
    unsafe fn to_napi_value(_env: sys::napi_env, value: Self) -> napi::Result<sys::napi_value> {
        Ok(value.0)
    }
}

/// What a snapshot holds for one path.
#[napi(string_enum = "lowercase")]
pub enum CapturedKind {
    /// A file that existed, with its bytes.
    File,
    /// A path that did not exist (the batch creates it).
    New,
    /// A symlink, with its target text.
    Link,
}

/// One captured path, as `inspectSnapshot` describes it.
#[napi(object, use_nullable = true)]
pub struct CapturedPath {
    /// The canonical path.
    pub path: String,
    /// What was there.
    pub kind: CapturedKind,
    /// Size in bytes of the captured content (files only).
    pub size: Option<f64>,
    /// Permission bits (files whose mode was recorded).
    pub mode: Option<u32>,
    /// Target text (links only).
    pub link_target: Option<String>,
    /// SHA-256 of the content, lowercase hex (files whose digest was recorded).
    pub digest: Option<String>,
}

impl From<agent_checkpoint::CapturedPath> for CapturedPath {
    fn from(item: agent_checkpoint::CapturedPath) -> CapturedPath {
        CapturedPath {
            path: item.path,
            kind: match item.kind {
                agent_checkpoint::CapturedKind::New => CapturedKind::New,
                agent_checkpoint::CapturedKind::Link => CapturedKind::Link,
                // A file, and any kind a newer core adds.
                _ => CapturedKind::File,
            },
            // Exact: no captured file comes near 2^53 bytes.
            size: item.size.map(|n| n as f64),
            mode: item.mode,
            link_target: item.link_target,
            digest: item.digest,
        }
    }
}

/// The paths `checkpoint` captured, sorted; `[]` for a malformed snapshot
/// (best effort, never throws).
#[napi]
pub fn snapshot_paths(checkpoint: String) -> Vec<String> {
    agent_checkpoint::snapshot_paths(&checkpoint)
}

/// One item per captured path, sorted by path. Throws `malformed_snapshot`
/// or `unsupported_version` for a snapshot that is not valid.
#[napi]
pub fn inspect_snapshot(env: &Env, checkpoint: String) -> napi::Result<Vec<CapturedPath>> {
    agent_checkpoint::inspect_snapshot(&checkpoint)
        .map(|items| items.into_iter().map(CapturedPath::from).collect())
        .or_throw(env)
}
