// The agents' movement of docs/workload.md, on the main thread and, with more
// than one thread, on workers beside it: what a Node game loop does to step its
// world on every core, as the Rust demo steps it on rayon's pool
// (`Agents::step_on`). The agents' arrays and the rectangles live in
// SharedArrayBuffers, so each thread moves its own range of agents in place and
// flatquad's batch calls read the same memory. The result does not depend on
// the thread count: each agent's step reads and writes only its own entries.

import { Worker } from 'node:worker_threads'

import { f32 } from './workload.mjs'

// One frame's movement of agents from..to: each moves by its velocity and
// bounces off the world's edges (f32 arithmetic, in the order of
// docs/workload.md), and its new rectangle goes into `out` in the same pass
// (two passes over the agents took 0.62 ms a frame at uniform-100k, this one 0.38).
export function stepRange(a, out, from, to) {
  const { world, x: xs, y: ys, vx, vy, side } = a
  for (let i = from, j = 4 * from; i < to; i++, j += 4) {
    const s = side[i]
    const limit = f32(world - s)
    let x = f32(xs[i] + vx[i])
    let y = f32(ys[i] + vy[i])
    if (x < 0) { x = 0; vx[i] = -vx[i] }
    if (x > limit) { x = limit; vx[i] = -vx[i] }
    if (y < 0) { y = 0; vy[i] = -vy[i] }
    if (y > limit) { y = limit; vy[i] = -vy[i] }
    xs[i] = x
    ys[i] = y
    writeRect(out, j, x, y, s)
  }
}

// Every agent's rectangle into `out` (4 floats each).
export function writeRects(a, out) {
  const { n, x, y, side } = a
  for (let i = 0, j = 0; i < n; i++, j += 4) writeRect(out, j, x[i], y[i], side[i])
}

// One rectangle (x, y, x + side, y + side) at `out[j..j + 4]`.
function writeRect(out, j, x, y, side) {
  out[j] = x
  out[j + 1] = y
  out[j + 2] = x + side // rounded to f32 by the store
  out[j + 3] = y + side
}

// The agents' arrays (makeAgents) that a step reads or writes.
const AGENT_ARRAYS = ['x', 'y', 'vx', 'vy', 'side']

// The agents' arrays copied into SharedArrayBuffers, which workers can write.
export function shareAgents(a) {
  const shared = { n: a.n, world: a.world }
  for (const key of AGENT_ARRAYS) shared[key] = sharedFloats(a[key].length, a[key])
  return shared
}

// A Float32Array of `length` over a SharedArrayBuffer, holding `from` if given.
export function sharedFloats(length, from) {
  const floats = new Float32Array(new SharedArrayBuffer(4 * length))
  if (from) floats.set(from)
  return floats
}

// The control words the threads share: the frame the workers are asked to
// step (bumped by the main thread), how many have finished it, a stop flag,
// and a flag a worker raises when its step throws.
const FRAME = 0
const DONE = 1
const STOP = 2
const FAILED = 3
const STEP_TIMEOUT_MS = 10_000

// Steps shared agents (`shareAgents`) into a shared `out` on `threads`
// threads: the main thread takes the first range, one worker each of the
// others. `await Stepper.start(...)`, then `step()` once a frame; `await
// close()` ends the workers, and throws a worker's error if one threw.
export class Stepper {
  static async start(agents, out, threads) {
    const stepper = new Stepper(agents, out, threads)
    try {
      for (let k = 1; k < threads; k++) stepper.workers.push(stepper.spawn(k))
      // 'online' comes before a worker's modules load; 'ready' after.
      await Promise.all(stepper.workers.map((w) => new Promise((resolve, reject) => {
        w.once('message', resolve)
        w.once('error', reject)
        w.once('exit', () => reject(new Error('a step worker exited before it was ready')))
      })))
    } catch (err) {
      await stepper.close().catch(() => {}) // the workers that did start would wait forever
      throw err
    }
    return stepper
  }

