/**
 * Most events of a chat stream are plain content deltas (`{"id":…,"choices":[{"index":0,"delta":
 * {"content":"…"},"finish_reason":null}]}`) that the relay only passes on and counts. Parsing each
 * to learn that was the largest JavaScript cost the gateway had per event. This reads the JSON
 * text for the keys that would make it anything else, so such an event can go on as it came.
 *
 * A key in JSON text is a quoted name followed by a colon, and a quote inside a string value is
 * always escaped, so `"usage"` followed by a colon is the key, never part of the answer's text.
 * Whatever this cannot tell for sure (a line break, a content that is not a string) it leaves to
 * the parser: it may answer null for a plain delta, never a count for an event that is not one.
 */

/**
 * What needs the event read: a line break (the SSE framing), a tool call, an error or Groq's
 * extension whatever their value; usage, a finish or a refusal unless null; content that is not a
 * string; no choices at all (a usage report, which the relay does not pass on as it came).
 */
const NEEDS_READ =
  /\n|"(?:tool_calls|function_call|error|x_groq)"|"(?:usage|finish_reason|refusal)"\s*:\s*(?![n\s])|"content"\s*:\s*(?!["n\s])|"choices"\s*:\s*\[\s*\]/
const CONTENT = /"content"\s*:\s*"/g
const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * The characters of content a chat chunk carries (what its `content` strings hold, as `.length`
 * counts them) when it is a plain delta; null when it is not one, or might not be.
 */
export function plainDeltaChars(text: string): number | null {
  if (text.charCodeAt(0) !== 0x7b || NEEDS_READ.test(text)) return null
  let chars = 0
  CONTENT.lastIndex = 0
  while (CONTENT.exec(text) !== null) {
    let i = CONTENT.lastIndex
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c === QUOTE) break
      // \uXXXX is one UTF-16 unit, as is every other escape.
      if (c === BACKSLASH) i += text.charCodeAt(i + 1) === 0x75 ? 5 : 1
      chars++
    }
    if (i >= text.length) return null
    CONTENT.lastIndex = i + 1
  }
  return chars
}
