//! A full structural check of the tree, for tests and for debugging a binding.

use crate::dimension::Dimension;
use crate::flat_tree::nodes::{home_leaves, Node};
use crate::flat_tree::FlatTree;
use crate::slots::NONE;
use crate::tree_lines::{unpack_place, Cell, Place, Stack, NO_PLACE};

impl<D: Dimension> FlatTree<D> {
    /// Checks every invariant of the tree and says which one fails first.
    ///
    /// Each live element is linked in exactly the leaves its rectangle meets,
    /// once each; leaf counts match their lists; depths stay within `max_depth`;
    /// every node, link and slot is either in use or on its free list, exactly
    /// once. Costs O(size) time and allocates: meant for tests, not for frames.
    ///
    /// # Errors
    /// A description of the first broken invariant.
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        let nodes = &self.nodes.nodes;
        let links = &self.links.links;
        let slots = &self.slots.slots;
        let mut node_seen = vec![false; nodes.len()];
        let mut link_seen = vec![false; links.len()];
        // For each slot, the leaves it is linked in, in walk order.
        let mut linked_in: Vec<Vec<u32>> = vec![Vec::new(); slots.len()];

        let siblings = D::CHILDREN as usize;
        let mut stack = Stack::<D>::new();
        stack.push(Cell::ROOT);
        while let Some(cell) = stack.pop() {
            let index = cell.node as usize;
            if index >= nodes.len() || node_seen[index] {
                return Err(format!("node {index} out of range or reached twice"));
            }
            node_seen[index] = true;
            if cell.depth > self.max_depth() {
                return Err(format!(
                    "node {index} at depth {} past max_depth",
                    cell.depth
                ));
            }
            let node = nodes[index];
            if node.is_branch() {
                let first = node.first as usize;
                if first == 0 || (first - 1) % siblings != 0 || first + siblings > nodes.len() {
                    return Err(format!("branch {index} has a bad child block {first}"));
                }
                if cell.depth == self.max_depth() {
                    return Err(format!("branch {index} at max_depth"));
                }
                self.push_children(&mut stack, &cell, node.first, (1 << D::CHILDREN) - 1);
                continue;
            }
            if node.count < 0 {
                return Err(format!("node {index} reachable but marked {}", node.count));
            }
            let mut length = 0;
            let mut link = node.first;
            while link != NONE {
                let at = link as usize;
                if at >= links.len() || link_seen[at] {
                    return Err(format!("leaf {index}: link {at} out of range or shared"));
                }
                link_seen[at] = true;
                let element = links[at].element as usize;
                if element >= slots.len() || !self.slots.is_live(element as u32) {
                    return Err(format!("leaf {index} links dead slot {element}"));
                }
                if linked_in[element].last() == Some(&cell.node) {
                    return Err(format!("leaf {index} links slot {element} twice"));
                }
                linked_in[element].push(cell.node);
                length += 1;
                link = links[at].next;
            }
            if length != node.count {
                return Err(format!(
                    "leaf {index} counts {} but links {length}",
                    node.count
                ));
            }
        }

        self.slots.validate()?;
        for (index, slot) in slots.iter().enumerate() {
            if !self.slots.is_live(index as u32) {
                if !linked_in[index].is_empty() {
                    return Err(format!("free slot {index} is linked"));
                }
                continue;
            }
            let cells = self.leaves_of(&slot.rect);
            self.check_place(index, slot.place, &cells)?;
            self.check_home(index, slot.place, slot.home, &cells)?;
            let mut expected: Vec<u32> = cells.iter().map(|cell| cell.node).collect();
            let mut found = linked_in[index].clone();
            expected.sort_unstable();
            found.sort_unstable();
            if expected != found {
                return Err(format!(
                    "slot {index} {} is linked in leaves {found:?}, should be in {expected:?}",
                    slot.rect
                ));
            }
        }
        let mut block = self.nodes.free_block;
        while block != NONE {
            let first = block as usize;
            if first == 0 || (first - 1) % siblings != 0 || first + siblings > nodes.len() {
                return Err(format!("free node block {first} misplaced"));
            }
            for at in first..first + siblings {
                if node_seen[at] || nodes[at].count != Node::FREE {
                    return Err(format!("free node {at} in use or not marked free"));
                }
                node_seen[at] = true;
            }
            block = nodes[first].first;
        }
        if let Some(lost) = node_seen.iter().position(|seen| !seen) {
            return Err(format!("node {lost} neither in the tree nor free"));
        }

