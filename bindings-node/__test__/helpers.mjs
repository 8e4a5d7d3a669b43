// Shared by the tests: the classes under test, a seeded PRNG, f32 rectangles,
// the brute-force oracle, and assertions on thrown errors.
import assert from 'node:assert/strict'
import { Grid, LooseGrid, LooseQuadtree, Quadtree } from 'flatquad'

/**
 * Every class, for the suites that test the shared API on all of them:
 * `options(next, width, height)` picks options for a world of that size from a
 * PRNG (defaults included), `small` makes many cells or nodes for a handful of
 * elements in a world of about 100 × 100.
 */
export const CLASSES = [
  {
    name: 'Quadtree',
    Class: Quadtree,
    small: { maxElements: 2, maxDepth: 4 },
    options: (next) => ({ maxElements: 1 + Math.floor(next() * 8), maxDepth: Math.floor(next() * 12) }),
  },
  {
    name: 'LooseQuadtree',
    Class: LooseQuadtree,
    small: { maxElements: 2, maxDepth: 4 },
    // Half of them with a maxExtent (elements over it kept apart).
    options: (next, width, height) => ({
      maxElements: 1 + Math.floor(next() * 8),
      maxDepth: Math.floor(next() * 12),
      ...(next() < 0.5 ? { maxExtent: Math.min(width, height) * (0.01 + next() * 0.2) } : {}),
    }),
  },
  {
    name: 'Grid',
    Class: Grid,
    small: { columns: 8, rows: 8 },
    options: (next, width, height) => {
      const pick = next()
      if (pick < 0.2) return undefined
      if (pick < 0.35) return { cellSize: width * (0.02 + next() * 0.3) }
      if (pick < 0.5) return { cellSize: [width * (0.02 + next() * 0.3), height * (0.02 + next() * 0.3)] }
      return { columns: 1 + Math.floor(next() * 40), rows: 1 + Math.floor(next() * 40) }
    },
  },
  {
    name: 'LooseGrid',
    Class: LooseGrid,
    small: { columns: 8, rows: 6, tightColumns: 4, tightRows: 3 },
    options: (next, width) => {
      const pick = next()
      if (pick < 0.2) return undefined
      if (pick < 0.4) return { cellSize: width * (0.02 + next() * 0.3) }
      const [columns, rows] = [1 + Math.floor(next() * 24), 1 + Math.floor(next() * 24)]
      return { columns, rows, tightColumns: 1 + Math.floor(next() * columns), tightRows: 1 + Math.floor(next() * rows) }
    },
  },
]

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

/**
 * Asserts that `array` is a typed array of class `Type` (and `length`, when
 * given) with a buffer of its own: not a view into memory another array shares.
 */
export function assertOwnArray(array, Type, length) {
  assert.ok(array instanceof Type, `${array.constructor.name} is not a ${Type.name}`)
  if (length !== undefined) assert.equal(array.length, length)
  assert.equal(array.byteOffset, 0)
  assert.equal(array.buffer.byteLength, array.byteLength)
}
