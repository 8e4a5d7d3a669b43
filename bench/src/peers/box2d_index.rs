//! Box2D v3's dynamic tree (through `boxdd-sys`, which builds Box2D's C source),
//! run the way Box2D's broad-phase runs it.

use std::collections::HashSet;
use std::ffi::c_void;
use std::hash::{BuildHasherDefault, Hasher};
use std::os::raw::c_int;

use boxdd_sys::ffi::{
    b2AABB, b2DynamicTree, b2DynamicTree_Create, b2DynamicTree_CreateProxy, b2DynamicTree_Destroy,
    b2DynamicTree_GetByteCount, b2DynamicTree_MoveProxy, b2DynamicTree_Query, b2Vec2,
};

use crate::workload::{Aabb, Agents, Lcg};
use crate::{BenchError, Index, Mode};

/// Every proxy's category, and every query's mask: no filtering.
const ALL_BITS: u64 = u64::MAX;

/// The pair key of agents `a != b`, the same whichever comes first.
#[inline]
fn pair_key(a: u32, b: u32) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (lo as u64) << 32 | hi as u64
}

/// A hasher for the pair keys (murmur3's 64-bit finaliser), as Box2D's own pair
/// set hashes its keys, instead of std's SipHash.
#[derive(Clone, Copy, Default)]
struct PairHasher(u64);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 ^ b as u64);
        }
    }

    fn write_u64(&mut self, v: u64) {
        let mut h = v ^ (v >> 33);
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        self.0 = h ^ (h >> 33);
    }
}

type PairSet = HashSet<u64, BuildHasherDefault<PairHasher>>;

/// Box2D's dynamic tree under the agents workload, as Box2D's broad-phase uses it
/// (`broad_phase.c`): each agent is a proxy whose box in the tree is *fat*, its
/// rectangle grown by `margin` on every side. Update: an agent whose rectangle
/// left its fat box gets a new fat box around it (`b2DynamicTree_MoveProxy`: the
/// leaf removed and reinserted, Box2D's `b2Body_SetTransform` path) and is marked
/// moved. The path of Box2D's solver (`b2DynamicTree_EnlargeProxy`, then one
/// `b2DynamicTree_Rebuild` a frame) measured up to 1.6x slower all pairs and 1.3x
/// to 2x per agent here (uniform-100k, margins of 1 and 2 sides), so it is not
/// offered. All-pairs: each moved proxy queries the tree with its fat box
/// (`b2DynamicTree_Query`, a callback per hit); a hit that is itself moved and
/// comes first is left to that proxy's own query (Box2D's `b2PairQueryCallback`),
/// and a new pair goes into the pair set (Box2D's contacts); then every pair of the
/// set is checked: dropped when the fat boxes no longer overlap, counted when the
/// rectangles do (the exact closed test: Box2D's narrow phase here). Events: the
/// same update, counting the pairs whose touching flag flipped and the touching
/// pairs dropped (Box2D's begin and end touch events). Per-agent and
/// the static queries: one `b2DynamicTree_Query` with the agent's (or the query's)
/// exact rectangle, the hits filtered by the exact test (Box2D's own test,
/// `b2AABB_Overlaps`, is closed too, so no candidate is lost).
///
/// The fat boxes start as in a long run's steady state (each made a random number
/// of frames before, see `build`), so that the benchmark's dozen frames do not
/// flatter big margins. Box2D is
/// compiled as `boxdd-sys` compiles it: `-O2`, its asserts on (`cc` defines no
/// `NDEBUG`; a build with `CFLAGS=-DNDEBUG` measured no faster).
pub struct Box2dIndex {
    name: &'static str,
    margin: f32,
    tree: Option<b2DynamicTree>,
    /// Per agent: its proxy, its rectangle and its fat box.
    proxies: Vec<c_int>,
    tight: Vec<Aabb>,
    fat: Vec<Aabb>,
    /// The proxies that moved since the last pair update, and a flag per agent.
    moved: Vec<u32>,
    is_moved: Vec<bool>,
    /// The pairs whose fat boxes overlap (Box2D's contacts), and whether
    /// their rectangles overlapped at the last pair update.
    pairs: Vec<[u32; 2]>,
    touching: Vec<bool>,
    pair_set: PairSet,
}

