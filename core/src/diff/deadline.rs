//! How long the line diffs of one plan may search for the smallest diff.
//!
//! The minimal line diff of two texts with few lines in common costs time
//! that grows with the product of their lengths: two 1 MiB files of
//! unrelated lines take the search minutes. Past the deadline the search
//! stops refining, and what is left of each change is shown as the removal
//! of its current lines and the addition of the captured ones (still a
//! correct diff, only not the smallest).

use std::time::Duration;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub(crate) use similar::Instant;
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub(crate) use std::time::Instant;

/// The time all the line diffs of one plan may spend searching.
pub(crate) const LINE_DIFF_SEARCH_TIME: Duration = Duration::from_secs(2);

/// The deadline for the line diffs of a plan that starts now (`None` when
/// the clock cannot add the budget, so no deadline).
pub(crate) fn plan_deadline() -> Option<Instant> {
    Instant::now().checked_add(LINE_DIFF_SEARCH_TIME)
}
