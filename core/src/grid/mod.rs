//! PLACEHOLDER while the structure is being written: a brute-force list.

use core::ops::ControlFlow;

use crate::index::raw::{HasSlots, Structure};
use crate::index::{check_world, Kind, NodeInfo, SpatialIndex, Stats};
use crate::slots::{slot_record, SlotPool, SlotRecord};
use crate::{Error, Handle, Rect};

/// Placeholder.
#[derive(Clone, Debug)]
pub struct Grid {
    world: Rect,
    slots: SlotPool<Slot>,
}

/// A slot.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    rect: Rect,
    id: u32,
    stamp: u32,
}

slot_record!(
    Slot,
    Slot {
        rect: Rect::new(0.0, 0.0, 0.0, 0.0),
        id: 0,
        stamp: 0
    }
);

impl Grid {
    /// Placeholder.
    ///
    /// # Errors
    /// [`Error::InvalidWorld`].
    pub fn for_world(world: Rect) -> Result<Grid, Error> {
        check_world(world)?;
        Ok(Grid {
            world,
            slots: SlotPool::new(),
        })
    }

    /// Placeholder.
    ///
    /// # Errors
    /// [`Error::InvalidWorld`].
    pub fn new(world: Rect, columns: u32, rows: u32) -> Result<Grid, Error> {
        let _ = (columns, rows);
        Grid::for_world(world)
    }

    /// Placeholder.
    ///
    /// # Errors
    /// [`Error::InvalidWorld`].
    pub fn with_cell_size(world: Rect, cell_width: f32, cell_height: f32) -> Result<Grid, Error> {
        let _ = (cell_width, cell_height);
        Grid::for_world(world)
    }

    /// Placeholder.
    pub fn columns(&self) -> u32 {
        1
    }

    /// Placeholder.
    pub fn rows(&self) -> u32 {
        1
    }

    /// Placeholder.
    pub fn cell_width(&self) -> f32 {
        1.0
    }

    /// Placeholder.
    pub fn cell_height(&self) -> f32 {
        1.0
    }
}

impl HasSlots for Grid {
    type Slot = Slot;
    fn slot_pool(&self) -> &SlotPool<Slot> {
        &self.slots
    }
    fn slot_pool_mut(&mut self) -> &mut SlotPool<Slot> {
        &mut self.slots
    }
}

impl Structure for Grid {
    fn insert_checked(&mut self, rect: Rect, id: u32) -> Handle {
        let slot = self.slots.alloc(rect, id);
        self.slots.handle(slot)
    }
    fn remove_checked(&mut self, slot: u32) {
        self.slots.free(slot)
    }
    fn relocate(&mut self, slot: u32, rect: Rect) {
        self.slots.slots[slot as usize].rect = rect;
    }
    fn query_checked<F>(&self, rect: Rect, omit: u32, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        for (i, s) in self.slots.slots.iter().enumerate() {
            if s.is_live() && i as u32 != omit && s.rect.intersects(&rect) {
                visit(self.slots.handle(i as u32))?;
            }
        }
        ControlFlow::Continue(())
    }
}

impl SpatialIndex for Grid {
    fn world(&self) -> Rect {
        self.world
    }
    fn cleanup(&mut self) {}
    fn clear(&mut self) {
        self.slots.free_all()
    }
    fn pairs_with<F>(&self, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let all: Vec<_> = self.iter().collect();
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                if a.1.intersects(&b.1) {
                    visit(a.0, b.0)?;
                }
            }
        }
        ControlFlow::Continue(())
    }
    fn traverse<B, L>(&self, _branch: B, _leaf: L) -> ControlFlow<()>
    where
        B: FnMut(&NodeInfo) -> ControlFlow<()>,
        L: FnMut(&NodeInfo) -> ControlFlow<()>,
    {
        ControlFlow::Continue(())
    }
    fn stats(&self) -> Stats {
        Stats::default()
    }
    fn validate(&self) -> Result<(), String> {
        self.slots.validate()
    }
    fn to_bytes(&self) -> Vec<u8> {
        let mut w = crate::index::snapshot::Writer::new(Kind::Grid, 0);
        w.rect(&self.world);
        crate::index::snapshot::write_slots(&mut w, &self.slots, |_, _| {});
        w.out
    }
    fn from_bytes(bytes: &[u8]) -> Result<Grid, Error> {
        let mut r = crate::index::snapshot::Reader::expect(bytes, Kind::Grid)?;
        let world = r.rect()?;
        let mut out = Grid::for_world(world)?;
        out.slots = crate::index::snapshot::read_slots(&mut r, 0, |s, _| Ok(s))?;
        r.finish()?;
        Ok(out)
    }
}
