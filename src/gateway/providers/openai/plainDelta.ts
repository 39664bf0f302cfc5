/**
 * Most events of a chat stream are plain content deltas (`{"id":…,"choices":[{"index":0,"delta":
 * {"content":"…"},"finish_reason":null}]}`) that the relay only passes on and counts. Parsing each
 * to learn that cost more than anything else the gateway did per event. This reads the JSON text
 * for the keys that would make it anything else, so such an event can go on as it came.
 *
 * A key in JSON text is a quoted name followed by a colon, and a quote inside a string value is
 * always escaped, so `"usage"` with both quotes bare is a key or a whole string value, never part
 * of the answer's text. Whatever this cannot tell for sure (spacing it does not expect, a string
 * value spelling a key's name) it leaves to the parser: it may answer null for a plain delta,
 * never a count for an event that is not one.
 */

const WS = new Set([0x20, 0x09, 0x0a, 0x0d])
const QUOTE = 0x22
const BACKSLASH = 0x5c

/** Keys whose presence, whatever their value, needs the event parsed. */
const READ_ALWAYS = ['"tool_calls"', '"function_call"', '"error"', '"x_groq"']
/** Keys that need it parsed unless they are null. */
const READ_UNLESS_NULL = ['"usage"', '"finish_reason"', '"refusal"']

/** Where the value after `key` at `at` begins (past the colon and spaces), or -1 when no colon follows: `at` is not a key. */
function valueAt(text: string, at: number, key: string): number {
  let i = at + key.length
  while (WS.has(text.charCodeAt(i))) i++
  if (text.charCodeAt(i) !== 0x3a) return -1
  i++
  while (WS.has(text.charCodeAt(i))) i++
  return i
}

/** Every occurrence of `key` is a key whose value is null. */
function nullWherever(text: string, key: string): boolean {
  for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + key.length)) {
    const v = valueAt(text, at, key)
    if (v === -1 || !text.startsWith('null', v)) return false
  }
  return true
}

/** The length of the JSON string starting at `open` (its opening quote) once unescaped, or -1 when it does not end. */
function stringLength(text: string, open: number): number {
  let n = 0
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) return n
    // \uXXXX is one UTF-16 unit, as is every other escape.
    if (c === BACKSLASH) i += text.charCodeAt(i + 1) === 0x75 ? 5 : 1
    n++
  }
  return -1
}

/**
 * The characters of content a chat chunk carries (what `content` strings hold, as `.length`
 * counts them), when it is a plain delta: an object with at least one choice, no usage, no finish,
 * no refusal, no tool call and no error. Null when it is not one, or might not be.
 */
export function plainDeltaChars(text: string): number | null {
  if (text.charCodeAt(0) !== 0x7b || text.includes('\n')) return null
  for (const key of READ_ALWAYS) if (text.includes(key)) return null
  for (const key of READ_UNLESS_NULL) if (!nullWherever(text, key)) return null
  // A chunk with no choices is a usage report, which the relay does not pass on as it came.
  const choices = text.indexOf('"choices"')
  if (choices === -1 || text.indexOf('"choices"', choices + 9) !== -1) return null
  let c = valueAt(text, choices, '"choices"')
  if (c === -1 || text.charCodeAt(c) !== 0x5b) return null
  c++
  while (WS.has(text.charCodeAt(c))) c++
  if (text.charCodeAt(c) === 0x5d) return null
  let chars = 0
  // Searching on from just past the value's opening quote is safe: a string holds no bare quote.
  for (let at = text.indexOf('"content"'); at !== -1;) {
    const v = valueAt(text, at, '"content"')
    if (v === -1) return null
    if (!text.startsWith('null', v)) {
      if (text.charCodeAt(v) !== QUOTE) return null
      const n = stringLength(text, v)
      if (n === -1) return null
      chars += n
    }
    at = text.indexOf('"content"', v + 1)
  }
  return chars
}
