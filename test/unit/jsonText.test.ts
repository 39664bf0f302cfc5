/**
 * keysAreUnique, against JSON written by a serialiser of the test's own that can write a key twice
 * or escaped anywhere, with whitespace between every token and strings full of what a scanner could
 * mistake for structure (quotes, backslashes, braces, commas).
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { keysAreUnique } from '../../src/gateway/jsonText'

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let s = seed
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
}

/** Strings a scanner could mistake for structure. */
const TRICKY = ['a', 'model', '"', '\\', '\\"', '{', '}', '[', ']', ',', ':', ' ', 'é', '\n', '\u2028', '"key":1']
/** Keys of the same, but none that JSON must escape (a key written with an escape fails on its own). */
const KEYS = TRICKY.filter((k) => JSON.stringify(k) === `"${k}"`)

type Json = null | boolean | number | string | Json[] | { [k: string]: Json }

function value(r: () => number, depth: number): Json {
  const pick = r()
  if (depth > 3 || pick < 0.35) return [null, true, 1.5, -2, TRICKY[Math.floor(r() * TRICKY.length)].repeat(1 + Math.floor(r() * 3))][Math.floor(r() * 5)]
  if (pick < 0.6) return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1))
  const o: { [k: string]: Json } = {}
  for (let i = Math.floor(r() * 5); i > 0; i--) o[KEYS[Math.floor(r() * KEYS.length)] + i] = value(r, depth + 1)
  return o
}

/** Writes `v` with whitespace between tokens; the `at`-th object written (counting from 0) gets its first key twice, or escaped. */
function write(v: Json, r: () => number, fault: { at: number; kind: 'twice' | 'escaped' } | null): { text: string; objects: number; faulted: boolean } {
  let objects = 0
  let faulted = false
  const ws = () => [' ', '', '\n  ', '\t'][Math.floor(r() * 4)]
  const go = (x: Json): string => {
    if (x === null || typeof x !== 'object') return JSON.stringify(x)
    if (Array.isArray(x)) return `[${ws()}${x.map(go).join(`${ws()},${ws()}`)}${ws()}]`
    const here = objects++
    const entries = Object.entries(x).map(([k, val]) => `${JSON.stringify(k)}${ws()}:${ws()}${go(val)}`)
    const first = Object.keys(x)[0]
    if (fault?.at === here && first !== undefined) {
      faulted = true
      if (fault.kind === 'twice') entries.push(`${JSON.stringify(first)}:0`)
      else entries[0] = `"\\u${first.charCodeAt(0).toString(16).padStart(4, '0')}${JSON.stringify(first).slice(2)}:0`
    }
    return `{${ws()}${entries.join(`${ws()},${ws()}`)}${ws()}}`
  }
  const text = go(v)
  return { text, objects, faulted }
}

describe('keysAreUnique', () => {
  it('passes JSON whose objects each have their keys once, written plainly', () => {
    assert.equal(keysAreUnique('{"a":1,"b":{"a":2,"c":[{"a":3},{"a":4}]}}'), true)
    assert.equal(keysAreUnique('{"a":"\\"a\\":1","b":"\\\\","c":"{\\"a\\":2}"}'), true)
    assert.equal(keysAreUnique('[{"a":1},{"a":1}]'), true)
    assert.equal(keysAreUnique('"just a string"'), true)
    assert.equal(keysAreUnique('{}'), true)
  })

  it('fails a key written twice in any object, or a key written with an escape', () => {
    assert.equal(keysAreUnique('{"a":1,"a":2}'), false)
    assert.equal(keysAreUnique('{"x":[{"b":1},{"c":{"d":1,"d":2}}]}'), false)
    assert.equal(keysAreUnique('{"mod\\u0065l":"a","model":"b"}'), false)
    assert.equal(keysAreUnique('{"a\\"b":1}'), false)
  })

  it('agrees with a serialiser that writes a fault into one object of 2,000 random values', () => {
    let faults = 0
    for (let seed = 1; seed <= 2000; seed++) {
      const r = random(seed)
      const v = value(r, 0)
      const plain = write(v, r, null)
      assert.equal(keysAreUnique(plain.text), true, plain.text)
      assert.deepEqual(JSON.parse(plain.text), v)
      if (plain.objects === 0) continue
      const at = Math.floor(r() * plain.objects)
      const kind = r() < 0.5 ? 'twice' : 'escaped'
      const faulty = write(v, random(seed), { at, kind })
      // Still JSON, and JSON.parse still reads it (keeping the last of a key written twice).
      JSON.parse(faulty.text)
      assert.equal(keysAreUnique(faulty.text), !faulty.faulted, faulty.text)
      faults += faulty.faulted ? 1 : 0
    }
    assert.ok(faults > 500, `${faults} faults written`)
  })
})
