//! Progress of a long push, as the CLI shows it.

/// Where a push is: called before the first batch and after each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PushProgress {
    /// Refs to push (queued checkpoint refs that exist here, plus the v1
    /// branch when it exists).
    pub total: usize,
    /// Refs the remote confirmed so far.
    pub pushed: usize,
    /// Refs left queued so far (refused, or in conflict).
    pub queued: usize,
}

impl PushProgress {
    /// Refs settled so far (pushed or left queued).
    pub fn done(&self) -> usize {
        self.pushed + self.queued
    }

    /// `done` as a whole percentage of `total` (100 when there is nothing to push).
    pub fn percent(&self) -> usize {
        (self.done().min(self.total) * 100)
            .checked_div(self.total)
            .unwrap_or(100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages() {
        let p = PushProgress {
            total: 3,
            pushed: 1,
            queued: 1,
        };
        assert_eq!((p.done(), p.percent()), (2, 66));
        let none = PushProgress {
            total: 0,
            pushed: 0,
            queued: 0,
        };
        assert_eq!(none.percent(), 100);
    }
}