impl Box2dIndex {
    /// The margin used by the benchmarks, in agent sides: the fastest of 1/8
    /// (Box2D's own `B2_AABB_MARGIN_FRACTION` of a shape's extent), 1/4, 1/2, 1
    /// and 2 on `uniform-100k`, both modes (1/2 to 2 within 1.7x of each other in
    /// all-pairs, 2.3x in per-agent; 1/8 and 1/4 up to 3x slower: nearly every
    /// proxy moves every frame).
    pub const DEFAULT_MARGIN: f32 = 1.0;

    /// An adapter whose fat boxes have `margin` on every side.
    pub fn new(name: &'static str, margin: f32) -> Self {
        Box2dIndex {
            name,
            margin,
            tree: None,
            proxies: Vec::new(),
            tight: Vec::new(),
            fat: Vec::new(),
            moved: Vec::new(),
            is_moved: Vec::new(),
            pairs: Vec::new(),
            touching: Vec::new(),
            pair_set: PairSet::default(),
        }
    }

    /// Box2D with the benchmarks' margin (`DEFAULT_MARGIN` agent sides).
    pub fn for_size(size: f32) -> Self {
        Self::new("box2d", size * Self::DEFAULT_MARGIN)
    }

    fn fatten(&self, r: &Aabb) -> Aabb {
        Aabb {
            x1: r.x1 - self.margin,
            y1: r.y1 - self.margin,
            x2: r.x2 + self.margin,
            y2: r.y2 + self.margin,
        }
    }

    fn tree(&self) -> Result<&b2DynamicTree, BenchError> {
        self.tree
            .as_ref()
            .ok_or_else(|| BenchError::new("box2d: the index was not built"))
    }

    fn destroy(&mut self) {
        if let Some(mut tree) = self.tree.take() {
            // SAFETY: the tree was made by b2DynamicTree_Create and is destroyed once.
            unsafe { b2DynamicTree_Destroy(&mut tree) };
        }
    }

    fn mark_moved(&mut self, id: usize) {
        if !self.is_moved[id] {
            self.is_moved[id] = true;
            self.moved.push(id as u32);
        }
    }

    fn clear_moved(&mut self) {
        for &id in &self.moved {
            self.is_moved[id as usize] = false;
        }
        self.moved.clear();
    }

    /// Box2D's pair update: each moved proxy queries the tree with its fat box
    /// for new pairs (Box2D's `b2UpdateBroadPhasePairs`), then every pair of
    /// the set is checked (its contact update): dropped when the fat boxes
    /// parted, touching when the rectangles overlap. Returns the touching pairs
    /// and the contact events: pairs whose touching flag flipped (Box2D's begin
    /// and end touch events), and touching pairs dropped.
    fn update_pairs(&mut self) -> Result<(u64, u64), BenchError> {
        let tree = self
            .tree
            .as_ref()
            .ok_or_else(|| BenchError::new("box2d: the index was not built"))?;
        for &me in &self.moved {
            let mut ctx = PairQuery {
                me,
                is_moved: &self.is_moved,
                pairs: &mut self.pairs,
                touching: &mut self.touching,
                pair_set: &mut self.pair_set,
            };
            // SAFETY: the tree is valid; the callback uses `ctx` only during the call.
            unsafe {
                b2DynamicTree_Query(
                    tree,
                    b2aabb(&self.fat[me as usize]),
                    ALL_BITS,
                    Some(pair_callback),
                    &mut ctx as *mut PairQuery as *mut c_void,
                )
            };
        }
        self.clear_moved();
        let (mut touching, mut events) = (0, 0);
        let mut i = 0;
        while i < self.pairs.len() {
            let [a, b] = self.pairs[i];
            let (a, b) = (a as usize, b as usize);
            if !self.fat[a].overlaps(&self.fat[b]) {
                events += self.touching[i] as u64;
                self.pair_set.remove(&pair_key(a as u32, b as u32));
                self.pairs.swap_remove(i);
                self.touching.swap_remove(i);
                continue;
            }
            let now = self.tight[a].overlaps(&self.tight[b]);
            events += (now != self.touching[i]) as u64;
            self.touching[i] = now;
            touching += now as u64;
            i += 1;
        }
        Ok((touching, events))
    }