        let mut link = self.links.free;
        while link != NONE {
            let at = link as usize;
            if at >= links.len() || link_seen[at] || links[at].element != NONE {
                return Err(format!(
                    "free link {at} out of range, in use or reached twice"
                ));
            }
            link_seen[at] = true;
            link = links[at].next;
        }
        if let Some(lost) = link_seen.iter().position(|seen| !seen) {
            return Err(format!("link {lost} neither in a leaf nor free"));
        }

        Ok(())
    }

    /// A slot's recorded place must name exactly the leaves it lies in.
    fn check_place(&self, index: usize, place: Place, leaves: &[Cell<D>]) -> Result<(), String> {
        if place == NO_PLACE {
            return Ok(());
        }
        let block = unpack_place::<D>(place);
        // Every cell of the block: offsets 0 or 1 on each axis, within its width.
        let mut named: Vec<(u32, Vec<u32>)> = (0..D::CHILDREN)
            .filter(|k| (0..D::AXES).all(|axis| (k >> axis & 1) < block.width.as_ref()[axis]))
            .map(|k| {
                let at = (0..D::AXES).map(|axis| block.at.as_ref()[axis] + (k >> axis & 1));
                (block.depth, at.collect())
            })
            .collect();
        let mut actual: Vec<(u32, Vec<u32>)> = leaves
            .iter()
            .map(|c| (c.depth, c.at.as_ref().to_vec()))
            .collect();
        actual.sort_unstable();
        named.sort_unstable();
        if actual != named {
            return Err(format!(
                "slot {index} has place {place:#x} naming {named:?} but lies in {actual:?}"
            ));
        }
        Ok(())
    }

    /// A slot's recorded home must lead to exactly the leaves it lies in.
    fn check_home(
        &self,
        index: usize,
        place: Place,
        home: u32,
        leaves: &[Cell<D>],
    ) -> Result<(), String> {
        if home == NONE {
            return Ok(());
        }
        let nodes = &self.nodes.nodes;
        if place == NO_PLACE {
            return Err(format!("slot {index} has a home but no place"));
        }
        let single = unpack_place::<D>(place).is_one_leaf();
        if home as usize >= nodes.len() || nodes[home as usize].is_branch() == single {
            return Err(format!(
                "slot {index} has home {home}, not a node of the right kind"
            ));
        }
        let mut named: Vec<u32> = home_leaves::<D>(place, home, nodes).collect();
        let mut actual: Vec<u32> = leaves.iter().map(|cell| cell.node).collect();
        named.sort_unstable();
        actual.sort_unstable();
        if named != actual {
            return Err(format!(
                "slot {index}: home {home} names leaves {named:?} but it lies in {actual:?}"
            ));
        }
        Ok(())
    }

    /// The leaves a box meets, found by descending from the root.
    fn leaves_of(&self, rect: &D::Bounds) -> Vec<Cell<D>> {
        let mut leaves = Vec::new();
        let mut stack = Stack::<D>::new();
        stack.push(Cell::ROOT);
        while let Some(cell) = stack.pop() {
            let node = self.nodes.nodes[cell.node as usize];
            if node.is_branch() {
                self.push_children(&mut stack, &cell, node.first, self.mask_at(&cell, rect));
            } else {
                leaves.push(cell);
            }
        }
        leaves
    }
}
