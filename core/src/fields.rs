//! The field list of each type the host surfaces mirror (the options and
//! results of the bindings, the WIT, the MCP server and the CLI), written
//! once and checked by the compiler: [`field_list!`] pairs the list with an
//! exhaustive destructuring of the type, so a field added to the struct
//! and not to its list fails to build. `core/tests/surface_fields.rs`
//! checks every surface names each listed field.

/// Declares `$ty::FIELDS`, the names of every field of `$ty` in order, and
/// a destructuring of `$ty` without `..` that stops the build when the list
/// leaves a field out or names one the type lacks.
#[doc(hidden)]
#[macro_export]
macro_rules! field_list {
    ($ty:ident { $($field:ident),* $(,)? }) => {
        impl $ty {
            /// Every field's name, in declaration order (checked against
            /// the type by the compiler); for the surface drift tests.
            #[doc(hidden)]
            pub const FIELDS: &'static [&'static str] = &[$(stringify!($field)),*];
        }
        const _: fn($ty) = |value: $ty| {
            let $ty { $($field: _),* } = value;
        };
    };
}

use crate::diff::DiffOptions;
use crate::options::{CaptureOptions, PlanOptions, RollbackOptions};
use crate::plan::{Plan, PlanItem};
use crate::rollback::{NotInRedo, RollbackReport, Unrestored};

field_list!(CaptureOptions {
    allow_git_dir,
    max_file_bytes,
    key,
    record_root,
    progress,
});
field_list!(RollbackOptions {
    durable,
    on_conflict,
    key,
    redo,
    restore_setid,
    strict_root,
    max_file_bytes,
    progress,
});
field_list!(PlanOptions {
    on_conflict,
    key,
    restore_setid,
    strict_root,
    diff,
    progress,
});
field_list!(DiffOptions { context, max_bytes });
field_list!(RollbackReport {
    restored,
    unrestored,
    conflicts,
    plan,
    redo,
    not_in_redo,
    not_covered,
});
field_list!(Plan { items, other_root });
field_list!(PlanItem {
    path,
    action,
    conflict,
    code,
    reason,
    diff,
});
field_list!(Unrestored { path, code, reason });
field_list!(NotInRedo { path, code, reason });
