//! Batch queries on every thread of rayon's pool (cargo feature `rayon`), for
//! every structure: the batch is cut into chunks, each queried on its own.

use core::ops::Range;
use core::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::finish_moves::finish_on_panic;
use super::search::{self, Neighbor, Ray, RayHit};
use super::{check_max_distance, check_point, check_rays, query, Query, SpatialIndex};
use crate::{Bounds, Error, Handle};

/// Chunks handed out per thread, so that uneven ones even out.
pub(crate) const TASKS_PER_THREAD: usize = 4;

/// The length of the chunks a batch of `n` is cut into: `TASKS_PER_THREAD`
/// chunks a thread of the current pool.
fn chunk_len(n: usize) -> usize {
    n.div_ceil(rayon::current_num_threads() * TASKS_PER_THREAD)
        .max(1)
}

/// Below this many queries a batch stays on the calling thread.
const PAR_QUERY_MIN_RECTS: usize = 1_000;

/// The size from which every parallel call takes the threads, in place of
/// the measured sizes, when not 0: set by the thread-equivalence tests
/// ([`crate::parallel_from_for_tests`]) so that small random structures take
/// the parallel paths; the crate's unit tests start with it set.
static PARALLEL_FROM: AtomicUsize = AtomicUsize::new(if cfg!(test) { 16 } else { 0 });

/// [`crate::parallel_from_for_tests`].
pub(crate) fn set_parallel_from(size: usize) {
    PARALLEL_FROM.store(size, Ordering::Relaxed);
}

/// `measured`, a size from which work pays on threads, or the smaller size a
/// test set.
#[inline]
pub(crate) fn parallel_from(measured: usize) -> usize {
    match PARALLEL_FROM.load(Ordering::Relaxed) {
        0 => measured,
        set => set.min(measured),
    }
}

/// Whether a call over `size` items stays on the calling thread: below
/// `from`, the size measured to pay on threads (or the smaller one a test
/// set), or with a pool of one thread.
#[inline]
pub(crate) fn on_one_thread(size: usize, from: usize) -> bool {
    size < parallel_from(from) || rayon::current_num_threads() == 1
}

/// Runs `work` on a thread of rayon's pool: at once when called from one of
/// its threads, else as one job that the calling thread waits for. Every batch
/// call that takes the threads runs whole so, its steps on one thread (a
/// tree's moves, the checks, the rows' stitching) included. Called from
/// outside the pool (a thread that has not joined it, see
/// [`join_global_pool`]), those steps had run on the caller and the parallel
/// ones on the workers: a quadtree's pair walk right after its moves took
/// 1.6-2.6x as long as from inside the pool (uniform-100k, two threads;
/// `docs/design.md`, "Batch calls from outside the pool").
pub(crate) fn on_pool<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    if rayon::current_thread_index().is_some() {
        work()
    } else {
        rayon::scope(|_| work())
    }
}

/// How many threads rayon's global pool gets when built by default, read as
/// rayon 1.x reads it: `RAYON_NUM_THREADS` (0: the default), else the
/// deprecated `RAYON_RS_NUM_CPUS`, else the number of CPUs.
fn default_thread_count() -> usize {
    let count = |name| {
        std::env::var(name)
            .ok()
            .and_then(|n| n.parse::<usize>().ok())
    };
    let cpus = || std::thread::available_parallelism().map_or(1, |n| n.get());
    match count("RAYON_NUM_THREADS") {
        Some(0) => cpus(),
        Some(n) => n,
        None => count("RAYON_RS_NUM_CPUS")
            .filter(|&n| n > 0)
            .unwrap_or_else(cpus),
    }
}

/// The thread that [`join_global_pool`] made thread 0 of the global pool.
static JOINED: std::sync::OnceLock<std::thread::ThreadId> = std::sync::OnceLock::new();

