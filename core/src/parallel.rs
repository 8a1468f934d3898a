//! A tiny data-parallel map for the CPU-bound steps (digests), used only
//! when the work is large enough to pay for threads, and never on wasm.

/// Work below this many bytes runs on the calling thread.
const MIN_PARALLEL_BYTES: usize = 8 << 20;

/// `f` applied to every item, in order; split across up to four threads
/// when the items weigh at least [`MIN_PARALLEL_BYTES`] in total.
pub(crate) fn map<T, R, W, F>(items: &[T], weight: W, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    W: Fn(&T) -> usize,
    F: Fn(&T) -> R + Sync,
{
    let total: usize = items.iter().map(&weight).sum();
    if items.len() < 2 || total < MIN_PARALLEL_BYTES || worker_count() < 2 {
        return items.iter().map(f).collect();
    }
    let threads = worker_count();
    // Contiguous chunks of about equal weight keep the results in order.
    let target = total.div_ceil(threads);
    let mut chunks: Vec<&[T]> = Vec::with_capacity(threads);
    let (mut start, mut acc) = (0, 0);
    for (i, item) in items.iter().enumerate() {
        acc += weight(item);
        if acc >= target && chunks.len() + 1 < threads {
            chunks.push(&items[start..=i]);
            start = i + 1;
            acc = 0;
        }
    }
    chunks.push(&items[start..]);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| scope.spawn(move || chunk.iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            // A worker only panics if `f` does, which it must not; re-raise it.
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// Runs `a` and `b`, on two threads when `bytes` is large enough, and
/// returns both results.
pub(crate) fn join<A, B, RA, RB>(bytes: usize, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB,
    RA: Send,
{
    if bytes < MIN_PARALLEL_BYTES / 8 || worker_count() < 2 {
        return (a(), b());
    }
    std::thread::scope(|scope| {
        let handle = scope.spawn(a);
        let rb = b();
        // A worker only panics if `a` does, which it must not; re-raise it.
        let ra = handle
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (ra, rb)
    })
}

/// Up to four workers, as many as the CPUs this process may use (asked
/// once: the answer reads cgroup files on Linux).
#[cfg(not(target_family = "wasm"))]
fn worker_count() -> usize {
    static COUNT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *COUNT.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
}

#[cfg(target_family = "wasm")]
fn worker_count() -> usize {
    1
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_order_and_covers_every_item() {
        let items: Vec<usize> = (0..1000).collect();
        let out = super::map(&items, |_| 1 << 20, |x| x * 2);
        assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        let small = super::map(&items[..3], |_| 1, |x| x + 1);
        assert_eq!(small, [1, 2, 3]);
    }

    #[test]
    fn join_returns_both_results_big_or_small() {
        assert_eq!(super::join(1, || 1, || 2), (1, 2));
        assert_eq!(super::join(1 << 30, || "a", || "b"), ("a", "b"));
    }
}
