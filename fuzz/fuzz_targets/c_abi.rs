//! The C ABI's argument checking: the `extern "C"` functions called straight
//! from Rust with arguments the fuzzer picks (NaN/inf/huge coordinates, live,
//! stale and made-up handles, NULL for any pointer, counts and capacities up
//! to the buffers this harness owns). Every call must return a status, never
//! panic (libFuzzer's panic hook aborts before the ABI's guard could turn a
//! panic into QT_PANIC), and the trees must validate after every call.
#![no_main]

use core::ffi::{c_int, c_void};
use core::ptr::{null, null_mut};

use ffi::*;
use flatquad_testkit::{Bytes, Draw};
use libfuzzer_sys::fuzz_target;

/// The length of every buffer the harness passes.
const BUF: usize = 48;

fn ok(status: qt_status) -> bool {
    assert!(
        !matches!(
            status,
            qt_status::QT_PANIC | qt_status::QT_POISONED | qt_status::QT_INTERNAL_ERROR
        ),
        "{status:?}"
    );
    status == qt_status::QT_OK
}

fn float(d: &mut Bytes) -> f32 {
    match d.below(16) {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => -0.0,
        4 => f32::MAX,
        5 => f32::MIN,
        6 => f32::MIN_POSITIVE,
        7 => 1e30,
        8 => f32::from_bits(d.next()),
        9 => 16_777_217.0,
        _ => d.unit() * 128.0 - 14.0,
    }
}

fn rect(d: &mut Bytes) -> qt_rect {
    if d.chance(75) {
        let (x, y) = (d.unit() * 110.0 - 5.0, d.unit() * 110.0 - 5.0);
        let (w, h) = (d.unit() * 30.0, d.unit() * 30.0);
        qt_rect {
            x1: x,
            y1: y,
            x2: x + w,
            y2: y + h,
        }
    } else {
        qt_rect {
            x1: float(d),
            y1: float(d),
            x2: float(d),
            y2: float(d),
        }
    }
}

fn boxed(d: &mut Bytes) -> qt_box {
    let r = rect(d);
    let (z1, z2) = if d.chance(80) {
        (r.x1, r.x2)
    } else {
        (float(d), float(d))
    };
    qt_box {
        x1: r.x1,
        y1: r.y1,
        z1,
        x2: r.x2,
        y2: r.y2,
        z2,
    }
}

fn handle(d: &mut Bytes, live: &[qt_handle_t]) -> qt_handle_t {
    let pick = |d: &mut Bytes| {
        live.get(d.below(live.len().max(1) as u32) as usize)
            .copied()
            .unwrap_or(0)
    };
    match d.below(8) {
        0 => QT_NO_HANDLE,
        1 => u64::from(d.next()) | (u64::from(d.next()) << 32),
        2 => pick(d).wrapping_add(1 << 32), // the same slot, another generation
        3 => pick(d) ^ 1,
        _ => pick(d),
    }
}

/// `p`, or NULL when the fuzzer says so.
fn or_null<T>(d: &mut Bytes, p: *mut T) -> *mut T {
    if d.chance(6) {
        null_mut()
    } else {
        p
    }
}

/// A query mask or a filter's bits.
fn mask(d: &mut Bytes) -> u32 {
    match d.below(6) {
        0 => QT_MASK_ALL,
        1 => 0,
        2 => d.next(),
        _ => 1 << d.below(3),
    }
}

/// A radius, maximum distance or ray length: often fine, sometimes NaN,
/// negative, infinite or subnormal.
fn distance(d: &mut Bytes) -> f64 {
    match d.below(10) {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => -1.0,
        3 => -0.0,
        4 => f64::MIN_POSITIVE,
        5 => f64::MAX,
        _ => f64::from(d.unit()) * 60.0,
    }
}

fn ray(d: &mut Bytes) -> qt_ray {
    let (x, y) = if d.chance(80) {
        (d.unit() * 110.0 - 5.0, d.unit() * 110.0 - 5.0)
    } else {
        (float(d), float(d))
    };
    let mut direction = || {
        if d.chance(70) {
            d.unit() * 2.0 - 1.0
        } else {
            float(d)
        }
    };
    let (dx, dy) = (direction(), direction());
    qt_ray {
        x,
        y,
        dx,
        dy,
        max_length: distance(d),
    }
}

