import { randomText } from '../../randomText'
import { ApiError } from '../../errors'
import { openAIUsage } from '../../pricing/usage'
import type { Redactor } from '../../secrets/redactor'
import type { SseEvent } from '../../../shared/sse'
import type { Chunk, StreamStep, StreamTranslator } from '../adapter'
import { anthropicStreamError } from './errors'
import { finishReason } from './translateResponse'
import type { AnthropicUsage } from './types'
import { normalizeAnthropicUsage } from './usage'

interface StreamEvent {
  type?: string
  index?: number
  message?: { id?: unknown; model?: unknown; usage?: AnthropicUsage }
  content_block?: { type?: string; id?: unknown; name?: unknown; text?: unknown }
  delta?: { type?: string; text?: unknown; partial_json?: unknown; stop_reason?: unknown }
  usage?: AnthropicUsage
}

/**
 * Anthropic's named events as OpenAI chunks (reference §4.7). What the SDK's stream helper needs is
 * always there: `role` in the first delta, id/type/name on each call's first fragment, a finish
 * reason. Tool calls are numbered among tool_use blocks only, since text and thinking blocks share
 * Anthropic's block index.
 */
export class AnthropicStream implements StreamTranslator {
  private id = `chatcmpl-${randomText(12, 'base64url')}`
  private readonly created = Math.floor(Date.now() / 1000)
  private model: unknown = null
  /** Anthropic's counts so far: message_start has input and cache counts, message_delta the output. */
  private readonly counts: Record<string, unknown> = {}
  private reported = ''
  /** Anthropic block index → the call's OpenAI index and how much argument text it has had. */
  private readonly calls = new Map<number, { index: number; argumentChars: number }>()

  constructor(
    private readonly providerId: string,
    private readonly redactor: Redactor,
  ) {}

  event(ev: SseEvent): StreamStep {
    let e: StreamEvent
    try {
      e = JSON.parse(ev.data) as StreamEvent
    } catch {
      return { chunks: [], error: new ApiError(502, 'server_error', `${this.providerId} sent a stream event that is not JSON`, 'upstream_error') }
    }
    switch (e.type ?? ev.event) {
      case 'message_start':
        if (typeof e.message?.id === 'string') this.id = e.message.id
        this.model = e.message?.model ?? null
        return this.withUsage([this.chunk({ role: 'assistant', content: '' })], e.message?.usage)
      case 'content_block_start':
        return { chunks: this.blockStart(e) }
      case 'content_block_delta':
        return { chunks: this.blockDelta(e) }
      case 'content_block_stop':
        return { chunks: this.blockStop(e) }
      case 'message_delta': {
        const step = this.withUsage([this.chunk({}, finishReason(e.delta?.stop_reason))], e.usage)
        step.chunks.push({ ...this.envelope([]), usage: openAIUsage(normalizeAnthropicUsage(this.counts)) })
        return step
      }
      case 'message_stop':
        return { chunks: [], done: true }
      case 'error':
        return { chunks: [], error: anthropicStreamError(this.providerId, ev.data, this.redactor) }
      default:
        // ping, and event types Anthropic may add: its versioning policy asks clients to ignore them.
        return { chunks: [] }
    }
  }

  private blockStart(e: StreamEvent): Chunk[] {
    const block = e.content_block
    if (block?.type === 'text') return typeof block.text === 'string' && block.text ? [this.chunk({ content: block.text })] : []
    if (block?.type !== 'tool_use' || typeof e.index !== 'number') return []
    const call = { index: this.calls.size, argumentChars: 0 }
    this.calls.set(e.index, call)
    return [this.chunk({ tool_calls: [{ index: call.index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] })]
  }

  private blockDelta(e: StreamEvent): Chunk[] {
    const d = e.delta
    if (d?.type === 'text_delta') return typeof d.text === 'string' && d.text ? [this.chunk({ content: d.text })] : []
    const call = d?.type === 'input_json_delta' && typeof e.index === 'number' ? this.calls.get(e.index) : undefined
    if (!call || typeof d?.partial_json !== 'string' || d.partial_json === '') return []
    call.argumentChars += d.partial_json.length
    return [this.chunk({ tool_calls: [{ index: call.index, function: { arguments: d.partial_json } }] })]
  }

  /** A call to a tool without parameters streams no argument text; "{}" keeps JSON.parse working for the client. */
  private blockStop(e: StreamEvent): Chunk[] {
    const call = typeof e.index === 'number' ? this.calls.get(e.index) : undefined
    if (!call || call.argumentChars > 0) return []
    return [this.chunk({ tool_calls: [{ index: call.index, function: { arguments: '{}' } }] })]
  }

  /** Counts are cumulative; a later event may leave out (or null) what an earlier one said. */
  private withUsage(chunks: Chunk[], usage: AnthropicUsage | undefined): StreamStep {
    for (const [k, v] of Object.entries(usage ?? {})) if (v !== null && v !== undefined) this.counts[k] = v
    const normalized = normalizeAnthropicUsage(this.counts)
    const key = JSON.stringify(normalized)
    if (key === this.reported) return { chunks }
    this.reported = key
    return { chunks, usage: normalized }
  }

  private envelope(choices: unknown[]): Chunk {
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: choices as Chunk['choices'] }
  }

  /** `usage: null` as OpenAI sends with include_usage; the relay removes it for clients that did not ask. */
  private chunk(delta: Record<string, unknown>, finish: string | null = null): Chunk {
    return { ...this.envelope([{ index: 0, delta, logprobs: null, finish_reason: finish }]), usage: null }
  }
}
