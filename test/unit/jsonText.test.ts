/**
 * readJsonText against JSON written by a serialiser of the test's own: with or without whitespace
 * between tokens, numbers and escapes written as JSON.stringify writes them or otherwise, strings
 * full of what a scanner could mistake for structure, and a key written twice or escaped in any
 * object. Its answers are checked against JSON.parse and JSON.stringify themselves.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { escapesAreStringifys, readJsonText } from '../../src/gateway/jsonText'

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let s = seed
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
}

/** Strings a scanner could mistake for structure, or whose escapes can be written more than one way. */
const TRICKY = ['a', 'model', '"', '\\', '\\"', '{', '}', '[', ']', ',', ':', ' ', 'é', '/', '\n', '\b', '\u0001', '\u2028', '"key":1', '😀']
/** Keys of the same, but none that JSON must escape (a key written with an escape fails on its own), and an integer. */
const KEYS = [...TRICKY.filter((k) => JSON.stringify(k) === `"${k}"`), '7']
const NUMBERS = [0, 1, -2, 1.5, 1e21, 123456.789, -0.001]

type Json = null | boolean | number | string | Json[] | { [k: string]: Json }

function value(r: () => number, depth: number): Json {
  const pick = r()
  const one = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]
  if (depth > 3 || pick < 0.35) return one([null, true, one(NUMBERS), one(TRICKY).repeat(1 + Math.floor(r() * 3))])
  if (pick < 0.6) return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1))
  const o: { [k: string]: Json } = {}
  for (let i = Math.floor(r() * 5); i > 0; i--) o[one(KEYS) + (r() < 0.8 ? i : '')] = value(r, depth + 1)
  return o
}

interface Style {
  /** Whitespace between tokens. */
  spaced: boolean
  /** Numbers, and characters in strings, written another way than JSON.stringify's where there is one. */
  other: boolean
  /** The `at`-th object written (from 0) gets its first key twice, or escaped. */
  fault: { at: number; kind: 'twice' | 'escaped' } | null
}