/// [`crate::join_global_pool`].
pub(crate) fn join_global_pool() -> bool {
    let caller = std::thread::current().id();
    if let Some(&joined) = JOINED.get() {
        return joined == caller;
    }
    let threads = default_thread_count();
    // Thread 0 runs no loop of its own: in a pool of it alone, a job another
    // thread gave the pool would wait until it came back.
    if threads < 2 || rayon::current_thread_index().is_some() {
        return false;
    }
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .use_current_thread()
        .build_global()
        .is_ok();
    if built {
        let _ = JOINED.set(caller);
    }
    built
}

/// `0..n` cut into at most `parts` ranges of equal length (the last may be
/// shorter), none empty, in order.
pub(crate) fn equal_ranges(n: u32, parts: usize) -> Vec<Range<u32>> {
    let len = n.div_ceil(parts.max(1) as u32).max(1);
    (0..n.div_ceil(len))
        .map(|at| at * len..((at + 1) * len).min(n))
        .collect()
}

/// `0..n` cut into at most `parts` ranges of about even work, none empty, in
/// order: a range ends at the first item where the work done reaches the
/// next share of the whole not yet reached (an item heavier than a share
/// takes several, rather than leaving a range of one item behind it for each).
/// `work(i)` is read twice, so it should be cheap; each item counts at least 1.
pub(crate) fn ranges_of_even_work(
    n: u32,
    parts: usize,
    work: impl Fn(u32) -> u64,
) -> Vec<Range<u32>> {
    let work = |at| u128::from(work(at).max(1));
    let total: u128 = (0..n).map(work).sum();
    let parts = parts.max(1) as u128;
    let mut ranges = Vec::with_capacity(parts as usize);
    let (mut start, mut done, mut share) = (0, 0u128, 1u128);
    for at in 0..n {
        done += work(at);
        if done * parts >= total * share {
            ranges.push(start..at + 1);
            start = at + 1;
            share = done * parts / total + 1;
        }
    }
    debug_assert_eq!(start, n, "the last item reaches the last share");
    ranges
}

/// One chunk's answer: each row's end, and the hits.
type Rows = (Vec<usize>, Vec<Handle>);

/// The pairs of a pair walk cut into `parts`, each walked on its own on
/// rayon's threads by `walk` (adding its pairs to the list it is given), into
/// `pairs` (cleared first) in the order of `parts`: the structures' parallel
/// pair walks, whose parts are chosen so that this is the one-thread walk's
/// order. One list a part.
pub(crate) fn pairs_by_parts<P: Send>(
    parts: Vec<P>,
    pairs: &mut Vec<(Handle, Handle)>,
    walk: impl Fn(P, &mut Vec<(Handle, Handle)>) + Sync,
) {
    let found: Vec<Vec<(Handle, Handle)>> = parts
        .into_par_iter()
        .map(|part| {
            let mut found = Vec::new();
            walk(part, &mut found);
            found
        })
        .collect();
    concat_on_threads(&found, pairs);
}

/// `parts` one after the other into `into` (cleared first), each part
/// copied on its own task: in crowds a walk finds millions of pairs, and
/// copying them on the calling thread alone was a tenth of a two-thread walk.
fn concat_on_threads<T: Copy + Send + Sync>(parts: &[Vec<T>], into: &mut Vec<T>) {
    let total = parts.iter().map(Vec::len).sum();
    into.clear();
    into.reserve(total);
    let mut rest = &mut into.spare_capacity_mut()[..total];
    let mut targets = Vec::with_capacity(parts.len());
    for part in parts {
        let (target, after) = rest.split_at_mut(part.len());
        targets.push(target);
        rest = after;
    }
    targets
        .into_par_iter()
        .zip(parts)
        .for_each(|(target, part)| {
            for (to, &from) in target.iter_mut().zip(part) {
                to.write(from);
            }
        });
    // SAFETY: the targets cover the first `total` entries of the spare
    // capacity, each as long as its part, and every one was written above
    // (a task that panicked would have unwound past this line, `into` left
    // empty; `T: Copy` has nothing to drop).
    unsafe { into.set_len(total) };
}

