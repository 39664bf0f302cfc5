import { playgroundBody, type PlaygroundWire } from '../../../contract/playground'
import { runInference, type CoreDeps, type InferenceCall } from '../../core/runInference'
import type { ResponsesApi } from '../../wires/responses/responsesApi'
import type { Sink } from '../../core/sink'
import type { Chunk } from '../../providers/adapter'
import { chatWire } from '../../wires/chat/chatWire'
import { ApiError } from '../../errors'
import { messagesWire } from '../../wires/messages/messagesWire'
import { streamGenerateContent, type GeminiCall } from '../../wires/gemini/geminiWire'
import type { ParsedInput } from '../handlers/types'
import type { AnswerReader, Reading } from './playgroundSink'

type Input = ParsedInput<'playground.chat'>
type Gw = Record<string, unknown> | undefined

/** One wire the Playground sends through: the call on that wire, the body it builds from the Playground's fields, how it reads answers. */
export interface PlaygroundWireUse {
  /** The call, its body built by `body`; `model` is the one chosen, for a wire that names it outside the body. */
  run(gw: CoreDeps & { responses: ResponsesApi }, call: InferenceCall, sink: Sink, model: string): Promise<unknown>
  /** The body as a client of that wire sends it, streaming. */
  body(input: Input): Record<string, unknown>
  reader: AnswerReader
}

/** OpenAI chunks: each choice's content, its finish_reason; `gw` on the last chunk. */
const chatReader: AnswerReader = {
  event(data) {
    const chunk = data as Chunk & { gw?: Gw }
    const reading: Reading = { text: '', gw: chunk.gw }
    for (const c of chunk.choices ?? []) {
      if (typeof c.delta?.content === 'string') reading.text += c.delta.content
      if (typeof c.finish_reason === 'string') reading.stop = c.finish_reason
    }
    return reading
  },
  answer(json) {
    const choice = (json as { choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }> }).choices?.[0]
    const content = choice?.message?.content
    const stop = choice?.finish_reason
    return { text: typeof content === 'string' ? content : undefined, stop: typeof stop === 'string' ? stop : undefined, gw: json.gw as Gw }
  },
}

interface MessagesEvent {
  content_block?: { type?: string; text?: unknown }
  delta?: { type?: string; text?: unknown; stop_reason?: unknown }
}

const textOf = (block: { type?: string; text?: unknown } | undefined) =>
  (block?.type === 'text' || block?.type === 'text_delta') && typeof block.text === 'string' ? block.text : undefined

/**
 * Anthropic's events: text blocks' text (thinking and tool input are not the answer's text), the
 * stop reason in message_delta, and the gateway's `gw` event before message_stop. Only the events
 * that carry one of those are parsed. A provider's `error` event never reaches a sink: the relay
 * ends the stream with it as an ApiError.
 */
const messagesReader: AnswerReader = {
  event(data, text) {
    const type = (data as { type?: string }).type
    if (type === 'gw') return { gw: (data as { gw?: Gw }).gw }
    if (type !== 'content_block_start' && type !== 'content_block_delta' && type !== 'message_delta') return {}
    const ev = (text === undefined ? data : JSON.parse(text)) as MessagesEvent
    if (type === 'message_delta') return { stop: typeof ev.delta?.stop_reason === 'string' ? ev.delta.stop_reason : undefined }
    return { text: textOf(type === 'content_block_start' ? ev.content_block : ev.delta) }
  },
  answer(json) {
    const blocks = Array.isArray(json.content) ? (json.content as Array<{ type?: string; text?: unknown }>) : []
    return { text: blocks.map(textOf).join(''), stop: typeof json.stop_reason === 'string' ? json.stop_reason : undefined, gw: json.gw as Gw }
  },
}

interface ResponseObject {
  status?: unknown
  incomplete_details?: { reason?: unknown } | null
  error?: { message?: unknown; code?: unknown } | null
  output?: Array<{ type?: string; content?: Array<{ type?: string; text?: unknown }> }>
  gw?: Gw
}

/** The response's status as the stop word, with why it is incomplete: `completed`, `incomplete (max_output_tokens)`. */
const statusOf = (r: ResponseObject) => {
  if (typeof r.status !== 'string') return undefined
  const reason = r.incomplete_details?.reason
  return typeof reason === 'string' ? `${r.status} (${reason})` : r.status
}

