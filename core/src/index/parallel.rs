//! Batch queries on every thread of rayon's pool (cargo feature `rayon`), for
//! every structure: the batch is cut into chunks, each queried on its own.

use rayon::prelude::*;

use super::SpatialIndex;
use crate::{Error, Handle};

/// Chunks handed out per thread, so that uneven ones even out.
pub(crate) const TASKS_PER_THREAD: usize = 4;

/// Below this many rectangles a batch query stays on the calling thread.
const PAR_QUERY_MIN_RECTS: usize = 1_000;

/// [`SpatialIndex::par_query_many`].
pub(crate) fn query_many<T: SpatialIndex + Sync>(
    index: &T,
    rects: &[T::Bounds],
    omit: Option<&[Handle]>,
    offsets: &mut Vec<usize>,
    hits: &mut Vec<Handle>,
) -> Result<(), Error> {
    if rects.len() < PAR_QUERY_MIN_RECTS || rayon::current_num_threads() == 1 {
        return index.query_many(rects, omit, offsets, hits);
    }
    index.check_query_many(rects, omit)?;
    let chunk = rects
        .len()
        .div_ceil(rayon::current_num_threads() * TASKS_PER_THREAD)
        .max(1);
    let parts: Vec<(Vec<usize>, Vec<Handle>)> = rects
        .par_chunks(chunk)
        .enumerate()
        .map(|(c, rects)| {
            let omit = omit.map(|omit| &omit[c * chunk..c * chunk + rects.len()]);
            let (mut counts, mut found) = (Vec::with_capacity(rects.len()), Vec::new());
            index.query_each(rects, omit, &mut counts, &mut found);
            (counts, found)
        })
        .collect();
    offsets.clear();
    offsets.reserve(rects.len() + 1);
    offsets.push(0);
    hits.clear();
    for (counts, found) in parts {
        for count in counts {
            offsets.push(offsets[offsets.len() - 1] + count);
        }
        hits.extend(found);
    }
    Ok(())
}
