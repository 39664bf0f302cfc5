import { randomText } from '../../randomText'
import { ApiError } from '../../errors'
import { normalizeUsage, withServedTier, type ReasoningConvention } from '../../pricing/usage'
import type { Redactor } from '../../secrets/redactor'
import { parseUpstreamError, upstreamHttpError } from '../../upstream/upstreamErrors'
import type { SseEvent } from '../../../shared/sse'
import type { Answering, Chunk, ProviderAdapter, StreamStep, StreamTranslator } from '../adapter'
import { quirksOf } from '../quirks'
import { rememberSignature } from './thoughtSignatures'
import { plainDeltaChars } from './plainDelta'

type Message = { tool_calls?: Array<{ id?: unknown; extra_content?: { google?: { thought_signature?: unknown } } }>; content?: unknown }
type Choice = { index?: number; finish_reason?: unknown; message?: Message }

const callId = () => `call_${randomText(12, 'base64url')}`

/**
 * Usage where providers put it: OpenAI's `usage`, Groq's `x_groq.usage` on older responses; with
 * the tier the answer says served it (`tier`: a stream's, from an earlier chunk when the usage
 * chunk leaves it out).
 */
const usageOf = (o: Record<string, unknown>, reasoning: ReasoningConvention, tier: unknown = o.service_tier) =>
  withServedTier(normalizeUsage(o.usage ?? (o.x_groq as { usage?: unknown } | undefined)?.usage, reasoning), tier)

/**
 * Gemini answers tool calls with finish_reason "stop" and, in older versions, empty call ids;
 * clients key off both, so they are repaired. True when something was.
 */
function repairChoice(c: Choice): boolean {
  const calls = c.message?.tool_calls
  if (!calls?.length) return false
  let repaired = false
  for (const call of calls) {
    if (call.id) continue
    call.id = callId()
    repaired = true
  }
  if (c.finish_reason === 'stop') {
    c.finish_reason = 'tool_calls'
    repaired = true
  }
  return repaired
}

/**
 * Per choice, stream state for providers that send tool-call fragments without `index` (Gemini,
 * old Ollama): each fragment carrying an id or a name starts a new call; one without continues
 * the last. The SDK's stream helper needs index, id, type and name on a call's first fragment.
 */
class OpenAIStream implements StreamTranslator {
  private readonly calls = new Map<number, { count: number; sawCalls: boolean }>()
  private readonly reasoning: ReasoningConvention
  /** The service tier the chunks say serves the answer (OpenAI repeats it on every chunk). */
  private tier: unknown = undefined
  /** That tier as a chunk's text says it, so a chunk repeating it needs no parse to be known to. */
  private tierText: string | null = null

  private readonly providerId: string

  constructor(
    provider: Answering,
    private readonly redactor: Redactor,
  ) {
    this.providerId = provider.id
    this.reasoning = quirksOf(provider).reasoning
  }

  event(ev: SseEvent): StreamStep {
    if (ev.data === '[DONE]') return { chunks: [], done: true }
    let chunk: Chunk
    try {
      chunk = JSON.parse(ev.data) as Chunk
    } catch {
      return { chunks: [], error: new ApiError(502, 'server_error', `${this.providerId} sent a stream event that is not JSON`, 'upstream_error') }
    }
    if (chunk.error) {
      const e = parseUpstreamError(ev.data, this.redactor)
      return { chunks: [], error: new ApiError(502, e.type ?? 'server_error', `${this.providerId}: ${e.message}`, e.code ?? 'upstream_error') }
    }
    if (typeof chunk.service_tier === 'string' && chunk.service_tier !== this.tier) {
      this.tier = chunk.service_tier
      this.tierText = `"service_tier":${JSON.stringify(chunk.service_tier)}`
    }
    let repaired = false
    for (const choice of chunk.choices ?? []) {
      const i = choice.index ?? 0
      const state = this.calls.get(i) ?? { count: 0, sawCalls: false }
      this.calls.set(i, state)
      for (const call of choice.delta?.tool_calls ?? []) {
        state.sawCalls = true
        if (typeof call.index === 'number') {
          state.count = Math.max(state.count, call.index + 1)
        } else {
          repaired = true
          const starts = call.id !== undefined || call.function?.name !== undefined
          if (starts || state.count === 0) state.count++
          call.index = state.count - 1
          if (starts && !call.id) call.id = callId()
          if (starts) (call as Record<string, unknown>).type ??= 'function'
        }
        // Gemini signs a call on the fragment that carries it whole, id included.
        rememberSignature(this.providerId, call)
      }
      if (choice.finish_reason === 'stop' && state.sawCalls) {
        choice.finish_reason = 'tool_calls'
        repaired = true
      }
    }
    return { chunks: [chunk], usage: usageOf(chunk, this.reasoning, this.tier), untouched: !repaired }
  }

  plain(data: string): number | null {
    // A tier this stream has not told yet is read by the parse; the one it told, repeated, is known.
    if (data.includes('"service_tier"') && (this.tierText === null || !data.includes(this.tierText))) return null
    return plainDeltaChars(data)
  }
}

/** OpenAI's API and every compatible one (Groq, Mistral, DeepSeek, xAI, Together, OpenRouter, Gemini, Ollama, LM Studio). */
export const openaiAdapter: ProviderAdapter = {
  kind: 'openai',
  headers: (credential): Record<string, string> => (credential ? { authorization: `Bearer ${credential}` } : {}),
  chatRequest: (body) => ({ path: 'chat/completions', body }),
  chatResponse(json, provider) {
    let untouched = true
    for (const c of (json.choices as Choice[] | undefined) ?? []) {
      if (repairChoice(c)) untouched = false
      for (const call of c.message?.tool_calls ?? []) rememberSignature(provider.id, call)
    }
    return { completion: json, usage: usageOf(json, quirksOf(provider).reasoning), untouched }
  },
  streamTranslator: (provider, redactor) => new OpenAIStream(provider, redactor),
  embeddingsRequest: (body) => ({ path: 'embeddings', body }),
  httpError: upstreamHttpError,
  modelsPath: 'models',
  parseModels(body) {
    const data = Array.isArray(body) ? body : ((body as { data?: unknown })?.data ?? [])
    if (!Array.isArray(data)) return []
    return data
      .filter((m): m is { id: string; created?: unknown } => typeof m?.id === 'string')
      .map((m) => ({ id: m.id.replace(/^models\//, ''), created: typeof m.created === 'number' ? m.created : null }))
  },
}