/// The parts of a walk done with a stack, whose walks one after the other
/// make the whole walk in its order: at least `wanted` of them when the walk
/// has that many steps to open, found by opening the walk from `start`
/// level by level. `open(part, children)` pushes onto `children` what the
/// walk's stack would push for `part`, in that order, and says whether it
/// opened (a part that does not open is walked whole); the stack takes the
/// last pushed first, so they replace `part` reversed.
pub(crate) fn walk_parts<P: Copy>(
    start: P,
    wanted: usize,
    mut open: impl FnMut(P, &mut Vec<P>) -> bool,
) -> Vec<P> {
    let mut parts = vec![start];
    loop {
        let mut next = Vec::with_capacity(parts.len() * 4);
        let mut opened = false;
        for &part in &parts {
            let at = next.len();
            if open(part, &mut next) {
                next[at..].reverse();
                opened = true;
            } else {
                next.push(part);
            }
        }
        if !opened {
            return parts;
        }
        parts = next;
        if parts.len() >= wanted {
            return parts;
        }
    }
}

/// [`SpatialIndex::par_query_many`].
pub(crate) fn query_many<T: SpatialIndex + Sync>(
    index: &T,
    queries: &[Query<T::Bounds>],
    offsets: &mut Vec<usize>,
    hits: &mut Vec<Handle>,
) -> Result<(), Error> {
    if let Some(handles) = query::plain_elements(queries) {
        return overlapping_many(index, &handles, offsets, hits);
    }
    if on_one_thread(queries.len(), PAR_QUERY_MIN_RECTS) {
        return index.query_many(queries, offsets, hits);
    }
    on_pool(|| {
        // Each query is checked once, in its chunk (checking them all first on the
        // calling thread was a third of the serial time). The buffers are written
        // only when every chunk passed. The error reported is the lowest bad index:
        // the parts are collected in chunk order and the first error among them
        // taken (rayon's `collect` into a `Result` gives any error, not the first);
        // once a chunk fails, the chunks after it stop at their start.
        let chunk = chunk_len(queries.len());
        let first_bad = AtomicUsize::new(usize::MAX);
        let parts: Vec<Result<Rows, Error>> = queries
            .par_chunks(chunk)
            .enumerate()
            .map(|(c, queries)| {
                let (mut ends, mut found) = (Vec::new(), Vec::new());
                if c > first_bad.load(Ordering::Relaxed) {
                    // Never stitched: a chunk before this one failed.
                    return Ok((ends, found));
                }
                ends.reserve(queries.len());
                query::check_and_run_all(index, queries, c * chunk, &mut ends, &mut found)
                    .inspect_err(|_| {
                        first_bad.fetch_min(c, Ordering::Relaxed);
                    })?;
                Ok((ends, found))
            })
            .collect();
        let parts = parts.into_iter().collect::<Result<Vec<_>, Error>>()?;
        index.count_queries(queries.len());
        offsets.clear();
        offsets.reserve(queries.len() + 1);
        offsets.push(0);
        hits.clear();
        hits.reserve(parts.iter().map(|(_, found)| found.len()).sum());
        for (ends, found) in parts {
            let base = hits.len();
            offsets.extend(ends.iter().map(|&end| base + end));
            hits.extend(found);
        }
        Ok(())
    })
}

/// [`SpatialIndex::par_update_many`] (the lengths checked): the checks,
/// then the structure's moves ([`par_relocate_many`](super::raw::Structure::par_relocate_many)),
/// on rayon's pool when the checks take its threads; moves a panic stops are
/// finished ([`finish_on_panic`]).
pub(crate) fn update_many<T: SpatialIndex>(
    index: &mut T,
    handles: &[Handle],
    rects: &[T::Bounds],
) -> Result<(), Error> {
    let moves = |index: &mut T| index.par_relocate_many(handles, rects);
    if on_one_thread(handles.len(), PAR_QUERY_MIN_RECTS) {
        super::check_moves(index, handles, rects, 0)?;
        return finish_on_panic(index, handles, rects, moves);
    }
    on_pool(|| {
        check_moves_on_threads(index, handles, rects)?;
        finish_on_panic(index, handles, rects, moves)
    })
}

