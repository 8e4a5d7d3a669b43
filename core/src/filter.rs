//! Collision filters: a 32-bit category and a 32-bit mask per element, as in
//! Box2D's `b2Filter` and rapier's `InteractionGroups`.

/// An element's collision filter. Two elements collide (are reported by
/// [`pairs`](crate::SpatialIndex::pairs) and
/// [`Query::element`](crate::Query::element)) only when each one's
/// category is in the other's mask; a query with a mask reports an element
/// only when its category is in the mask ([`Filter::ALL`] reports every element).
///
/// The default, [`Filter::DEFAULT`], is every category and every mask bit:
/// everything collides with everything.
///
/// ```
/// use flatquad::{Filter, Grid, Rect, SpatialIndex};
///
/// const PLAYER: u32 = 1 << 0;
/// const BULLET: u32 = 1 << 1;
/// let mut grid = Grid::for_world(Rect::new(0.0, 0.0, 64.0, 64.0))?;
/// let player = grid.insert(Rect::new(1.0, 1.0, 3.0, 3.0), 0)?;
/// let bullet = grid.insert(Rect::new(2.0, 2.0, 2.5, 2.5), 1)?;
/// let wall = grid.insert(Rect::new(2.2, 0.0, 2.4, 64.0), 2)?; // meets both
/// // The player's own bullets pass through the player, but not through walls.
/// grid.set_filter(player, Filter::new(PLAYER, Filter::ALL))?;
/// grid.set_filter(bullet, Filter::new(BULLET, !PLAYER))?;
/// let mut pairs = Vec::new();
/// grid.pairs(&mut pairs);
/// assert_eq!(pairs.len(), 2); // player-wall and bullet-wall
/// assert!(!pairs.contains(&(player, bullet)) && !pairs.contains(&(bullet, player)));
/// # let _ = wall;
/// # Ok::<(), flatquad::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Filter {
    /// The categories the element belongs to (bits).
    pub category: u32,
    /// The categories the element collides with (bits).
    pub mask: u32,
}

impl Filter {
    /// Every bit: as a query mask, reports every element whatever its category.
    pub const ALL: u32 = u32::MAX;

    /// Every category, every mask bit: what each element starts with.
    pub const DEFAULT: Filter = Filter {
        category: Filter::ALL,
        mask: Filter::ALL,
    };

    /// A filter from its category and mask bits.
    pub const fn new(category: u32, mask: u32) -> Filter {
        Filter { category, mask }
    }

    /// Whether two elements with these filters collide: each one's category
    /// in the other's mask (Box2D's rule).
    #[inline]
    pub const fn collides(self, other: Filter) -> bool {
        self.category & other.mask != 0 && other.category & self.mask != 0
    }

    /// Whether a query with `mask` reports an element with this filter.
    #[inline]
    pub const fn passes(self, mask: u32) -> bool {
        mask == Filter::ALL || self.category & mask != 0
    }
}

impl Default for Filter {
    fn default() -> Filter {
        Filter::DEFAULT
    }
}