    /// The hits of the closed rectangle `q` among the agents, less `skip` (an
    /// agent id, or `u32::MAX`).
    fn count(&self, q: &Aabb, skip: u32) -> Result<u64, BenchError> {
        let tree = self.tree()?;
        let mut ctx = CountQuery {
            q: *q,
            skip,
            tight: &self.tight,
            hits: 0,
        };
        // SAFETY: the tree is valid; the callback reads `ctx` only during the call.
        unsafe {
            b2DynamicTree_Query(
                tree,
                b2aabb(q),
                ALL_BITS,
                Some(count_callback),
                &mut ctx as *mut CountQuery as *mut c_void,
            )
        };
        Ok(ctx.hits)
    }
}

impl Drop for Box2dIndex {
    fn drop(&mut self) {
        self.destroy();
    }
}

fn b2aabb(r: &Aabb) -> b2AABB {
    b2AABB {
        lowerBound: b2Vec2 { x: r.x1, y: r.y1 },
        upperBound: b2Vec2 { x: r.x2, y: r.y2 },
    }
}

/// Whether `outer` holds `inner` (Box2D's `b2AABB_Contains`).
#[inline]
fn contains(outer: &Aabb, inner: &Aabb) -> bool {
    outer.x1 <= inner.x1 && outer.y1 <= inner.y1 && inner.x2 <= outer.x2 && inner.y2 <= outer.y2
}

struct CountQuery<'a> {
    q: Aabb,
    skip: u32,
    tight: &'a [Aabb],
    hits: u64,
}

unsafe extern "C" fn count_callback(_proxy: c_int, user: u64, context: *mut c_void) -> bool {
    // SAFETY: `context` is the `CountQuery` that `Box2dIndex::count` passed.
    let ctx = unsafe { &mut *(context as *mut CountQuery) };
    let id = user as u32;
    if id != ctx.skip && ctx.tight[id as usize].overlaps(&ctx.q) {
        ctx.hits += 1;
    }
    true
}

struct PairQuery<'a> {
    me: u32,
    is_moved: &'a [bool],
    pairs: &'a mut Vec<[u32; 2]>,
    touching: &'a mut Vec<bool>,
    pair_set: &'a mut PairSet,
}

unsafe extern "C" fn pair_callback(_proxy: c_int, user: u64, context: *mut c_void) -> bool {
    // SAFETY: `context` is the `PairQuery` that `Box2dIndex::all_pairs` passed.
    let ctx = unsafe { &mut *(context as *mut PairQuery) };
    let other = user as u32;
    // Not itself; and a pair of two moved proxies is found by the later one's
    // query only.
    if other == ctx.me || (other < ctx.me && ctx.is_moved[other as usize]) {
        return true;
    }
    if ctx.pair_set.insert(pair_key(ctx.me, other)) {
        ctx.pairs.push([ctx.me, other]);
        ctx.touching.push(false);
    }
    true
}

