//! Large arrays on transparent huge pages where the kernel waits to be asked.
//!
//! A million elements' slot records (32 MB), runs (24 MB) and links, read at
//! random, take a TLB miss nearly every time on 4 KiB pages; on 2 MiB pages
//! such an array fits the TLB. Linux backs anonymous memory with huge pages
//! only in ranges marked with `madvise(MADV_HUGEPAGE)` when
//! `/sys/kernel/mm/transparent_hugepage/enabled` is `madvise` (Debian's and
//! Ubuntu's default), so an array that grows past a few huge pages is marked
//! when it is reallocated, before its new pages are first written. Elsewhere,
//! and for small arrays, these are plain `Vec` calls.

/// Bytes from which an array is marked: a few huge pages, so that the one
/// partly used page at its end never costs much memory.
const AT_LEAST: usize = 4 << 20;

/// `vec.reserve_exact(additional)`, marking the array if that reallocated it.
#[inline]
pub(crate) fn reserve<T>(vec: &mut Vec<T>, additional: usize) {
    let before = vec.capacity();
    vec.reserve_exact(additional);
    if vec.capacity() != before {
        advise(vec);
    }
}

/// [`reserve`] for a length of `len` in all.
#[inline]
pub(crate) fn reserve_len<T>(vec: &mut Vec<T>, len: usize) {
    reserve(vec, len.saturating_sub(vec.len()));
}

/// `vec.push(value)`, doubling a full array as `Vec` does, through [`reserve`].
#[inline]
pub(crate) fn push<T>(vec: &mut Vec<T>, value: T) {
    if vec.len() == vec.capacity() {
        reserve(vec, vec.capacity().max(4));
    }
    vec.push(value);
}

#[cfg(target_os = "linux")]
fn advise<T>(vec: &Vec<T>) {
    const HUGE: usize = 2 << 20;
    let bytes = vec.capacity() * core::mem::size_of::<T>();
    if bytes < AT_LEAST {
        return;
    }
    let start = vec.as_ptr() as usize;
    // Only the whole huge pages inside the allocation.
    let (first, end) = (start.next_multiple_of(HUGE), (start + bytes) / HUGE * HUGE);
    if end > first {
        // SAFETY: the range lies inside `vec`'s allocation, and the advice
        // changes how the kernel backs its pages, never their contents. A
        // refusal (a kernel without huge pages) leaves them as they were.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise<T>(_vec: &Vec<T>) {}

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

    #[test]
    fn large_arrays_are_marked_small_ones_are_not() {
        let marked = |vec: &Vec<u64>, at: usize| {
            mapping_flags(vec.as_ptr() as usize + at)
                .split_whitespace()
                .any(|flag| flag == "hg")
        };
        // A kernel built without transparent huge pages has no flag to set.
        let kernel_has_them = std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists();
        let mut large = Vec::<u64>::new();
        super::reserve(&mut large, 2 << 20); // 16 MiB
        assert_eq!(marked(&large, 8 << 20), kernel_has_them);
        let mut grown = Vec::<u64>::new();
        for value in 0..(1 << 20) {
            super::push(&mut grown, value); // 8 MiB at the end
        }
        assert_eq!(grown, (0..1 << 20).collect::<Vec<u64>>());
        assert_eq!(marked(&grown, 4 << 20), kernel_has_them);
        let mut small = vec![0u64; 16];
        super::reserve(&mut small, 1 << 16); // 512 KiB
        assert!(!marked(&small, 0));
    }

    /// Whether the middle of `items` lies in a mapping marked for huge pages.
    fn middle_marked<T>(items: &[T]) -> bool {
        let middle = items.as_ptr() as usize + core::mem::size_of_val(items) / 2;
        mapping_flags(middle)
            .split_whitespace()
            .any(|flag| flag == "hg")
    }

    #[test]
    fn the_structures_large_arrays_are_marked() {
        use crate::{Grid, Quadtree, Rect, SpatialIndex};
        let kernel_has_them = std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists();
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
