//! Large arrays on transparent huge pages where the kernel waits to be asked.
//!
//! A million elements' slot records (32 MB), runs (24 MB) and links, read at
//! random, span thousands of 4 KiB pages, past what the TLB holds; on 2 MiB
//! pages such an array spans a few dozen. Linux backs anonymous memory with
//! huge pages only in ranges marked with `madvise(MADV_HUGEPAGE)` when
//! `/sys/kernel/mm/transparent_hugepage/enabled` is `madvise` (Debian's and
//! Ubuntu's default). So an array that grows to 4 MiB or more grows into a
//! fresh allocation, marked before anything is written to it, and its items
//! are moved there: `realloc` would copy them first, and the copied pages
//! would stay on 4 KiB. Elsewhere than Linux, and below 4 MiB, these are the
//! plain `Vec` calls.
//!
//! The mark belongs to the memory, not to the array: once the array is freed
//! the allocator may hand the range to anything else, which may then be
//! backed by huge pages too (its contents are never touched).

/// Bytes from which an array is marked: a few huge pages, so that the one
/// partly used page at its end never costs much memory.
const AT_LEAST: usize = 4 << 20;

/// `vec.reserve(additional)`: room for `additional` more items, at least
/// doubling the capacity when it grows.
#[inline]
pub(crate) fn reserve<T>(vec: &mut Vec<T>, additional: usize) {
    if vec.capacity() - vec.len() < additional {
        grow(vec, additional, false);
    }
}

/// `vec.reserve_exact(additional)`.
#[inline]
pub(crate) fn reserve_exact<T>(vec: &mut Vec<T>, additional: usize) {
    if vec.capacity() - vec.len() < additional {
        grow(vec, additional, true);
    }
}

/// `vec.push(value)`, through [`reserve`].
#[inline]
pub(crate) fn push<T>(vec: &mut Vec<T>, value: T) {
    reserve(vec, 1);
    vec.push(value);
}

/// `vec.resize(len, value)`, through [`reserve`].
#[inline]
pub(crate) fn resize<T: Clone>(vec: &mut Vec<T>, len: usize, value: T) {
    reserve(vec, len.saturating_sub(vec.len()));
    vec.resize(len, value);
}

/// Room for `additional` more items: an array of 4 MiB or more moves into a
/// fresh, marked allocation; a smaller one grows as `Vec` grows it.
#[cold]
fn grow<T>(vec: &mut Vec<T>, additional: usize, exact: bool) {
    let wanted = vec.len().saturating_add(additional);
    let capacity = if exact {
        wanted
    } else {
        wanted.max(vec.capacity().saturating_mul(2))
    };
    if !cfg!(target_os = "linux") || capacity.saturating_mul(core::mem::size_of::<T>()) < AT_LEAST {
        if exact {
            vec.reserve_exact(additional);
        } else {
            vec.reserve(additional);
        }
        return;
    }
    let mut fresh = Vec::with_capacity(capacity);
    advise(&fresh);
    fresh.append(vec);
    *vec = fresh;
}

/// Marks the whole huge pages inside `vec`'s allocation; whether the kernel
/// took the advice.
#[cfg(target_os = "linux")]
fn advise<T>(vec: &Vec<T>) -> bool {
    const HUGE: usize = 2 << 20;
    let bytes = vec.capacity() * core::mem::size_of::<T>();
    let start = vec.as_ptr() as usize;
    let (first, end) = (start.next_multiple_of(HUGE), (start + bytes) / HUGE * HUGE);
    // SAFETY: the range lies inside `vec`'s allocation, and the advice
    // changes how the kernel backs its pages, never their contents. A
    // refusal (a kernel without huge pages) leaves them as they were.
    end > first
        && unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) }
            == 0
}