impl Index for Box2dIndex {
    fn name(&self) -> &'static str {
        self.name
    }

    fn supports(&self, _mode: Mode) -> bool {
        true
    }

    fn build(&mut self, agents: &Agents) -> Result<(), BenchError> {
        self.destroy();
        let n = agents.len();
        let capacity = c_int::try_from(n).map_err(|_| BenchError::new("box2d: too many agents"))?;
        // SAFETY: plain constructor.
        let mut tree = unsafe { b2DynamicTree_Create(capacity) };
        self.tight = agents.rects().collect();
        // Fat boxes as in the steady state of a long run, not all centred on their
        // rectangles as at a world's first step (then no box would leave its fat
        // box for `margin / speed` frames, longer than a whole run with big
        // margins): each agent's fat box was made `t` frames ago, `t` drawn
        // uniformly from the frames the agent stays inside it at its speed.
        let mut rng = Lcg::new();
        self.fat = Vec::with_capacity(n);
        for (id, r) in self.tight.iter().enumerate() {
            let (vx, vy) = (agents.vx[id], agents.vy[id]);
            let speed = vx.abs().max(vy.abs());
            let t = if speed > 0.0 {
                rng.f() * self.margin / speed
            } else {
                0.0
            };
            let centred = self.fatten(r);
            let aged = Aabb {
                x1: centred.x1 - vx * t,
                y1: centred.y1 - vy * t,
                x2: centred.x2 - vx * t,
                y2: centred.y2 - vy * t,
            };
            self.fat
                .push(if contains(&aged, r) { aged } else { centred });
        }
        self.proxies = self
            .fat
            .iter()
            .enumerate()
            // SAFETY: the tree is valid.
            .map(|(id, f)| unsafe {
                b2DynamicTree_CreateProxy(&mut tree, b2aabb(f), ALL_BITS, id as u64)
            })
            .collect();
        self.tree = Some(tree);
        // Every new proxy is moved (Box2D buffers a move for each new proxy).
        self.moved = (0..n as u32).collect();
        self.is_moved = vec![true; n];
        self.pairs.clear();
        self.touching.clear();
        self.pair_set.clear();
        Ok(())
    }

    fn update(&mut self, agents: &Agents) -> Result<(), BenchError> {
        let mut tree = self
            .tree
            .take()
            .ok_or_else(|| BenchError::new("box2d: the index was not built"))?;
        for id in 0..agents.len() {
            let r = agents.rect(id);
            self.tight[id] = r;
            if contains(&self.fat[id], &r) {
                continue;
            }
            let fat = self.fatten(&r);
            self.fat[id] = fat;
            // SAFETY: the tree is valid and the proxy is one of its leaves.
            unsafe { b2DynamicTree_MoveProxy(&mut tree, self.proxies[id], b2aabb(&fat)) };
            self.mark_moved(id);
        }
        self.tree = Some(tree);
        Ok(())
    }

    fn per_agent(&mut self, agents: &Agents) -> Result<u64, BenchError> {
        let mut hits = 0;
        for id in 0..agents.len() {
            hits += self.count(&self.tight[id], id as u32)?;
        }
        // No pair set in this mode: the moves are not wanted.
        self.clear_moved();
        Ok(hits)
    }

    fn all_pairs(&mut self, _agents: &Agents) -> Result<u64, BenchError> {
        Ok(self.update_pairs()?.0)
    }

    fn events(&mut self, _agents: &Agents) -> Result<u64, BenchError> {
        Ok(self.update_pairs()?.1)
    }

    fn rect_queries(&mut self, queries: &[Aabb]) -> Result<u64, BenchError> {
        let mut hits = 0;
        for q in queries {
            hits += self.count(q, u32::MAX)?;
        }
        Ok(hits)
    }

    fn point_queries(&mut self, points: &[[f32; 2]]) -> Result<u64, BenchError> {
        let mut hits = 0;
        for &[x, y] in points {
            let q = Aabb::point(x, y);
            hits += self.count(&q, u32::MAX)?;
        }
        Ok(hits)
    }

    fn bytes(&self) -> Option<usize> {
        let tree = self.tree.as_ref()?;
        // SAFETY: the tree is valid.
        let tree_bytes = unsafe { b2DynamicTree_GetByteCount(tree) } as usize;
        Some(
            tree_bytes
                + (self.tight.capacity() + self.fat.capacity()) * std::mem::size_of::<Aabb>()
                + self.proxies.capacity() * 4
                + self.moved.capacity() * 4
                + self.is_moved.capacity()
                + self.pairs.capacity() * 8
                + self.touching.capacity()
                + self.pair_set.capacity() * 9,
        )
    }
}