  constructor(agents, out, threads) {
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`threads must be a positive integer, got ${threads}`)
    // A worker given an array over unshared memory would step a copy of it.
    const arrays = [...AGENT_ARRAYS.map((key) => [key, agents[key]]), ['out', out]]
    for (const [name, array] of arrays) {
      if (threads > 1 && !(array.buffer instanceof SharedArrayBuffer)) {
        throw new TypeError(`${name} must be over a SharedArrayBuffer to be stepped on ${threads} threads (shareAgents, sharedFloats)`)
      }
    }
    this.agents = agents
    this.out = out
    this.control = new Int32Array(new SharedArrayBuffer(16))
    // Ranges of about equal size, the main thread's first.
    this.bounds = Array.from({ length: threads + 1 }, (_, k) => Math.round((k * agents.n) / threads))
    this.workers = []
    this.failure = null
  }

  // The worker of range k.
  spawn(k) {
    const { agents, out, control, bounds } = this
    const workerData = { agents, out, control, from: bounds[k], to: bounds[k + 1] }
    const worker = new Worker(new URL('./step_worker.mjs', import.meta.url), { workerData })
    worker.on('error', (err) => { this.failure ??= err })
    // A worker that threw emits 'error' before 'exit'.
    worker.exited = new Promise((resolve) => worker.once('exit', resolve))
    worker.unref() // a Stepper never closed does not keep the process alive
    return worker
  }

  // One frame's movement of every agent; returns when every thread is done.
  // A worker's error reaches this thread as an event, which cannot run while it
  // waits: a worker that throws raises FAILED (its error is thrown by
  // `close()`), and one silent for STEP_TIMEOUT_MS is an error too.
  step() {
    const { control, workers } = this
    if (workers.length > 0) {
      // DONE is reset before the frame is posted: a worker counts itself done
      // only after it has seen the new frame.
      Atomics.store(control, DONE, 0)
      Atomics.add(control, FRAME, 1)
      Atomics.notify(control, FRAME)
    }
    stepRange(this.agents, this.out, this.bounds[0], this.bounds[1])
    for (let done; (done = Atomics.load(control, DONE)) < workers.length;) {
      if (Atomics.wait(control, DONE, done, STEP_TIMEOUT_MS) === 'timed-out') {
        throw new Error(`a step worker did not finish its range in ${STEP_TIMEOUT_MS} ms`)
      }
    }
    if (Atomics.load(control, FAILED)) throw new Error('a step worker threw (close() throws its error)')
  }

  // Tells the workers to stop and waits for them to end (each on its own, so
  // that a worker's error has come: terminating it could drop the error),
  // terminating any still running after STEP_TIMEOUT_MS.
  async close() {
    Atomics.store(this.control, STOP, 1)
    Atomics.add(this.control, FRAME, 1)
    Atomics.notify(this.control, FRAME)
    let timer
    const late = new Promise((resolve) => { timer = setTimeout(resolve, STEP_TIMEOUT_MS) })
    await Promise.race([Promise.all(this.workers.map((w) => w.exited)), late])
    clearTimeout(timer)
    await Promise.all(this.workers.map((w) => w.terminate()))
    if (this.failure) throw this.failure
  }
}

// The worker's side (step_worker.mjs): waits for each new frame, steps its
// range, counts itself done.
export function serveSteps({ agents, out, control, from, to }) {
  for (let frame = 0; ;) {
    Atomics.wait(control, FRAME, frame)
    frame = Atomics.load(control, FRAME)
    if (Atomics.load(control, STOP)) return
    try {
      stepRange(agents, out, from, to)
    } catch (err) {
      Atomics.store(control, FAILED, 1)
      throw err // ends the worker, whose 'error' event carries it
    } finally {
      Atomics.add(control, DONE, 1)
      Atomics.notify(control, DONE)
    }
  }
}