fn ray3(d: &mut Bytes) -> qt_ray3 {
    let r = ray(d);
    let (z, dz) = if d.chance(80) {
        (d.unit() * 100.0, d.unit() * 2.0 - 1.0)
    } else {
        (float(d), float(d))
    };
    qt_ray3 {
        x: r.x,
        y: r.y,
        z,
        dx: r.dx,
        dy: r.dy,
        dz,
        max_length: r.max_length,
    }
}

fn count(d: &mut Bytes) -> usize {
    d.below(BUF as u32 + 1) as usize
}

/// A query kind: mostly the dimension's own, sometimes the other's, 0 (a
/// zeroed description) or any number.
fn kind(d: &mut Bytes, own: [qt_shape_kind; 4]) -> qt_shape_kind {
    match d.below(16) {
        0 => 0,
        1 => d.next(),
        2 => d.below(9),
        k => own[k as usize % 4],
    }
}

/// A 2D query description of any kind, the shape drawn for its kind (the
/// member the kind names is always the one written: reading another would
/// read bytes never written, which no caller may ask of the ABI).
fn desc(d: &mut Bytes, live: &[qt_handle_t]) -> qt_query_desc {
    let kind = kind(
        d,
        [
            QT_SHAPE_RECT,
            QT_SHAPE_POINT,
            QT_SHAPE_CIRCLE,
            QT_SHAPE_ELEMENT,
        ],
    );
    let kind = if kind == QT_SHAPE_RECT && d.chance(20) {
        QT_SHAPE_RECT_D
    } else {
        kind
    };
    let shape = match kind {
        QT_SHAPE_POINT => qt_shape {
            point: qt_point {
                x: float(d),
                y: float(d),
            },
        },
        QT_SHAPE_CIRCLE => qt_shape {
            circle: qt_circle {
                x: float(d),
                y: float(d),
                radius: distance(d),
            },
        },
        QT_SHAPE_ELEMENT => qt_shape {
            element: handle(d, live),
        },
        QT_SHAPE_RECT_D => {
            let r = rect(d);
            qt_shape {
                rect_d: qt_rect_d {
                    x1: f64::from(r.x1),
                    y1: f64::from(r.y1) - f64::from(d.unit()),
                    x2: f64::from(r.x2),
                    y2: f64::from(r.y2) + f64::from(d.unit()),
                },
            }
        }
        _ => qt_shape { rect: rect(d) },
    };
    qt_query_desc {
        kind,
        shape,
        mask: mask(d),
        omit: handle(d, live),
    }
}

