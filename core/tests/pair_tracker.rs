//! Contact events ([`PairTracker`]) against the brute-force difference of the
//! pair sets of consecutive updates, on every structure: frames where
//! everything moves (the tracker's pair-walk path), where a few elements
//! change (its query path), with inserts, removals (slots reused), filter
//! changes, `cleanup` and `clear` between updates.

use std::collections::BTreeSet;

use flatquad::{
    AnyIndex, Bounds, Box3, Filter, Handle, Kind, Octree, PairTracker, Rect, SpatialIndex,
};
use flatquad_testkit::{check_tracker, Checks, Draw, Filters, Lcg, Model, Subject};
use proptest::prelude::*;

/// One run of frames on `index`: each frame changes a share of the elements
/// (none, a few, about half, all), then the tracker is checked.
fn frames<T: SpatialIndex + Sync>(mut index: T, world: f32, seed: u64, parallel: bool) {
    let mut rng = Lcg(seed);
    let mut model: Model<T::Bounds> = Model::new();
    let mut filters = Filters::new();
    let mut tracker = PairTracker::new();
    let mut last = Vec::new();
    let side = world / 16.0;
    let axes = T::Bounds::AXES;
    let draw = |rng: &mut Lcg| {
        let mut low = [0.0f32; 3];
        let mut high = [0.0f32; 3];
        for axis in 0..axes {
            // Some outside the world, some degenerate, some stacked at one spot.
            low[axis] = match rng.below(10) {
                0 => world * 0.5,
                1 => -side * 2.0 + rng.unit() * side,
                _ => rng.unit() * (world * 1.1),
            };
            high[axis] = low[axis]
                + if rng.below(8) == 0 {
                    0.0
                } else {
                    rng.unit() * side
                };
        }
        T::Bounds::from_corners(low, high)
    };
    for i in 0..60u32 {
        let rect = draw(&mut rng);
        let handle = index.insert(rect, i).unwrap();
        model.insert(handle, (rect, i));
    }
    for frame in 0..40 {
        let share = [0, 2, 50, 100][rng.below(4) as usize];
        let chosen: Vec<Handle> = model
            .keys()
            .copied()
            .filter(|_| rng.below(100) < share)
            .collect();
        let rects: Vec<T::Bounds> = chosen.iter().map(|_| draw(&mut rng)).collect();
        index.update_many(&chosen, &rects).unwrap();
        for (h, r) in chosen.iter().zip(&rects) {
            model.get_mut(h).unwrap().0 = *r;
        }
        for _ in 0..rng.below(4) {
            if let Some(&h) = model
                .keys()
                .nth(rng.below(model.len().max(1) as u32) as usize)
            {
                index.remove(h).unwrap();
                model.remove(&h);
                filters.remove(&h);
            }
        }
        for _ in 0..rng.below(4) {
            let rect = draw(&mut rng);
            let handle = index.insert(rect, 1000 + frame).unwrap();
            model.insert(handle, (rect, 1000 + frame));
        }
        if rng.below(3) == 0 {
            if let Some(&h) = model
                .keys()
                .nth(rng.below(model.len().max(1) as u32) as usize)
            {
                let filter = Filter::new(
                    [1, 2, 3][rng.below(3) as usize],
                    [1, 2, Filter::ALL][rng.below(3) as usize],
                );
                index.set_filter(h, filter).unwrap();
                filters.insert(h, filter);
            }
        }
        match rng.below(20) {
            0 => index.cleanup(),
            1 => {
                index.clear();
                model.clear();
                filters.clear();
            }
            _ => {}
        }
        check_tracker(&mut tracker, &index, &mut last, &model, &filters, parallel);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_2d_structure_reports_exact_events(seed in any::<u64>(), kind in 0usize..4, world in prop::sample::select(vec![1.0f32, 64.0, 4096.0, 1e6]), parallel in any::<bool>()) {
        let index = AnyIndex::for_world(Kind::ALL_2D[kind], Rect::new(0.0, 0.0, world, world)).unwrap();
        frames(index, world, seed, parallel);
    }

    #[test]
    fn the_octree_reports_exact_events(seed in any::<u64>(), world in prop::sample::select(vec![1.0f32, 64.0, 1e6]), parallel in any::<bool>()) {
        let index = Octree::new(Box3::new(0.0, 0.0, 0.0, world, world, world), 2, 6).unwrap();
        frames(index, world, seed, parallel);
    }
}

/// The shared harness (single operations, batches, refusals, snapshots)
/// checks the tracker every few operations, on every subject.
#[test]
fn the_random_operation_harness_tracks_every_subject() {
    let checks = Checks {
        cap: 150,
        validate_every: 64,
        compare_every: 64,
        snapshot_every: 1 << 20,
        threads_every: 0,
    };
    for subject in Subject::ALL {
        for seed in 0..6 {
            subject.run(&mut Lcg(seed), 400, &checks);
        }
    }
}

/// A removed element's pairs end with the handles they had, even when its
/// slot holds a new element by the next update.
#[test]
fn a_reused_slot_ends_the_old_pairs_and_begins_the_new() {
    let mut index = AnyIndex::for_world(Kind::Grid, Rect::new(0.0, 0.0, 100.0, 100.0)).unwrap();
    let a = index.insert(Rect::new(0.0, 0.0, 2.0, 2.0), 0).unwrap();
    let b = index.insert(Rect::new(1.0, 1.0, 3.0, 3.0), 1).unwrap();
    let mut tracker = PairTracker::new();
    assert_eq!(tracker.update(&index), (&[[a, b]][..], &[][..]));
    index.remove(b).unwrap();
    let c = index.insert(Rect::new(1.0, 1.0, 3.0, 3.0), 2).unwrap();
    assert_eq!(c.to_raw() as u32, b.to_raw() as u32, "the slot is reused");
    let (began, ended) = tracker.update(&index);
    assert_eq!((began, ended), (&[[a, c]][..], &[[a, b]][..]));
    // A filter change that stops the pair colliding ends it.
    index.set_filter(c, Filter::new(2, 2)).unwrap();
    index.set_filter(a, Filter::new(1, 1)).unwrap();
    assert_eq!(tracker.update(&index), (&[][..], &[[a, c]][..]));
    tracker.reset();
    index.set_filter(c, Filter::DEFAULT).unwrap();
    index.set_filter(a, Filter::DEFAULT).unwrap();
    assert_eq!(tracker.update(&index), (&[[a, c]][..], &[][..]));
}

/// While everything moves and no element comes or goes, the tracker skips its
/// pass over the slots (7 updates in 9): what changes meanwhile still shows,
/// in busy frames and in the calm ones after. Ten elements go back and forth
/// between two boxes (so a pass comparing with records a few updates old may
/// find them where they were), and one element's filter is changed and
/// changed back; inserts and removals come in bursts.
#[test]
fn updates_that_skip_the_pass_miss_nothing() {
    for (parallel, seed) in [(false, 1u64), (true, 2), (false, 3)] {
        let world = 64.0f32;
        let mut index = AnyIndex::for_world(Kind::Grid, Rect::new(0.0, 0.0, world, world)).unwrap();
        let mut rng = Lcg(seed);
        let square = |rng: &mut Lcg| {
            let (x, y) = (rng.unit() * 60.0, rng.unit() * 60.0);
            Rect::new(x, y, x + 4.0, y + 4.0)
        };
        let mut model: Model = Model::new();
        let mut filters = Filters::new();
        let mut handles = Vec::new();
        for i in 0..300 {
            let rect = square(&mut rng);
            let handle = index.insert(rect, i).unwrap();
            model.insert(handle, (rect, i));
            handles.push(handle);
        }
        let homes: Vec<[Rect; 2]> = (0..10)
            .map(|_| [square(&mut rng), square(&mut rng)])
            .collect();
        let mut tracker = PairTracker::new();
        let mut last = Vec::new();
        for frame in 0..60usize {
            // 10 busy frames, then 10 calm ones, and so on: a busy stretch
            // ends at a pass on fresh records, so the calm frames skip the
            // pass and the next one compares with records of the last busy
            // frame, where the ten are again (same parity) and the filter is
            // back.
            let busy = frame % 20 < 10;
            let mut moved = Vec::new();
            let mut rects = Vec::new();
            for (i, &handle) in handles.iter().enumerate() {
                let rect = match (i, busy) {
                    (0..=9, _) => homes[i][frame % 2],
                    (_, true) => square(&mut rng),
                    _ => continue,
                };
                moved.push(handle);
                rects.push(rect);
            }
            index.update_many(&moved, &rects).unwrap();
            for (h, r) in moved.iter().zip(&rects) {
                model.get_mut(h).unwrap().0 = *r;
            }
            if frame % 3 == 0 {
                let filter = if frame % 2 == 0 {
                    Filter::new(1, 2)
                } else {
                    Filter::DEFAULT
                };
                index.set_filter(handles[10], filter).unwrap();
                filters.insert(handles[10], filter);
            }
            if frame % 40 == 5 {
                for at in [20, 21, 22] {
                    index.remove(handles[at]).unwrap();
                    model.remove(&handles[at]);
                    let rect = square(&mut rng);
                    handles[at] = index.insert(rect, 1000 + at as u32).unwrap();
                    model.insert(handles[at], (rect, 1000 + at as u32));
                }
            }
            check_tracker(&mut tracker, &index, &mut last, &model, &filters, parallel);
        }
    }
}

#[allow(dead_code)]
#[path = "../examples/trigger_zones.rs"]
mod trigger_zones;

/// The trigger-zone example, on every 2D structure: each frame's enters and
/// exits are exactly the brute-force difference of the (agent, sensor)
/// overlaps of consecutive frames, respawned agents included.
#[test]
fn the_trigger_zone_example_reports_every_enter_and_exit() {
    let scene = trigger_zones::frames(60, 400, 4, 7);
    // Brute force, once for every structure: each frame's (agent id, sensor)
    // overlaps, then what entered and what left since the frame before.
    let inside = |frame: &trigger_zones::Frame| -> BTreeSet<(u32, u32)> {
        let mut set = BTreeSet::new();
        for (&id, agent) in frame.agent_ids.iter().zip(&frame.agents) {
            for (sensor, zone) in frame.sensors.iter().enumerate() {
                if agent.intersects(zone) {
                    set.insert((id, sensor as u32));
                }
            }
        }
        set
    };
    let mut before = BTreeSet::new();
    let mut expected = Vec::with_capacity(scene.len());
    for frame in &scene {
        let now = inside(frame);
        let entered: Vec<(u32, u32)> = now.difference(&before).copied().collect();
        let left: Vec<(u32, u32)> = before.difference(&now).copied().collect();
        expected.push((entered, left));
        before = now;
    }
    // The scene must exercise what it claims: enters, exits, respawns.
    let entered: usize = expected.iter().map(|(e, _)| e.len()).sum();
    let left: usize = expected.iter().map(|(_, l)| l.len()).sum();
    let respawns = scene
        .windows(2)
        .filter(|w| w[0].agent_ids != w[1].agent_ids)
        .count();
    assert!(
        entered > 50 && left > 20 && respawns >= 15,
        "{entered} entered, {left} left, {respawns} respawns"
    );
    let world = Rect::new(0.0, 0.0, trigger_zones::WORLD, trigger_zones::WORLD);
    for kind in Kind::ALL_2D {
        let name = kind.name();
        let index = AnyIndex::for_world(kind, world).expect("the example's world");
        let log = trigger_zones::run(index, &scene, true).expect("the example runs");
        for (number, ((began, ended), (entered, left))) in log.iter().zip(&expected).enumerate() {
            let (mut began, mut ended) = (began.clone(), ended.clone());
            began.sort_unstable();
            ended.sort_unstable();
            assert_eq!(&began, entered, "{name}, frame {number}: entered");
            assert_eq!(&ended, left, "{name}, frame {number}: left");
        }
        assert_eq!(log.len(), scene.len(), "{name}");
    }
}