/// [`SpatialIndex::par_update_many`]'s checks: chunks on rayon's threads,
/// the first bad item (the lowest index) reported.
fn check_moves_on_threads<T: SpatialIndex>(
    index: &T,
    handles: &[Handle],
    rects: &[T::Bounds],
) -> Result<(), Error> {
    let chunk = chunk_len(handles.len());
    let first_error = handles
        .par_chunks(chunk)
        .zip(rects.par_chunks(chunk))
        .enumerate()
        .find_map_first(|(c, (handles, rects))| {
            super::check_moves(index, handles, rects, c * chunk).err()
        });
    first_error.map_or(Ok(()), Err)
}

/// [`SpatialIndex::par_nearest_many`]: everything checked first (so an error
/// writes nothing), then chunks of points on rayon's threads, their rows
/// stitched in order.
pub(crate) fn nearest_many<T: SpatialIndex + Sync>(
    index: &T,
    points: &[<T::Bounds as Bounds>::Point],
    k: usize,
    max_distance: Option<f64>,
    mask: u32,
    offsets: &mut Vec<usize>,
    out: &mut Vec<Neighbor>,
) -> Result<(), Error> {
    if on_one_thread(points.len(), PAR_QUERY_MIN_RECTS) {
        return index.nearest_many(points, k, max_distance, mask, offsets, out);
    }
    on_pool(|| {
        check_max_distance(max_distance)?;
        for (index, &point) in points.iter().enumerate() {
            check_point::<T::Bounds>(point).map_err(|e| e.in_batch(index))?;
        }
        rows_by_chunks(points, offsets, out, |points, rows, found| {
            index
                .nearest_many(points, k, max_distance, mask, rows, found)
                .expect("checked above");
        });
        Ok(())
    })
}

/// A checked batch's rows: `items` in chunks on rayon's threads, each
/// answered by `answer` (its offsets from a leading 0, as `nearest_many` and
/// `overlapping_many` write them, and its items), stitched in chunk order
/// into `offsets` and `out`, both cleared first.
fn rows_by_chunks<I: Sync, T: Send>(
    items: &[I],
    offsets: &mut Vec<usize>,
    out: &mut Vec<T>,
    answer: impl Fn(&[I], &mut Vec<usize>, &mut Vec<T>) + Sync,
) {
    let parts: Vec<(Vec<usize>, Vec<T>)> = items
        .par_chunks(chunk_len(items.len()))
        .map(|chunk| {
            let (mut rows, mut found) = (Vec::new(), Vec::new());
            answer(chunk, &mut rows, &mut found);
            (rows, found)
        })
        .collect();
    offsets.clear();
    offsets.reserve(1 + parts.iter().map(|(rows, _)| rows.len() - 1).sum::<usize>());
    offsets.push(0);
    out.clear();
    out.reserve(parts.iter().map(|(_, found)| found.len()).sum());
    for (rows, found) in parts {
        let base = out.len();
        offsets.extend(rows[1..].iter().map(|&end| base + end));
        out.extend(found);
    }
}

/// [`SpatialIndex::par_ray_cast_many`]: every ray checked first (so an error
/// writes nothing), then the rays on rayon's threads, the hits in ray order.
pub(crate) fn ray_cast_many<T: SpatialIndex + Sync>(
    index: &T,
    rays: &[Ray<<T::Bounds as Bounds>::Point>],
    mask: u32,
    out: &mut Vec<Option<RayHit>>,
) -> Result<(), Error> {
    if on_one_thread(rays.len(), PAR_QUERY_MIN_RECTS) {
        return index.ray_cast_many(rays, mask, out);
    }
    on_pool(|| {
        check_rays::<T::Bounds>(rays)?;
        rays.par_iter()
            .with_min_len(chunk_len(rays.len()))
            .map(|ray| search::ray_first(index, ray, mask))
            .collect_into_vec(out);
        Ok(())
    })
}

