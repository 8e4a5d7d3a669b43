//! Trigger zones: a few moving sensor boxes and many moving agents in one
//! index; every frame prints which agents entered and which left each sensor,
//! from the contact events of a [`PairTracker`].
//!
//! ```text
//! cargo run -p flatquad --example trigger_zones -- [--frames 30] [--agents 2000]
//!     [--sensors 4] [--index grid|quadtree|loose-grid|loose-quadtree] [--quiet]
//! ```
//!
//! Sensors and agents are told apart by collision filters: a sensor (category
//! `SENSOR`) collides only with agents, an agent only with sensors, so every
//! event is an agent entering or leaving a sensor. Every few frames sensor 0
//! collects the agent nearest its centre: it is removed and a new one (a new
//! id) spawns elsewhere. The old one's contacts end under the handle it had,
//! and the index reuses its slot. `core/tests/pair_tracker.rs` runs it and
//! checks every event against the brute-force difference of consecutive frames.
//!
//! ```text
//! frame 3: inside 41 | agent 812 entered sensor 2; agent 77 left sensor 0
//! total: 1234 entered, 1193 left, 41 inside at the end
//! ```

use std::collections::HashMap;

use flatquad::{AnyIndex, Error, Filter, Handle, Kind, PairTracker, Rect, SpatialIndex};

/// Filter categories: each kind collides only with the other.
pub const SENSOR: u32 = 1;
pub const AGENT: u32 = 2;
pub const WORLD: f32 = 512.0;
const AGENT_SIDE: f32 = 3.0;
const SENSOR_SIDE: f32 = 60.0;
/// Every this many frames, one agent is collected and a new one spawns.
const RESPAWN_EVERY: usize = 3;

/// One frame of the scene: each agent row's id (a new id when one respawned
/// there) and box, and each sensor's box.
#[derive(Clone, Debug)]
pub struct Frame {
    pub agent_ids: Vec<u32>,
    pub agents: Vec<Rect>,
    pub sensors: Vec<Rect>,
}

/// What one frame reported: `(agent id, sensor)` that entered, and that left.
pub type Events = (Vec<(u32, u32)>, Vec<(u32, u32)>);

/// xorshift64: the same scene every run, without a dependency.
struct Rng(u64);

impl Rng {
    fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        lo + (hi - lo) * (self.0 >> 40) as f32 / 16_777_216.0
    }
}

/// A body bouncing off the world's edges.
struct Body {
    at: [f32; 2],
    velocity: [f32; 2],
    side: f32,
}

impl Body {
    fn new(rng: &mut Rng, side: f32, speed: f32) -> Body {
        Body {
            at: [
                rng.uniform(0.0, WORLD - side),
                rng.uniform(0.0, WORLD - side),
            ],
            velocity: [rng.uniform(-speed, speed), rng.uniform(-speed, speed)],
            side,
        }
    }

    fn rect(&self) -> Rect {
        let [x, y] = self.at;
        Rect::new(x, y, x + self.side, y + self.side)
    }

    fn step(&mut self) {
        for axis in 0..2 {
            self.at[axis] += self.velocity[axis];
            if !(0.0..=WORLD - self.side).contains(&self.at[axis]) {
                self.velocity[axis] = -self.velocity[axis];
                self.at[axis] = self.at[axis].clamp(0.0, WORLD - self.side);
            }
        }
    }

    fn centre(&self) -> [f32; 2] {
        [self.at[0] + self.side / 2.0, self.at[1] + self.side / 2.0]
    }
}

/// The scene, frame 0 first: agents move fast, sensors slowly.
pub fn frames(count: usize, agents: usize, sensors: usize, seed: u64) -> Vec<Frame> {
    let mut rng = Rng(seed | 1);
    let mut bodies: Vec<Body> = (0..agents)
        .map(|_| Body::new(&mut rng, AGENT_SIDE, 4.0))
        .collect();
    let mut zones: Vec<Body> = (0..sensors)
        .map(|_| Body::new(&mut rng, SENSOR_SIDE, 1.0))
        .collect();
    let mut agent_ids: Vec<u32> = (0..agents as u32).collect();
    let mut next_id = agents as u32;
    let mut scene = Vec::with_capacity(count);
    for frame in 0..count {
        if frame > 0 && frame % RESPAWN_EVERY == 0 && !zones.is_empty() {
            // Sensor 0 collects the agent nearest its centre (most often inside it).
            let [cx, cy] = zones[0].centre();
            let distance = |b: &Body| {
                let [x, y] = b.centre();
                (x - cx).powi(2) + (y - cy).powi(2)
            };
            if let Some(row) =
                (0..agents).min_by(|&a, &b| distance(&bodies[a]).total_cmp(&distance(&bodies[b])))
            {
                agent_ids[row] = next_id;
                next_id += 1;
                bodies[row] = Body::new(&mut rng, AGENT_SIDE, 4.0);
            }
        }
        scene.push(Frame {
            agent_ids: agent_ids.clone(),
            agents: bodies.iter().map(Body::rect).collect(),
            sensors: zones.iter().map(Body::rect).collect(),
        });
        bodies.iter_mut().chain(&mut zones).for_each(Body::step);
    }
    scene
}

