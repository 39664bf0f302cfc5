/** Where a value is in JSON text: `text.slice(start, end)`. */
export interface Span {
  start: number
  end: number
}

/** A top-level field's value, and where its value is an array, each element's. */
export interface FieldSpan extends Span {
  items: Span[] | null
}

/** What `readJsonText` learns of a JSON object's text. */
export interface JsonText {
  /**
   * The text's structure is what JSON.stringify writes of the value JSON.parse makes of it: no
   * space between tokens, numbers as it writes them, no key that is an integer (an object's integer
   * keys come first, whatever the text's order). With its strings' escapes JSON.stringify's too
   * (`escapesAreStringifys`), any part of the text is what JSON.stringify writes of that part's value.
   */
  plain: boolean
  /** Each top-level field's value; read only where the text is `plain`. */
  fields: Map<string, FieldSpan>
}

/**
 * Reads JSON text (valid: JSON.parse took it) for what lets the gateway use the text in place of
 * its parsed value serialised again. Null where the text could mean to another reader something
 * else than it meant to JSON.parse: an object with a key twice (JSON.parse keeps the last value,
 * other parsers may keep the first, so the gateway would check and price one request while the
 * provider answered another) or a key written with an escape (which could spell another key twice).
 *
 * Strings are skipped, not read (`stringEnd`), so the walk costs the structure more than the text:
 * ~0.3 ms on bench/turn.ts's agent turn of 200 KB, where serialising its parsed value again cost
 * ~0.75 ms (microbenchmark).
 */
export function readJsonText(text: string): JsonText | null {
  /** The keys seen so far of each object open around the cursor; null for an array. */
  const open: Array<Set<string> | null> = []
  /** The next string is a key: after `{` or after `,` in an object. */
  let keyNext = false
  let plain = true
  const fields = new Map<string, FieldSpan>()
  /** The top-level field whose value the cursor is in, and where its array's current element began. */
  let field: FieldSpan | null = null
  let itemStart = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const end = stringEnd(text, i)
      if (keyNext) {
        const key = text.slice(i + 1, end)
        const keys = open[open.length - 1]!
        if (key.includes('\\') || keys.has(key)) return null
        keys.add(key)
        keyNext = false
        if (isDigit(key.charCodeAt(0))) plain = false
        if (open.length === 1) fields.set(key, (field = { start: end + 2, end: text.length, items: null }))
      }
      i = end
    } else if (c === OPEN_OBJECT) {
      open.push(new Set())
      keyNext = true
    } else if (c === OPEN_ARRAY) {
      open.push(null)
      if (open.length === 2 && field !== null) {
        field.items = []
        itemStart = i + 1
      }
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (open.length === 2 && c === CLOSE_ARRAY && field?.items && i > itemStart) field.items.push({ start: itemStart, end: i })
      if (open.length === 1 && field !== null) field.end = i
      open.pop()
      keyNext = false
    } else if (c === COMMA) {
      const depth = open.length
      keyNext = open[depth - 1] !== null
      if (depth === 1 && field !== null) {
        field.end = i
        field = null
      } else if (depth === 2 && !keyNext && field?.items) {
        field.items.push({ start: itemStart, end: i })
        itemStart = i + 1
      }
    } else if (c === MINUS || isDigit(c)) {
      let end = i + 1
      while (end < text.length && isNumberChar(text.charCodeAt(end))) end++
      const number = text.slice(i, end)
      if (String(Number(number)) !== number) plain = false
      i = end - 1
    } else if (c === SPACE || c === TAB || c === LF || c === CR) {
      plain = false
    }
  }
  return { plain, fields }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const COMMA = 0x2c
const MINUS = 0x2d
const SPACE = 0x20
const TAB = 0x09
const LF = 0x0a
const CR = 0x0d

const isDigit = (c: number) => c >= 0x30 && c <= 0x39
/** Digits, `-`, `+`, `.`, `e` and `E`: what a JSON number is written with. */
const isNumberChar = (c: number) => isDigit(c) || c === MINUS || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45

/** The rest of a string after its opening quote, to its closing one. */
const STRING_REST = /[^"\\]*(?:\\.[^"\\]*)*"/y

/**
 * The index of the quote that closes the string whose opening quote is at `start`. Most strings
 * have no escaped quote, and `indexOf` finds their end; one that has is read by a regular
 * expression, which beat an `indexOf` an escaped quote: 209 against 253 µs on bench/turn.ts's
 * agent turn, 26 against 34 µs on 20 KB of a prompt that quotes 900 times (microbenchmarks).
 */
function stringEnd(text: string, start: number): number {
  const q = text.indexOf('"', start + 1)
  if (text.charCodeAt(q - 1) !== BACKSLASH) return q
  STRING_REST.lastIndex = start + 1
  STRING_REST.test(text)
  return STRING_REST.lastIndex - 1
}

/** The four hex digits of a `\u` escape JSON.stringify writes: a control character without a letter of its own, in lowercase. */
const CONTROL_ESCAPE = /^00(?:0[0-7bef]|1[0-9a-f])$/

/**
 * Whether the text's string escapes are all JSON.stringify's: no `\/`, and `\u` only for a control
 * character without a letter of its own, in lowercase. Read apart from `readJsonText`, as only the
 * prompt's digests need it, by `indexOf`: a regular expression trying every backslash cost 0.17 ms
 * on a 190 KB turn of code. An escaped backslash followed by `/` or `u` may be taken for such an
 * escape, which only sends that text the slow way.
 */
export function escapesAreStringifys(text: string): boolean {
  if (text.includes('\\/')) return false
  for (let at = text.indexOf('\\u'); at !== -1; at = text.indexOf('\\u', at + 2)) {
    if (!CONTROL_ESCAPE.test(text.slice(at + 2, at + 6))) return false
  }
  return true
}