/// [`SpatialIndex::par_overlapping_many`]: every handle checked first (so an
/// error writes nothing), then chunks of handles on rayon's threads, each
/// answered by [`SpatialIndex::overlapping_many`], their rows stitched in
/// order; a batch of most elements goes to the one pair walk of
/// `overlapping_many` instead.
pub(crate) fn overlapping_many<T: SpatialIndex + Sync>(
    index: &T,
    handles: &[Handle],
    offsets: &mut Vec<usize>,
    hits: &mut Vec<Handle>,
) -> Result<(), Error> {
    // A batch of most elements is answered by one pair walk, which beats a
    // query per handle even on many threads.
    if on_one_thread(handles.len(), PAR_QUERY_MIN_RECTS)
        || super::by_pairs(handles.len(), index.live())
    {
        return index.overlapping_many(handles, offsets, hits);
    }
    on_pool(|| {
        for (at, &handle) in handles.iter().enumerate() {
            index.lookup(handle).map_err(|e| e.in_batch(at))?;
        }
        rows_by_chunks(handles, offsets, hits, |handles, rows, found| {
            index
                .overlapping_many(handles, rows, found)
                .expect("checked above");
        });
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::{equal_ranges, on_pool, ranges_of_even_work};

    #[test]
    fn on_pool_runs_on_a_worker() {
        // From the test's own thread, outside every pool: a job on the global pool.
        assert!(rayon::current_thread_index().is_none());
        assert!(on_pool(rayon::current_thread_index).is_some());
        // From inside a pool: there, at once.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| {
            let here = std::thread::current().id();
            assert_eq!(on_pool(|| std::thread::current().id()), here);
        });
    }

    #[test]
    fn equal_ranges_cover_in_order() {
        assert_eq!(equal_ranges(10, 3), [0..4, 4..8, 8..10]);
        assert_eq!(equal_ranges(3, 8), [0..1, 1..2, 2..3]);
        assert_eq!(equal_ranges(5, 0), vec![0..5]);
        assert!(equal_ranges(0, 4).is_empty());
    }

    #[test]
    fn ranges_of_even_work_cut_at_the_shares() {
        let of = |work: &[u64], parts| {
            ranges_of_even_work(work.len() as u32, parts, |at| work[at as usize])
        };
        assert_eq!(of(&[1; 10], 3), [0..4, 4..7, 7..10]);
        assert_eq!(of(&[1; 3], 8), [0..1, 1..2, 2..3]);
        assert_eq!(of(&[5, 0, 0], 1), vec![0..3]);
        // A heavy item takes the shares it passes: no range of one item after it.
        assert_eq!(of(&[1, 1, 1, 1000, 1, 1, 1, 1], 4), [0..4, 4..8]);
        assert_eq!(of(&[1000, 1, 1, 1, 1, 1, 1, 1], 4), [0..1, 1..8]);
        assert!(of(&[], 4).is_empty());
        // Any work, even near u64's limit: a cover of non-empty ranges, in order, at most `parts`.
        let mut state = 7u64;
        for round in 0..200 {
            let n = round % 37;
            let work: Vec<u64> = (0..n)
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    if round % 5 == 0 {
                        u64::MAX - (state >> 40)
                    } else {
                        state >> 54
                    }
                })
                .collect();
            let parts = 1 + round % 9;
            let ranges = of(&work, parts);
            assert!(ranges.len() <= parts, "{ranges:?} for {parts}");
            let mut next = 0;
            for range in &ranges {
                assert!(range.start == next && range.end > range.start, "{ranges:?}");
                next = range.end;
            }
            assert_eq!(next as usize, n, "{ranges:?}");
        }
    }
}