/// Who a handle was: an agent (its id) or a sensor (its number). Kept after a
/// removal, so that the contacts ending under an old handle can be named.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Who {
    Agent(u32),
    Sensor(u32),
}

/// Plays `scene` in `index` (empty, over the world), printing each frame's
/// events unless `quiet`; returns them per frame.
pub fn run(mut index: AnyIndex, scene: &[Frame], quiet: bool) -> Result<Vec<Events>, Error> {
    let mut who: HashMap<Handle, Who> = HashMap::new();
    let (mut agent_handles, mut sensor_handles) = (Vec::new(), Vec::new());
    let mut tracker = PairTracker::new();
    let mut log = Vec::with_capacity(scene.len());
    let mut last_ids: &[u32] = &[];
    for (number, frame) in scene.iter().enumerate() {
        if number == 0 {
            let sensors: Vec<u32> = (0..frame.sensors.len() as u32).collect();
            index.insert_many(&frame.sensors, &sensors, &mut sensor_handles)?;
            index.set_filter_many(
                &sensor_handles,
                &vec![Filter::new(SENSOR, AGENT); sensors.len()],
            )?;
            index.insert_many(&frame.agents, &frame.agent_ids, &mut agent_handles)?;
            index.set_filter_many(
                &agent_handles,
                &vec![Filter::new(AGENT, SENSOR); agent_handles.len()],
            )?;
            who.extend(
                sensor_handles
                    .iter()
                    .zip(sensors)
                    .map(|(&h, s)| (h, Who::Sensor(s))),
            );
            who.extend(
                agent_handles
                    .iter()
                    .zip(&frame.agent_ids)
                    .map(|(&h, &id)| (h, Who::Agent(id))),
            );
        } else {
            for (row, (&id, &rect)) in frame.agent_ids.iter().zip(&frame.agents).enumerate() {
                if id != last_ids[row] {
                    // A respawn: the old agent leaves the index, a new one comes in.
                    index.remove(agent_handles[row])?;
                    let handle = index.insert(rect, id)?;
                    index.set_filter(handle, Filter::new(AGENT, SENSOR))?;
                    agent_handles[row] = handle;
                    who.insert(handle, Who::Agent(id));
                }
            }
            index.update_many(&agent_handles, &frame.agents)?;
            index.update_many(&sensor_handles, &frame.sensors)?;
        }
        last_ids = &frame.agent_ids;
        index.cleanup();
        let (began, ended) = tracker.update(&index);
        let contact = |&[a, b]: &[Handle; 2]| match (who[&a], who[&b]) {
            (Who::Agent(agent), Who::Sensor(sensor)) | (Who::Sensor(sensor), Who::Agent(agent)) => {
                (agent, sensor)
            }
            pair => unreachable!("the filters admit only agent-sensor pairs, got {pair:?}"),
        };
        let events: Events = (
            began.iter().map(contact).collect(),
            ended.iter().map(contact).collect(),
        );
        let any = !(events.0.is_empty() && events.1.is_empty());
        if any && !quiet {
            let shown: Vec<String> = (events
                .0
                .iter()
                .map(|(a, s)| format!("agent {a} entered sensor {s}")))
            .chain(
                events
                    .1
                    .iter()
                    .map(|(a, s)| format!("agent {a} left sensor {s}")),
            )
            .collect();
            println!(
                "frame {number}: inside {} | {}",
                tracker.pair_count(),
                shown.join("; ")
            );
        }
        log.push(events);
    }
    let entered: usize = log.iter().map(|(e, _)| e.len()).sum();
    let left: usize = log.iter().map(|(_, e)| e.len()).sum();
    println!(
        "total: {entered} entered, {left} left, {} inside at the end",
        tracker.pair_count()
    );
    Ok(log)
}

/// The index named on the command line, over the scene's world.
pub fn index_named(name: &str) -> Option<Result<AnyIndex, Error>> {
    let kind = Kind::ALL_2D
        .into_iter()
        .find(|kind| kind.name().to_lowercase() == name.replace('-', ""))?;
    Some(AnyIndex::for_world(kind, Rect::new(0.0, 0.0, WORLD, WORLD)))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut count, mut agents, mut sensors, mut name, mut quiet) =
        (30, 2000, 4, "grid".to_string(), false);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--frames" => count = value()?.parse()?,
            "--agents" => agents = value()?.parse()?,
            "--sensors" => sensors = value()?.parse()?,
            "--index" => name = value()?,
            "--quiet" => quiet = true,
            _ => return Err(format!("unknown argument {flag} (see the file's header)").into()),
        }
    }
    let index = index_named(&name).ok_or(format!("no index named {name}"))??;
    run(index, &frames(count, agents, sensors, 1), quiet)?;
    Ok(())
}
