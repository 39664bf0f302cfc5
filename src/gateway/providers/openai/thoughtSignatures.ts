type Obj = Record<string, unknown>
type Call = { id?: unknown; extra_content?: { google?: { thought_signature?: unknown } } }

/**
 * Gemini 3 signs the first tool call of an answer (`extra_content.google.thought_signature`) and
 * refuses a later request that replays that call without its signature ("Function call is
 * missing a thought_signature"). A client of another wire (Claude Code on Messages, Codex on
 * Responses) has nowhere to keep it, and many chat clients drop fields they do not know, so the
 * gateway remembers each signature by its call's id and puts it back; a call it never saw (a
 * history made by another model, or older than what is remembered) gets the sentinel Google
 * documents for that case.
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator'

/** The newest signatures, oldest dropped first: a conversation's tool calls are replayed within it. */
const LIMIT = 20_000
const remembered = new Map<string, string>()

const keyOf = (providerId: string, callId: string) => `${providerId}\u0000${callId}`

/** The signature Gemini put on a tool call (`extra_content.google.thought_signature`), where there is one. */
export function thoughtSignatureOf(call: Call): string | undefined {
  const sig = call.extra_content?.google?.thought_signature
  return typeof sig === 'string' ? sig : undefined
}

/** Keeps the signature a provider put on a tool call (by the id the client sees). */
export function rememberSignature(providerId: string, call: Call): void {
  const sig = thoughtSignatureOf(call)
  if (sig === undefined || typeof call.id !== 'string' || call.id === '') return
  const key = keyOf(providerId, call.id)
  remembered.delete(key)
  remembered.set(key, sig)
  if (remembered.size > LIMIT) remembered.delete(remembered.keys().next().value!)
}

/**
 * Chat messages for Gemini with each replayed assistant turn's first tool call signed: the
 * signature remembered for that call, else (Gemini 3 models, which refuse without) the sentinel.
 * A signature the client kept is left alone.
 */
export function withThoughtSignatures(messages: unknown, providerId: string, upstreamModel: string): unknown {
  if (!Array.isArray(messages)) return messages
  const strict = /gemini-3/.test(upstreamModel)
  let changed = false
  const out = messages.map((m: Obj) => {
    const calls = m?.role === 'assistant' && Array.isArray(m.tool_calls) ? (m.tool_calls as Call[]) : null
    const first = calls?.[0]
    if (!first || thoughtSignatureOf(first) !== undefined) return m
    const sig = (typeof first.id === 'string' && remembered.get(keyOf(providerId, first.id))) || (strict ? SKIP_SIGNATURE : null)
    if (!sig) return m
    changed = true
    const signed = { ...first, extra_content: { ...first.extra_content, google: { ...first.extra_content?.google, thought_signature: sig } } }
    return { ...m, tool_calls: [signed, ...calls!.slice(1)] }
  })
  return changed ? out : messages
}
