//! The snapshot reader on arbitrary bytes: `from_bytes` of every structure
//! returns Ok or Err and never panics; what it accepts validates, writes back
//! to the same bytes, and takes further operations.
#![no_main]

use flatquad::{Box3, Grid, LooseGrid, LooseQuadtree, Octree, Quadtree, Rect, SpatialIndex};
use libfuzzer_sys::fuzz_target;

fn check<T: SpatialIndex>(bytes: &[u8], probe: T::Bounds) {
    let Ok(mut index) = T::from_bytes(bytes) else {
        return;
    };
    index.validate().expect("an accepted snapshot validates");
    assert_eq!(
        index.to_bytes(),
        bytes,
        "an accepted snapshot writes back the same"
    );
    let mut hits = Vec::new();
    let mut pairs = Vec::new();
    index.pairs(&mut pairs);
    if let Ok(h) = index.insert(probe, 7) {
        let _ = index.query(probe, None, &mut hits);
        assert!(index.overlapping(h, &mut hits).is_ok());
        let first = index.iter().next().map(|(h, ..)| h);
        if let Some(first) = first {
            index.remove(first).unwrap();
        }
    }
    index.cleanup();
    index.validate().expect("still valid after operations");
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let probe = Rect::new(0.0, 0.0, 1.0, 1.0);
    match which % 6 {
        0 => check::<Quadtree>(bytes, probe),
        1 => check::<Grid>(bytes, probe),
        2 => check::<LooseGrid>(bytes, probe),
        3 => check::<LooseQuadtree>(bytes, probe),
        4 => check::<flatquad::AnyIndex>(bytes, probe),
        _ => check::<Octree>(bytes, Box3::new(0.0, 0.0, 0.0, 1.0, 1.0, 1.0)),
    }
});
