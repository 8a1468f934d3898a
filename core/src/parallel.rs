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

/// Items a worker of [`for_each_in_order`] takes (and hands over) at a
/// time: one hand-over per item costs more than a small file's read.
const BLOCK: usize = 16;

/// How many blocks each worker of [`for_each_in_order`] may have ready
/// ahead of the caller (bounds what is held at once).
const WINDOW: usize = 4;

/// `f` applied to every item, and `consume` called on the calling thread
/// with each result in item order. With at least `min_items` items (and
/// more than one CPU), `f` runs on worker threads, in blocks of [`BLOCK`]
/// items (block `b` on worker `b % workers`), each worker at most
/// [`WINDOW`] blocks ahead of `consume`. The first error `consume`
/// returns ends it (workers stop after their current block) and is
/// returned: the same error, for the same item, as a run on one thread
/// gives.
pub(crate) fn for_each_in_order<T, R, E, F, C>(
    items: &[T],
    min_items: usize,
    f: F,
    mut consume: C,
) -> Result<(), E>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
    C: FnMut(R) -> Result<(), E>,
{
    let workers = worker_count();
    if items.len() < min_items.max(2) || workers < 2 {
        return items.iter().try_for_each(|item| consume(f(item)));
    }
    let f = &f;
    std::thread::scope(|scope| {
        // Workers learn their share once all are started: a thread the
        // system refuses (a low `ulimit -v`) leaves the others more, and
        // none at all leaves the work to the calling thread.
        let mut handles = Vec::with_capacity(workers);
        let mut starts = Vec::with_capacity(workers);
        let mut receivers = Vec::with_capacity(workers);
        for _ in 0..workers {
            let (start, started) = std::sync::mpsc::channel::<(usize, usize)>();
            let (sender, receiver) = std::sync::mpsc::sync_channel(WINDOW);
            let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                let Ok((first, stride)) = started.recv() else {
                    return;
                };
                for block in items.chunks(BLOCK).skip(first).step_by(stride) {
                    let results: Vec<R> = block.iter().map(f).collect();
                    // The caller stopped (an error): nothing more is wanted.
                    if sender.send(results).is_err() {
                        break;
                    }
                }
            });
            match spawned {
                Ok(handle) => {
                    handles.push(handle);
                    starts.push(start);
                    receivers.push(receiver);
                }
                Err(_) => break,
            }
        }
        let workers = handles.len();
        if workers == 0 {
            return items.iter().try_for_each(|item| consume(f(item)));
        }
        for (first, start) in starts.into_iter().enumerate() {
            // A worker waits for this; it cannot be gone yet.
            let _ = start.send((first, workers));
        }
        for block in 0..items.len().div_ceil(BLOCK) {
            match receivers[block % workers].recv() {
                // Returning drops the receivers: the workers stop.
                Ok(results) => {
                    for result in results {
                        consume(result)?;
                    }
                }
                // The worker is gone before its last block: `f` panicked,
                // which it must not; re-raise it.
                Err(_) => {
                    drop(receivers);
                    for handle in handles {
                        if let Err(panic) = handle.join() {
                            std::panic::resume_unwind(panic);
                        }
                    }
                    unreachable!("a worker ended early without panicking");
                }
            }
        }
        Ok(())
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
    fn in_order_gives_every_result_in_order_and_the_first_error() {
        let items: Vec<usize> = (0..1000).collect();
        let mut seen = Vec::new();
        let done: Result<(), usize> = super::for_each_in_order(
            &items,
            2,
            |x| x * 3,
            |r| {
                seen.push(r);
                Ok(())
            },
        );
        assert_eq!(done, Ok(()));
        assert_eq!(seen, items.iter().map(|x| x * 3).collect::<Vec<_>>());
        // Errors at 500 and 700 (and the items after them): 500 is the one.
        let mut count = 0;
        let failed = super::for_each_in_order(
            &items,
            2,
            |x| {
                if *x == 500 || *x == 700 {
                    Err(*x)
                } else {
                    Ok(*x)
                }
            },
            |r| {
                count += 1;
                r.map(|_| ())
            },
        );
        assert_eq!(failed, Err(500));
        assert_eq!(count, 501);
        // Few items: one thread, same answer.
        let failed = super::for_each_in_order(&items[..3], 64, |x| Err::<(), _>(*x), |r| r);
        assert_eq!(failed, Err(0));
    }

    #[test]
    fn join_returns_both_results_big_or_small() {
        assert_eq!(super::join(1, || 1, || 2), (1, 2));
        assert_eq!(super::join(1 << 30, || "a", || "b"), ("a", "b"));
    }
}