/// A 3D query description of any kind, as [`desc`].
fn desc3(d: &mut Bytes, live: &[qt_handle_t]) -> qt_query3_desc {
    let kind = kind(
        d,
        [
            QT_SHAPE_BOX,
            QT_SHAPE_POINT,
            QT_SHAPE_SPHERE,
            QT_SHAPE_ELEMENT,
        ],
    );
    let shape = match kind {
        QT_SHAPE_POINT => qt_shape3 {
            point: qt_point3 {
                x: float(d),
                y: float(d),
                z: float(d),
            },
        },
        QT_SHAPE_SPHERE => qt_shape3 {
            sphere: qt_sphere {
                x: float(d),
                y: float(d),
                z: float(d),
                radius: distance(d),
            },
        },
        QT_SHAPE_ELEMENT => qt_shape3 {
            element: handle(d, live),
        },
        _ => qt_shape3 { r#box: boxed(d) },
    };
    qt_query3_desc {
        kind,
        shape,
        mask: mask(d),
        omit: handle(d, live),
    }
}

unsafe extern "C" fn visit(user: *mut c_void, _h: qt_handle_t) -> c_int {
    stop_after(user)
}

unsafe extern "C" fn visit_pair(user: *mut c_void, _a: qt_handle_t, _b: qt_handle_t) -> c_int {
    stop_after(user)
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn visit_node(
    user: *mut c_void,
    _node: u32,
    _depth: u32,
    _x1: f32,
    _y1: f32,
    _x2: f32,
    _y2: f32,
    _count: u32,
) -> c_int {
    stop_after(user)
}

unsafe extern "C" fn accept(user: *mut c_void, h: qt_handle_t) -> c_int {
    // Passes over some candidates, then stops accepting.
    c_int::from(h % 3 != 1 && stop_after(user) == 0)
}

/// Goes on, ignores, clips (to half, or to nonsense: NaN, past the end) and
/// finally stops, as the counter behind `user` says.
unsafe extern "C" fn visit_hit(user: *mut c_void, hit: qt_ray_hit) -> f64 {
    let Some(left) = user.cast::<u32>().as_mut() else {
        return 1.0;
    };
    if stop_after(user) == 1 {
        return 0.0;
    }
    [1.0, -1.0, hit.fraction * 0.5, f64::NAN, 2.0][*left as usize % 5]
}

/// Counts down the `u32` behind `user` (if any) and stops at zero.
unsafe fn stop_after(user: *mut c_void) -> c_int {
    let Some(left) = user.cast::<u32>().as_mut() else {
        return 0;
    };
    *left = left.saturating_sub(1);
    c_int::from(*left == 0)
}

/// A 2D tree of a kind and with parameters the fuzzer picks (refused ones
/// fall back to a default quadtree).
unsafe fn create(d: &mut Bytes) -> *mut qt_tree {
    let mut tree = null_mut();
    let world = rect(d);
    let small = |d: &mut Bytes| if d.chance(10) { d.next() } else { d.below(40) };
    let status = match d.below(8) {
        0 => qt_create(world, small(d), small(d), or_null(d, &mut tree)),
        1 => qt_create_grid(world, small(d), small(d), or_null(d, &mut tree)),
        2 => qt_create_grid_cell_size(world, float(d), float(d), or_null(d, &mut tree)),
        3 => qt_create_loose_grid(
            world,
            small(d),
            small(d),
            small(d),
            small(d),
            or_null(d, &mut tree),
        ),
        4 => qt_create_loose_grid_cell_size(world, float(d), or_null(d, &mut tree)),
        5 => qt_create_loose_quadtree(world, small(d), small(d), or_null(d, &mut tree)),
        6 => qt_create_loose_quadtree_max_extent(
            world,
            small(d),
            small(d),
            float(d),
            or_null(d, &mut tree),
        ),
        _ => qt_create_default(d.below(6), world, or_null(d, &mut tree)),
    };
    if ok(status) && !tree.is_null() {
        return tree;
    }
    let world = qt_rect {
        x1: 0.0,
        y1: 0.0,
        x2: 100.0,
        y2: 100.0,
    };
    assert!(ok(qt_create_default(QT_KIND_QUADTREE, world, &mut tree)));
    tree
}

unsafe fn octree(d: &mut Bytes) -> *mut qt_octree {
    let mut tree = null_mut();
    let world = if d.chance(70) {
        qt_box {
            x1: 0.0,
            y1: 0.0,
            z1: 0.0,
            x2: 100.0,
            y2: 100.0,
            z2: 100.0,
        }
    } else {
        boxed(d)
    };
    if ok(qt_octree_create(
        world,
        d.below(20),
        d.below(40),
        or_null(d, &mut tree),
    )) && !tree.is_null()
    {
        return tree;
    }
    let world = qt_box {
        x1: 0.0,
        y1: 0.0,
        z1: 0.0,
        x2: 100.0,
        y2: 100.0,
        z2: 100.0,
    };
    assert!(ok(qt_octree_create(world, 8, 8, &mut tree)));
    tree
}

unsafe fn run(d: &mut Bytes) {
    let tree = create(d);
    let oct = octree(d);
    // Trackers that follow both trees through every call (checked after each).
    let (mut tracker, mut tracker3) = (null_mut(), null_mut());
    assert!(ok(qt_tracker_create(tree, &mut tracker)));
    assert!(ok(qt_octree_tracker_create(oct, &mut tracker3)));
    let mut live: Vec<qt_handle_t> = Vec::new();
    let mut live3: Vec<qt_handle_t> = Vec::new();
    let mut handles = [0u64; BUF];
    let mut rects = [qt_rect::default(); BUF];
    let mut boxes = [qt_box::default(); BUF];
    let mut ids = [0u32; BUF];
    let mut pairs = [qt_pair::default(); BUF];
    let mut bytes = vec![0u8; 1 << 16];
    let mut offsets = [0usize; BUF + 1];
    let mut descs = [qt_query_desc {
        kind: 0,
        shape: qt_shape {
            rect_d: qt_rect_d::default(),
        },
        mask: 0,
        omit: 0,
    }; BUF];
    let mut descs3 = [qt_query3_desc {
        kind: 0,
        shape: qt_shape3 {
            r#box: qt_box::default(),
        },
        mask: 0,
        omit: 0,
    }; BUF];
    let mut coords = [0f32; 3 * BUF];
    let mut reals = [0f64; BUF];
    let mut categories = [0u32; BUF];
    let mut masks = [0u32; BUF];
    let mut hits = [qt_ray_hit::default(); BUF];
    let (mut found, mut hit) = (false, qt_ray_hit::default());
    let (mut category, mut filter_mask) = (0u32, 0u32);
    let (mut total, mut bad, mut id) = (0usize, 0usize, 0u32);
    for _ in 0..400 {
        if d.exhausted() {
            break;
        }
        // The tree, or NULL now and then (never a dangling pointer: that is
        // undefined behaviour no callee can detect).
        let t = or_null(d, tree);
        let o = or_null(d, oct);
        let mut left = d.below(6);
        let user = or_null(d, &mut left).cast::<c_void>();
        match d.below(37) {
            0 | 1 => {
                let mut h = 0;
                if ok(qt_insert(t, rect(d), d.next(), or_null(d, &mut h))) {
                    live.push(h);
                }
            }
            2 => {
                let n = count(d);
                for r in &mut rects[..n] {
                    *r = rect(d);
                }
                let s = qt_insert_many(
                    t,
                    or_null(d, rects.as_mut_ptr()),
                    or_null(d, ids.as_mut_ptr()),
                    n,
                    or_null(d, handles.as_mut_ptr()),
                    or_null(d, &mut bad),
                );
                if ok(s) {
                    live.extend_from_slice(&handles[..n]);
                }
            }
            3 | 4 => {
                ok(qt_remove(t, handle(d, &live)));
            }
            5 => {
                let n = count(d);
                for h in handles.iter_mut().take(n) {
                    *h = handle(d, &live);
                }
                ok(qt_remove_many(
                    t,
                    or_null(d, handles.as_mut_ptr()),
                    n,
                    or_null(d, &mut bad),
                ));
            }
            6 | 7 => {
                ok(qt_move(t, handle(d, &live), rect(d)));
            }
            8 => {
                let n = count(d);
                for i in 0..n {
                    handles[i] = handle(d, &live);
                    rects[i] = rect(d);
                }
                ok(qt_move_many(
                    t,
                    or_null(d, handles.as_mut_ptr()),
                    or_null(d, rects.as_mut_ptr()),
                    n,
                    or_null(d, &mut bad),
                ));
            }
            9 => {
                ok(qt_cleanup(t));
                if d.chance(10) {
                    ok(qt_clear(t));
                }
            }
            10 | 11 => {
                let mut q = desc(d, &live);
                ok(qt_query(
                    t,
                    or_null(d, &mut q),
                    or_null(d, handles.as_mut_ptr()),
                    count(d),
                    or_null(d, &mut total),
                ));
            }
            12 => {
                let n = count(d);
                for q in descs.iter_mut().take(n) {
                    *q = desc(d, &live);
                }
                ok(qt_query_many(
                    t,
                    or_null(d, descs.as_mut_ptr()),
                    n,
                    or_null(d, offsets.as_mut_ptr()),
                    or_null(d, handles.as_mut_ptr()),
                    count(d),
                    or_null(d, &mut total),
                    or_null(d, &mut bad),
                ));
            }
            13 => {
                ok(qt_query_pairs(
                    t,
                    or_null(d, pairs.as_mut_ptr()),
                    count(d),
                    or_null(d, &mut total),
                ));
            }
            14 => {
                let f = if d.chance(10) {
                    None
                } else {
                    Some(visit as unsafe extern "C" fn(_, _) -> _)
                };
                let mut q = desc(d, &live);
                ok(qt_query_each(t, or_null(d, &mut q), f, user));
            }
            15 => {
                let f = if d.chance(10) {
                    None
                } else {
                    Some(visit_pair as unsafe extern "C" fn(_, _, _) -> _)
                };
                ok(qt_query_pairs_each(t, f, user));
            }
            16 => {
                let f = Some(visit_node as unsafe extern "C" fn(_, _, _, _, _, _, _, _) -> _);
                let g = if d.chance(10) { None } else { f };
                ok(qt_traverse(t, f, g, user));
            }
            17 => {
                ok(qt_elements(
                    t,
                    or_null(d, handles.as_mut_ptr()),
                    count(d),
                    or_null(d, &mut total),
                ));
                let mut stats = qt_tree_stats::default();
                ok(qt_stats(t, or_null(d, &mut stats)));
                let h = handle(d, &live);
                let mut r = qt_rect::default();
                ok(qt_element_rect(t, h, or_null(d, &mut r)));
                ok(qt_element_id(t, h, or_null(d, &mut id)));
                qt_contains(t, h);
                qt_len(t);
                qt_kind_of(t);
            }
            18 => {
                // A snapshot, perhaps cut short or with one byte changed, read back.
                let capacity = if d.chance(20) {
                    d.below(64) as usize
                } else {
                    bytes.len()
                };
                if ok(qt_to_bytes(
                    t,
                    or_null(d, bytes.as_mut_ptr()),
                    capacity,
                    or_null(d, &mut total),
                )) && total <= capacity
                {
                    let mut len = total;
                    if d.chance(30) && len > 0 {
                        let at = d.below(len as u32) as usize;
                        bytes[at] = d.next() as u8;
                    }
                    if d.chance(20) {
                        len = d.below(len as u32 + 1) as usize;
                    }
                    let mut back = null_mut();
                    if ok(qt_from_bytes(
                        or_null(d, bytes.as_mut_ptr()),
                        len,
                        or_null(d, &mut back),
                    )) && !back.is_null()
                    {
                        assert!(ok(qt_validate(back)));
                        qt_destroy(back);
                    }
                }
            }
            19 => {
                let r = rect(d);
                let wide = |v: f32, d: &mut Bytes| {
                    if d.chance(20) {
                        f64::from(float(d)) * 1e300
                    } else {
                        f64::from(v)
                    }
                };
                let rd = qt_rect_d {
                    x1: wide(r.x1, d),
                    y1: wide(r.y1, d),
                    x2: wide(r.x2, d),
                    y2: wide(r.y2, d),
                };
                let mut h = 0;
                match d.below(3) {
                    0 => {
                        if ok(qt_insert_d(t, rd, 1, or_null(d, &mut h))) {
                            live.push(h);
                        }
                    }
                    1 => {
                        ok(qt_move_d(t, handle(d, &live), rd));
                    }
                    _ => {
                        let q = qt_query_desc {
                            kind: QT_SHAPE_RECT_D,
                            shape: qt_shape { rect_d: rd },
                            mask: mask(d),
                            omit: handle(d, &live),
                        };
                        ok(qt_query(
                            t,
                            &q,
                            or_null(d, handles.as_mut_ptr()),
                            count(d),
                            or_null(d, &mut total),
                        ));
                    }
                }
            }
            20 => {
                // A batch of one kind (the shape of the old bulk calls).
                let n = count(d);
                let one = desc(d, &live);
                for q in descs.iter_mut().take(n) {
                    *q = qt_query_desc {
                        kind: QT_SHAPE_RECT,
                        shape: qt_shape { rect: rect(d) },
                        ..one
                    };
                }
                ok(qt_query_many(
                    t,
                    or_null(d, descs.as_mut_ptr()),
                    n,
                    or_null(d, offsets.as_mut_ptr()),
                    or_null(d, handles.as_mut_ptr()),
                    count(d),
                    or_null(d, &mut total),
                    or_null(d, &mut bad),
                ));
            }
            21 => {
                let mut copy = null_mut();
                if ok(qt_clone(t, or_null(d, &mut copy))) && !copy.is_null() {
                    ok(qt_join(
                        t,
                        copy,
                        d.chance(50),
                        or_null(d, pairs.as_mut_ptr()),
                        count(d),
                        or_null(d, &mut total),
                    ));
                    qt_destroy(copy);
                }
            }
            22 => {
                // Parameter getters, on the right kind or the wrong one.
                let (mut w, mut a, mut b, mut c, mut e) = (qt_rect::default(), 0, 0, 0, 0);
                let (mut f, mut g) = (0.0f32, 0.0f32);
                ok(match d.below(5) {
                    0 => qt_params(
                        t,
                        or_null(d, &mut w),
                        or_null(d, &mut a),
                        or_null(d, &mut b),
                    ),
                    1 => qt_grid_params(
                        t,
                        or_null(d, &mut w),
                        or_null(d, &mut a),
                        or_null(d, &mut b),
                        or_null(d, &mut f),
                        or_null(d, &mut g),
                    ),
                    2 => qt_loose_grid_params(
                        t,
                        or_null(d, &mut w),
                        or_null(d, &mut a),
                        or_null(d, &mut b),
                        or_null(d, &mut c),
                        or_null(d, &mut e),
                    ),
                    3 => qt_loose_quadtree_params(
                        t,
                        or_null(d, &mut w),
                        or_null(d, &mut a),
                        or_null(d, &mut b),
                    ),
                    _ => qt_loose_quadtree_max_extent(t, or_null(d, &mut f)),
                });
                assert!(!qt_status_str(d.next() as c_int).is_null());
            }
            23 => {
                let mut h = 0;
                if ok(qt_octree_insert(o, boxed(d), 1, or_null(d, &mut h))) {
                    live3.push(h);
                }
            }
            24 => {
                let n = count(d);
                for b in boxes.iter_mut().take(n) {
                    *b = boxed(d);
                }
                if ok(qt_octree_insert_many(
                    o,
                    or_null(d, boxes.as_mut_ptr()),
                    or_null(d, ids.as_mut_ptr()),
                    n,
                    or_null(d, handles.as_mut_ptr()),
                    or_null(d, &mut bad),
                )) {
                    live3.extend_from_slice(&handles[..n]);
                }
            }
            25 => {
                ok(match d.below(3) {
                    0 => qt_octree_remove(o, handle(d, &live3)),
                    1 => qt_octree_move(o, handle(d, &live3), boxed(d)),
                    _ => {
                        let n = count(d);
                        for i in 0..n {
                            handles[i] = handle(d, &live3);
                            boxes[i] = boxed(d);
                        }
                        if d.chance(50) {
                            qt_octree_remove_many(
                                o,
                                or_null(d, handles.as_mut_ptr()),
                                n,
                                or_null(d, &mut bad),
                            )
                        } else {
                            qt_octree_move_many(
                                o,
                                or_null(d, handles.as_mut_ptr()),
                                or_null(d, boxes.as_mut_ptr()),
                                n,
                                or_null(d, &mut bad),
                            )
                        }
                    }
                });
            }
            26 => {
                let mut q = desc3(d, &live3);
                ok(match d.below(5) {
                    0 | 1 => qt_octree_query(
                        o,
                        or_null(d, &mut q),
                        or_null(d, handles.as_mut_ptr()),
                        count(d),
                        or_null(d, &mut total),
                    ),
                    2 => {
                        let n = count(d);
                        for q in descs3.iter_mut().take(n) {
                            *q = desc3(d, &live3);
                        }
                        qt_octree_query_many(
                            o,
                            or_null(d, descs3.as_mut_ptr()),
                            n,
                            or_null(d, offsets.as_mut_ptr()),
                            or_null(d, handles.as_mut_ptr()),
                            count(d),
                            or_null(d, &mut total),
                            or_null(d, &mut bad),
                        )
                    }
                    3 => qt_octree_query_pairs(
                        o,
                        or_null(d, pairs.as_mut_ptr()),
                        count(d),
                        or_null(d, &mut total),
                    ),
                    _ => qt_octree_cleanup(o),
                });
            }
            27 => {
                let capacity = if d.chance(20) {
                    d.below(64) as usize
                } else {
                    bytes.len()
                };
                if ok(qt_octree_to_bytes(
                    o,
                    or_null(d, bytes.as_mut_ptr()),
                    capacity,
                    or_null(d, &mut total),
                )) && total <= capacity
                {
                    let len = if d.chance(20) {
                        d.below(total as u32 + 1) as usize
                    } else {
                        total
                    };
                    if d.chance(30) && len > 0 {
                        let at = d.below(len as u32) as usize;
                        bytes[at] = d.next() as u8;
                    }
                    let mut back = null_mut();
                    if ok(qt_octree_from_bytes(
                        or_null(d, bytes.as_mut_ptr()),
                        len,
                        or_null(d, &mut back),
                    )) && !back.is_null()
                    {
                        assert!(ok(qt_octree_validate(back)));
                        qt_octree_destroy(back);
                    }
                }
            }
            28 => {
                // Arbitrary bytes (or none) as a snapshot.
                let len = d.below(64) as usize;
                for b in bytes.iter_mut().take(len) {
                    *b = d.next() as u8;
                }
                let mut back = null_mut();
                if ok(qt_from_bytes(
                    if d.chance(10) { null() } else { bytes.as_ptr() },
                    len,
                    &mut back,
                )) {
                    assert!(ok(qt_validate(back)));
                    qt_destroy(back);
                }
            }
            29 => {
                ok(qt_set_filter(t, handle(d, &live), mask(d), mask(d)));
                ok(qt_get_filter(
                    t,
                    handle(d, &live),
                    or_null(d, &mut category),
                    or_null(d, &mut filter_mask),
                ));
            }
            30 => {
                let n = count(d);
                for i in 0..n {
                    handles[i] = handle(d, &live);
                    categories[i] = mask(d);
                    masks[i] = mask(d);
                }
                ok(qt_set_filters(
                    t,
                    or_null(d, handles.as_mut_ptr()),
                    or_null(d, categories.as_mut_ptr()),
                    or_null(d, masks.as_mut_ptr()),
                    n,
                    or_null(d, &mut bad),
                ));
            }
            31 | 32 => {
                // Masked queries of every kind, after a filter change.
                let h = handle(d, &live);
                ok(qt_set_filter(t, h, mask(d), mask(d)));
                let mut q = desc(d, &live);
                q.mask = mask(d);
                ok(qt_query(
                    t,
                    &q,
                    or_null(d, handles.as_mut_ptr()),
                    count(d),
                    or_null(d, &mut total),
                ));
            }
            33 => {
                let (x, y, max_distance, m) = (float(d), float(d), distance(d), mask(d));
                // Both output arrays hold `k` items; a `k` past any array's
                // size must be refused before anything is written.
                let huge = d.chance(5);
                let k = if huge { usize::MAX } else { count(d) };
                let out = or_null(d, handles.as_mut_ptr());
                let distances = or_null(d, reals.as_mut_ptr());
                let status = match d.below(3) {
                    0 => qt_nearest(t, x, y, k, max_distance, m, out, distances, &mut total),
                    1 => {
                        let a = if d.chance(10) {
                            None
                        } else {
                            Some(accept as _)
                        };
                        qt_nearest_with(
                            t,
                            x,
                            y,
                            k,
                            max_distance,
                            m,
                            a,
                            user,
                            out,
                            distances,
                            or_null(d, &mut total),
                        )
                    }
                    _ => {
                        let n = count(d);
                        for c in coords.iter_mut().take(2 * n) {
                            *c = float(d);
                        }
                        qt_nearest_many(
                            t,
                            or_null(d, coords.as_mut_ptr()),
                            n,
                            k,
                            max_distance,
                            m,
                            or_null(d, offsets.as_mut_ptr()),
                            out,
                            distances,
                            count(d),
                            or_null(d, &mut total),
                            or_null(d, &mut bad),
                        )
                    }
                };
                let accepted = ok(status);
                assert!(!(huge && accepted), "k = SIZE_MAX accepted");
            }
            34 => {
                let (r, m) = (ray(d), mask(d));
                match d.below(3) {
                    0 => ok(qt_ray_cast(
                        t,
                        r,
                        m,
                        or_null(d, &mut hit),
                        or_null(d, &mut found),
                    )),
                    1 => ok(qt_ray_cast_all(
                        t,
                        r,
                        m,
                        or_null(d, hits.as_mut_ptr()),
                        count(d),
                        or_null(d, &mut total),
                    )),
                    _ => {
                        let v = if d.chance(10) {
                            None
                        } else {
                            Some(visit_hit as _)
                        };
                        ok(qt_ray_cast_each(t, r, m, v, user))
                    }
                };
            }
            35 => {
                // The octree's forms go through the same shared code.
                let h = handle(d, &live3);
                ok(qt_octree_set_filter(o, h, mask(d), mask(d)));
                let (x, y, z, m) = (float(d), float(d), float(d), mask(d));
                let k = count(d);
                ok(qt_octree_nearest(
                    o,
                    x,
                    y,
                    z,
                    k,
                    distance(d),
                    m,
                    or_null(d, handles.as_mut_ptr()),
                    or_null(d, reals.as_mut_ptr()),
                    or_null(d, &mut total),
                ));
                ok(qt_octree_ray_cast_all(
                    o,
                    ray3(d),
                    m,
                    or_null(d, hits.as_mut_ptr()),
                    count(d),
                    or_null(d, &mut total),
                ));
            }
            _ => {
                // A second tree made with fuzzed parameters, used once, freed;
                // its tracker is refused afterwards, never reads it.
                let other = create(d);
                let mut follower = null_mut();
                assert!(ok(qt_tracker_create(other, &mut follower)));
                ok(qt_insert(other, rect(d), 0, &mut 0));
                ok(qt_validate(other));
                assert!(ok(qt_tracker_update(follower, &mut total, &mut bad)));
                qt_destroy(other);
                assert_eq!(
                    qt_tracker_update(follower, &mut total, &mut bad),
                    qt_status::QT_TREE_DESTROYED
                );
                qt_tracker_destroy(follower);
            }
        }
        assert!(ok(qt_validate(tree)), "the tree no longer validates");
        assert!(
            ok(qt_octree_validate(oct)),
            "the octree no longer validates"
        );
        // NULL is refused, not dereferenced.
        assert_eq!(qt_validate(null()), qt_status::QT_NULL_ARGUMENT);
        // The trackers after whatever changed: they agree with the pair queries,
        // and a list is given whole or refused, through fuzzed buffers.
        let (mut began, mut ended, mut held, mut now) = (0, 0, 0, 0);
        for trk in [tracker, tracker3] {
            assert!(ok(match trk == tracker {
                true => qt_query_pairs(tree, null_mut(), 0, &mut now),
                false => qt_octree_query_pairs(oct, null_mut(), 0, &mut now),
            }));
            assert!(ok(qt_tracker_update(trk, &mut began, &mut ended)));
            assert!(ok(qt_tracker_pair_count(trk, &mut held)));
            assert_eq!(held, now, "the tracker's pairs are not the pair query's");
            let capacity = count(d);
            let status = qt_tracker_began(
                trk,
                or_null(d, pairs.as_mut_ptr()),
                capacity,
                or_null(d, &mut total),
            );
            if ok(status) {
                assert!(capacity == 0 || capacity >= began);
            }
            ok(qt_tracker_ended(
                trk,
                or_null(d, pairs.as_mut_ptr()),
                count(d),
                &mut total,
            ));
        }
    }
    qt_destroy(tree);
    qt_octree_destroy(oct);
    // After their trees: refused, then freed.
    assert_eq!(qt_tracker_reset(tracker), qt_status::QT_TREE_DESTROYED);
    qt_tracker_destroy(tracker);
    qt_tracker_destroy(tracker3);
    qt_tracker_destroy(null_mut());
    qt_destroy(null_mut());
}

fuzz_target!(|data: &[u8]| {
    let mut d = Bytes::new(data);
    unsafe { run(&mut d) }
});