/** Another way to write a string: every character that can be escaped otherwise is. */
const otherString = (s: string) =>
  JSON.stringify(s)
    .replace(/\\n/g, '\\u000a')
    .replace(/\//g, '\\/')
    .replace(/é/g, '\\u00E9')
    .replace(/\\u0001/g, '\\u0001')

function write(v: Json, r: () => number, style: Style): { text: string; objects: number; faulted: boolean } {
  let objects = 0
  let faulted = false
  const ws = () => (style.spaced ? [' ', '', '\n  ', '\t'][Math.floor(r() * 4)] : '')
  const go = (x: Json): string => {
    if (typeof x === 'number' && style.other) return Number.isInteger(x) && !String(x).includes('e') ? `${x}.0` : x.toExponential()
    if (typeof x === 'string' && style.other) return otherString(x)
    if (x === null || typeof x !== 'object') return JSON.stringify(x)
    if (Array.isArray(x)) return `[${ws()}${x.map(go).join(`${ws()},${ws()}`)}${ws()}]`
    const here = objects++
    const entries = Object.entries(x).map(([k, val]) => `${JSON.stringify(k)}${ws()}:${ws()}${go(val)}`)
    const first = Object.keys(x)[0]
    if (style.fault?.at === here && first !== undefined) {
      faulted = true
      if (style.fault.kind === 'twice') entries.push(`${JSON.stringify(first)}:0`)
      else entries[0] = `"\\u${first.charCodeAt(0).toString(16).padStart(4, '0')}${JSON.stringify(first).slice(2)}:0`
    }
    return `{${ws()}${entries.join(`${ws()},${ws()}`)}${ws()}}`
  }
  const text = go(v)
  return { text, objects, faulted }
}

/** Whether any object in `v` has a key beginning with a digit. */
const hasIntegerKey = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && (Object.keys(v).some((k) => /^\d/.test(k)) || Object.values(v).some(hasIntegerKey))

describe('readJsonText', () => {
  it('reads plain JSON: each top-level value and array element where it is, and whether the text is JSON.stringify’s', () => {
    const text = '{"model":"m","messages":[{"role":"user","content":"a,b]"},"x",[1,2]],"n":1,"empty":[],"o":{"a":[3]}}'
    const read = readJsonText(text)!
    assert.equal(read.plain, true)
    const at = (s: { start: number; end: number }) => text.slice(s.start, s.end)
    assert.equal(at(read.fields.get('model')!), '"m"')
    assert.deepEqual(read.fields.get('messages')!.items!.map(at), ['{"role":"user","content":"a,b]"}', '"x"', '[1,2]'])
    assert.equal(at(read.fields.get('n')!), '1')
    assert.deepEqual(read.fields.get('empty')!.items, [])
    assert.equal(at(read.fields.get('o')!), '{"a":[3]}')
    assert.equal(read.fields.get('o')!.items, null)
    assert.equal(readJsonText('{"a": 1}')!.plain, false)
    assert.equal(readJsonText('{"a":1.0}')!.plain, false)
    assert.equal(readJsonText('{"b":1,"1":2}')!.plain, false)
    assert.equal(escapesAreStringifys('{"a":"\\/"}'), false)
    assert.equal(escapesAreStringifys('{"a":"\\u000a"}'), false)
    assert.equal(escapesAreStringifys('{"a":"\\u00E9"}'), false)
    assert.equal(escapesAreStringifys('{"a":"\\u001f\\n\\"\\\\"}'), true)
  })

  it('refuses a key written twice in any object, or a key written with an escape', () => {
    assert.equal(readJsonText('{"a":1,"a":2}'), null)
    assert.equal(readJsonText('{"x":[{"b":1},{"c":{"d":1,"d":2}}]}'), null)
    assert.equal(readJsonText('{"mod\\u0065l":"a","model":"b"}'), null)
    assert.equal(readJsonText('{"a\\"b":1}'), null)
    assert.notEqual(readJsonText('[{"a":1},{"a":1}]'), null)
  })

  it('agrees with JSON.parse and JSON.stringify on 3,000 random values, each written four ways and with a fault', () => {
    let faults = 0
    let stringified = 0
    for (let seed = 1; seed <= 3000; seed++) {
      const r = random(seed)
      const v = value(r, 0)
      for (const spaced of [false, true]) {
        for (const other of [false, true]) {
          const { text, objects } = write(v, r, { spaced, other, fault: null })
          const parsed = JSON.parse(text)
          const read = readJsonText(text)
          assert.ok(read, text)
          const isStringified = text === JSON.stringify(parsed)
          // Where it says so, the text is JSON.stringify's; and it says so of every such text but one with an integer key, which it leaves alone.
          const canonical = read.plain && escapesAreStringifys(text)
          if (canonical) assert.ok(isStringified, text)
          else assert.ok(!isStringified || hasIntegerKey(parsed), text)
          stringified += isStringified ? 1 : 0
          if (isStringified && typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
            for (const [key, span] of read.fields) {
              assert.equal(text.slice(span.start, span.end), JSON.stringify(parsed[key]), `${key} in ${text}`)
              span.items?.forEach((item, i) => assert.equal(text.slice(item.start, item.end), JSON.stringify(parsed[key][i])))
            }
            assert.deepEqual([...read.fields.keys()], Object.keys(parsed))
          }
          if (objects === 0) continue
          const fault = { at: Math.floor(r() * objects), kind: r() < 0.5 ? ('twice' as const) : ('escaped' as const) }
          const faulty = write(v, r, { spaced, other, fault })
          // Still JSON, and JSON.parse still reads it (keeping the last of a key written twice).
          JSON.parse(faulty.text)
          assert.equal(readJsonText(faulty.text) === null, faulty.faulted, faulty.text)
          faults += faulty.faulted ? 1 : 0
        }
      }
    }
    assert.ok(faults > 2000, `${faults} faults written`)
    assert.ok(stringified > 1000, `${stringified} texts as JSON.stringify writes them`)
  })
})