/** A whole response as the Playground shows it; a failed one as its error, worded as the gateway records it. */
function readResponse(r: ResponseObject): Reading {
  if (r.status === 'failed') {
    const provider = (r.gw?.routing as { provider?: unknown } | undefined)?.provider ?? 'the provider'
    const code = typeof r.error?.code === 'string' ? r.error.code : 'error'
    const message = typeof r.error?.message === 'string' ? r.error.message : 'no message'
    return { error: new ApiError(502, 'server_error', `${String(provider)} failed mid-stream (${code}): ${message}`, 'upstream_error') }
  }
  const text = (r.output ?? [])
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content ?? [])
    .map((part) => (part.type === 'output_text' && typeof part.text === 'string' ? part.text : ''))
    .join('')
  return { text, stop: statusOf(r), gw: r.gw }
}

/**
 * OpenAI's Responses events: the text of `response.output_text.delta` (reasoning and tool
 * arguments are not the answer's text), and the event that ends the stream, whose `response`
 * carries the status and the gateway's `gw`. Only those events are parsed; an `error` event never
 * reaches a sink: the relay ends the stream with it as an ApiError.
 */
const responsesReader: AnswerReader = {
  event(data, text) {
    const type = (data as { type?: string }).type
    if (type === 'response.output_text.delta') {
      const delta = ((text === undefined ? data : JSON.parse(text)) as { delta?: unknown }).delta
      return { text: typeof delta === 'string' ? delta : undefined }
    }
    if (type !== 'response.completed' && type !== 'response.incomplete' && type !== 'response.failed') return {}
    const response = (text === undefined ? data : JSON.parse(text)) as { response?: ResponseObject }
    if (!response.response) return {}
    const reading = readResponse(response.response)
    // The text came as deltas already.
    return { ...reading, text: undefined }
  },
  answer: (json) => readResponse(json as ResponseObject),
}

interface GeminiChunk {
  candidates?: Array<{ content?: { parts?: Array<{ text?: unknown; thought?: unknown }> }; finishReason?: unknown }>
  gw?: Gw
}

/** A GenerateContentResponse, a chunk or whole: its first candidate's text (thought summaries are not the answer's), its finishReason, and `gw` where the gateway put it. */
function readGemini(r: GeminiChunk): Reading {
  const candidate = r.candidates?.[0]
  const text = (candidate?.content?.parts ?? []).map((part) => (part.thought !== true && typeof part.text === 'string' ? part.text : '')).join('')
  return { text, stop: typeof candidate?.finishReason === 'string' ? candidate.finishReason : undefined, gw: r.gw }
}

/**
 * Google's chunks: every one a whole GenerateContentResponse with no event name, so each is
 * parsed; the last carries the finishReason and the gateway's `gw`. A provider's error chunk never
 * reaches a sink: the relay ends the stream with it as an ApiError.
 */
const geminiReader: AnswerReader = {
  event: (data, text) => readGemini((text === undefined ? data : JSON.parse(text)) as GeminiChunk),
  answer: (json) => readGemini(json as GeminiChunk),
}

export const playgroundWires: Record<PlaygroundWire, PlaygroundWireUse> = {
  chat: {
    run: (gw, call, sink) => runInference(gw, chatWire, call, sink),
    body: (input) => ({ ...playgroundBody('chat', input), stream: true, stream_options: { include_usage: true } }),
    reader: chatReader,
  },
  messages: {
    run: (gw, call, sink) => runInference(gw, messagesWire, call, sink),
    body: (input) => ({ ...playgroundBody('messages', input), stream: true }),
    reader: messagesReader,
  },
  responses: {
    run: (gw, call, sink) => runInference(gw, gw.responses.wire, call, sink),
    body: (input) => ({ ...playgroundBody('responses', input), stream: true }),
    reader: responsesReader,
  },
  gemini: {
    // The model is in the path on Google's API: the call carries it beside the body, as its route does.
    run: (gw, call, sink, model) => runInference(gw, streamGenerateContent, { ...call, body: { model, body: call.body } satisfies GeminiCall }, sink),
    body: (input) => playgroundBody('gemini', input),
    reader: geminiReader,
  },
}
