//! A batch of queries as the columns a binding receives (rectangles and the
//! handles to leave out, or centres and radii), answered a block of
//! [`Query`] values at a time: a million 48-byte queries built at once were
//! 48 MB of fresh memory, whose page faults cost a third of the batch.

use core::ops::Range;

use super::{check_lengths, Query, SpatialIndex};
use crate::{Bounds, Error, Handle};

/// Queries built and answered at a time by [`QueryColumns::answer`]: 3 MB of
/// queries, which stay warm in the allocator between blocks. Measured on 1M
/// static rect queries of the grid (2 vCPUs): 65,536 and 262,144 alike, the
/// whole batch at once 1.6× slower on two threads and 1.3× on one.
const BLOCK: usize = 65_536;

/// A batch of queries given as columns: the form [`Query::of_rects`] and
/// [`Query::of_circles`] take, answered by [`answer`](QueryColumns::answer)
/// without building every query first. Made by [`rects`](QueryColumns::rects)
/// or [`circles`](QueryColumns::circles), which check the columns' lengths.
///
/// ```
/// use flatquad::{Grid, QueryColumns, Rect, SpatialIndex};
/// let mut grid = Grid::for_world(Rect::new(0.0, 0.0, 10.0, 10.0))?;
/// let a = grid.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 0)?;
/// let rects = [Rect::new(0.0, 0.0, 1.0, 1.0), Rect::new(5.0, 5.0, 6.0, 6.0)];
/// let (mut offsets, mut hits) = (Vec::new(), Vec::new());
/// QueryColumns::rects(&rects, None)?.answer(&grid, &mut offsets, &mut hits)?;
/// assert_eq!((offsets, hits), (vec![0, 1, 1], vec![a]));
/// # Ok::<(), flatquad::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct QueryColumns<'a, B: Bounds>(Columns<'a, B>);

/// The columns, of equal lengths.
#[derive(Clone, Copy, Debug)]
enum Columns<'a, B: Bounds> {
    Rects {
        rects: &'a [B],
        omit: Option<&'a [Handle]>,
    },
    Circles {
        centers: &'a [B::Point],
        radii: &'a [f64],
        mask: u32,
    },
}

impl<'a, B: Bounds> QueryColumns<'a, B> {
    /// Rectangle queries, leaving out `omit[i]` from row `i` if given.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if `omit` is not as long as `rects`.
    pub fn rects(rects: &'a [B], omit: Option<&'a [Handle]>) -> Result<Self, Error> {
        if let Some(omit) = omit {
            check_lengths(rects.len(), omit.len())?;
        }
        Ok(QueryColumns(Columns::Rects { rects, omit }))
    }

    /// Circle queries around `centers[i]` of `radii[i]`, each with `mask`.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if `radii` is not as long as `centers`.
    pub fn circles(centers: &'a [B::Point], radii: &'a [f64], mask: u32) -> Result<Self, Error> {
        check_lengths(centers.len(), radii.len())?;
        Ok(QueryColumns(Columns::Circles {
            centers,
            radii,
            mask,
        }))
    }

    /// The number of queries.
    pub fn len(&self) -> usize {
        match self.0 {
            Columns::Rects { rects, .. } => rects.len(),
            Columns::Circles { centers, .. } => centers.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Queries `range` as values, appended to `out`.
    fn extend(&self, range: Range<usize>, out: &mut Vec<Query<B>>) {
        match self.0 {
            Columns::Rects { rects, omit: None } => {
                out.extend(rects[range].iter().map(|&rect| Query::rect(rect)));
            }
            Columns::Rects {
                rects,
                omit: Some(omit),
            } => out.extend(
                rects[range.clone()]
                    .iter()
                    .zip(&omit[range])
                    .map(|(&rect, &omit)| Query {
                        omit: Handle::optional(omit.to_raw()),
                        ..Query::rect(rect)
                    }),
            ),
            Columns::Circles {
                centers,
                radii,
                mask,
            } => out.extend(
                centers[range.clone()]
                    .iter()
                    .zip(&radii[range])
                    .map(|(&center, &radius)| Query::circle(center, radius).mask(mask)),
            ),
        }
    }

    /// Every query as a value.
    pub fn to_queries(&self) -> Vec<Query<B>> {
        let mut queries = Vec::with_capacity(self.len());
        self.extend(0..self.len(), &mut queries);
        queries
    }

    /// [`query_many`](SpatialIndex::query_many) of these queries (on every
    /// thread of rayon's pool, as
    /// [`par_query_many`](SpatialIndex::par_query_many), with the feature
    /// `rayon`), built and answered a block at a time: the same rows.
    ///
    /// # Errors
    /// The first bad query's error inside [`Error::InBatch`], its position
    /// counted from the batch's start. `offsets` and `hits` are left empty then.
    pub fn answer<T>(
        &self,
        index: &T,
        offsets: &mut Vec<usize>,
        hits: &mut Vec<Handle>,
    ) -> Result<(), Error>
    where
        T: SpatialIndex<Bounds = B> + Sync,
    {
        let len = self.len();
        if len <= BLOCK {
            return batch_query(index, &self.to_queries(), offsets, hits).inspect_err(|_| {
                offsets.clear();
                hits.clear();
            });
        }
        offsets.clear();
        offsets.reserve(len + 1);
        offsets.push(0);
        hits.clear();
        let mut queries = Vec::with_capacity(BLOCK);
        let (mut ends, mut found) = (Vec::new(), Vec::new());
        for start in (0..len).step_by(BLOCK) {
            queries.clear();
            self.extend(start..len.min(start + BLOCK), &mut queries);
            if let Err(error) = batch_query(index, &queries, &mut ends, &mut found) {
                offsets.clear();
                hits.clear();
                return Err(error.batch_from(start));
            }
            let base = hits.len();
            offsets.extend(ends[1..].iter().map(|&end| base + end));
            hits.extend_from_slice(&found);
        }
        Ok(())
    }
}

/// The core's batch query, on every thread of rayon's pool with the feature
/// `rayon`. (The bulk queries and joins of [`join`](super::join) answer
/// through [`QueryColumns`] too.)
fn batch_query<T: SpatialIndex + Sync>(
    index: &T,
    queries: &[Query<T::Bounds>],
    offsets: &mut Vec<usize>,
    hits: &mut Vec<Handle>,
) -> Result<(), Error> {
    #[cfg(feature = "rayon")]
    return index.par_query_many(queries, offsets, hits);
    #[cfg(not(feature = "rayon"))]
    return index.query_many(queries, offsets, hits);
}