#[cfg(not(target_os = "linux"))]
fn advise<T>(_vec: &Vec<T>) -> bool {
    false
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The flags of the mapping that holds `address`, from `/proc/self/smaps`.
    fn mapping_flags(address: usize) -> String {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((lo, hi)) = range.split_once('-') {
                    if let (Ok(lo), Ok(hi)) =
                        (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                    {
                        inside = (lo..hi).contains(&address);
                        continue;
                    }
                }
            }
            if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    return flags.to_string();
                }
            }
        }
        panic!("no mapping holds {address:#x}");
    }

    /// Whether the kernel takes the advice at all (not on a kernel built
    /// without transparent huge pages, nor where a sandbox refuses `madvise`).
    fn kernel_takes_advice() -> bool {
        super::advise(&Vec::<u8>::with_capacity(8 << 20))
    }

    #[test]
    fn large_arrays_grow_into_marked_memory_with_their_items() {
        let takes = kernel_takes_advice();
        let mut reserved = Vec::<u64>::new();
        super::reserve(&mut reserved, 2 << 20); // 16 MiB
        assert!(reserved.capacity() >= 2 << 20);
        assert_eq!(
            middle_marked(&reserved.spare_capacity_mut()[..1 << 20]),
            takes
        );
        // Pushed one by one: each growth past 4 MiB moves the items into a
        // fresh marked allocation, doubling as `Vec` does.
        let mut pushed = Vec::<u64>::new();
        let mut growths = 0;
        for value in 0..(3 << 20) {
            let capacity = pushed.capacity();
            super::push(&mut pushed, value);
            growths += (pushed.capacity() != capacity) as u32;
        }
        assert!(growths <= 24, "{growths} growths for 3 Mi pushes");
        assert!(pushed.iter().copied().eq(0..3 << 20));
        assert_eq!(middle_marked(&pushed), takes);
        // Resized: the old items kept, the new ones filled.
        let mut resized: Vec<u32> = (0..1000).collect();
        super::resize(&mut resized, 3 << 20, 7);
        assert!(resized[..1000].iter().copied().eq(0..1000));
        assert!(resized[1000..].iter().all(|&v| v == 7));
        assert_eq!(middle_marked(&resized), takes);
        let mut exact = vec![1u8; 10];
        super::reserve_exact(&mut exact, 6 << 20);
        assert_eq!(exact.capacity(), 10 + (6 << 20));
        assert_eq!(exact, [1u8; 10]);
    }

    /// Whether the middle of `items` lies in a mapping marked for huge pages.
    fn middle_marked<T>(items: &[T]) -> bool {
        assert!(!items.is_empty());
        let middle = items.as_ptr() as usize + core::mem::size_of_val(items) / 2;
        mapping_flags(middle)
            .split_whitespace()
            .any(|flag| flag == "hg")
    }

    #[test]
    fn the_structures_large_arrays_are_marked() {
        use crate::{Grid, Quadtree, Rect, SpatialIndex};
        let kernel_has_them = kernel_takes_advice();
        let world = Rect::new(0.0, 0.0, 4096.0, 4096.0);
        let rects: Vec<Rect> = (0..300_000u32)
            .map(|i| {
                let (x, y) = ((i % 1000) as f32 * 4.0, (i / 1000) as f32 * 4.0);
                Rect::new(x, y, x + 2.0, y + 2.0)
            })
            .collect();
        let ids: Vec<u32> = (0..rects.len() as u32).collect();
        // A bulk build: the slots reserved at once, the runs laid out.
        let mut grid = Grid::with_cell_size(world, 8.0, 8.0).unwrap();
        grid.insert_many(&rects, &ids, &mut Vec::new()).unwrap();
        assert!(grid.packed.fresh, "a bulk insert lays the runs out");
        assert_eq!(middle_marked(&grid.slots.slots), kernel_has_them);
        assert_eq!(middle_marked(&grid.packed.entries), kernel_has_them);
        // One at a time: the slots and the links grown by pushes.
        let mut tree = Quadtree::new(world, 8, 9).unwrap();
        for (&rect, &id) in rects.iter().zip(&ids) {
            tree.insert(rect, id).unwrap();
        }
        assert_eq!(middle_marked(&tree.slots.slots), kernel_has_them);
        assert_eq!(middle_marked(&tree.links.links), kernel_has_them);
    }
}
