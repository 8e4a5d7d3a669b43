// Shared by the tests: a seeded PRNG, f32 rectangles, the brute-force oracle,
// and assertions on thrown errors.
import assert from 'node:assert/strict'

export const f32 = Math.fround

/** mulberry32: a small seeded PRNG, so a failing case can be replayed. */
export function rng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Closed-rectangle intersection on [x1, y1, x2, y2] arrays. */
export const intersects = (a, b) => a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
export const containsPoint = (a, x, y) => a[0] <= x && x <= a[2] && a[1] <= y && y <= a[3]

/** The rectangle as the tree stores it: every coordinate rounded to f32. */
export const toF32 = (r) => r.map(f32)

/** Handles as a sorted plain array, for comparing sets. */
export const sorted = (handles) => Array.from(handles).sort((a, b) => a - b)

/** Unordered pairs as sorted "a,b" strings. */
export function pairSet(flat) {
  const out = []
  for (let i = 0; i < flat.length; i += 2) {
    const [a, b] = flat[i] < flat[i + 1] ? [flat[i], flat[i + 1]] : [flat[i + 1], flat[i]]
    out.push(`${a},${b}`)
  }
  return out.sort()
}

/** The brute-force oracle over a Map handle -> [x1, y1, x2, y2] (f32 values). */
export const oracle = {
  query(elements, q, omit) {
    const out = []
    for (const [h, r] of elements) if (h !== omit && intersects(r, q)) out.push(h)
    return sorted(out)
  },
  point(elements, x, y, omit) {
    const out = []
    for (const [h, r] of elements) if (h !== omit && containsPoint(r, x, y)) out.push(h)
    return sorted(out)
  },
  pairs(elements) {
    const list = [...elements]
    const out = []
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        if (intersects(list[i][1], list[j][1])) {
          const [a, b] = list[i][0] < list[j][0] ? [list[i][0], list[j][0]] : [list[j][0], list[i][0]]
          out.push(`${a},${b}`)
        }
      }
    }
    return out.sort()
  },
}

/**
 * Asserts that `fn` throws an error of class `type` with `code` (and `index`,
 * and a message matching `message`, when given), and returns the error.
 */
export function throwsLike(fn, { type = Error, code, index, message }) {
  let caught
  try {
    fn()
  } catch (e) {
    caught = e
  }
  assert.ok(caught !== undefined, `expected a ${type.name} ${code ?? ''}, nothing was thrown`)
  assert.ok(caught instanceof type, `expected a ${type.name}, got ${caught?.constructor?.name}: ${caught?.message}`)
  if (type === Error) {
    assert.ok(!(caught instanceof TypeError) && !(caught instanceof RangeError), `expected a plain Error, got ${caught.constructor.name}`)
  }
  if (code !== undefined) assert.equal(caught.code, code, caught.message)
  if (index !== undefined) assert.equal(caught.index, index, caught.message)
  if (message !== undefined) assert.match(caught.message, message)
  return caught
}
