/**
 * A fake OpenAI upstream for integration tests: a real HTTP server on 127.0.0.1 that speaks the
 * Chat Completions, Responses (fake-responses.ts), Embeddings and Models wire format byte for byte as OpenAI does (see
 * /work/shared/reference/wire-format.md §1.4, §1.5, §2, §3), so the gateway is proven against the
 * protocol rather than against its own idea of it. Tests steer it with `script()`. With `quirks` it
 * speaks like one of the "OpenAI-compatible" providers instead (§5, §6), deviations included.
 */
import { listenOnLoopback, readBody, type ReceivedRequest } from './loopbackServer'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { randomBytes } from 'node:crypto'
import { contentPieces } from './contentPieces'
import { answerResponses, countInputTokens, validateInputTokens, validateResponses, type ResponsesBehaviour } from './fake-responses'

export type Behaviour =
  | {
      kind: 'reply'
      content?: string
      usage?: Partial<UsageSpec>
      finishReason?: string
      toolCalls?: Array<{ id: string; name: string; arguments: string }>
      /** vLLM and servers built on it: the stop sequence that ended the answer, as the choice's `stop_reason`. */
      matchedStop?: string
      /** The `service_tier` the answer (every chunk of a stream) reports serving; OpenAI's `default` otherwise. */
      serviceTier?: string
    }
  /** An error before the first byte; `body` defaults to OpenAI's error body for that status, a string body is sent verbatim. */
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  /**
   * Streams: 200, `afterChunks` chunks, then an OpenAI error event and a clean end (no [DONE]), or a
   * destroyed socket. Non-streamed requests: 200 and half of the JSON body, then a destroyed socket.
   */
  | { kind: 'fail-mid-stream'; afterChunks: number; mode: 'error-event' | 'drop' }
  /** Streams: a content chunk every `intervalMs` until the client goes away. Non-streamed: headers, then a body that never comes. */
  | { kind: 'endless-stream'; intervalMs: number }
  /** Streams only: the role chunk, then one `data:` line of `chars` characters that never ends; the connection stays open until the client goes away. */
  | { kind: 'endless-line'; chars: number }
  /** Non-streamed chat only: the completion's bytes in `pieces` writes, `intervalMs` apart. */
  | { kind: 'trickle'; pieces: number; intervalMs: number }
  | { kind: 'delay'; ms: number; then?: Behaviour }
  /** A reply from a provider that ignores usage: no `usage` key at all, not even with `stream_options.include_usage`. */
  | { kind: 'no-usage' }

export interface UsageSpec {
  prompt_tokens: number
  completion_tokens: number
  cached_tokens: number
  cache_write_tokens?: number
  reasoning_tokens?: number
}

/**
 * Deviations of OpenAI-compatible providers from OpenAI's wire format (reference §5, §6), each off
 * by default. They change only how the fake speaks, never what a behaviour means.
 */
export interface FakeQuirks {
  /** Gemini, old Ollama: streamed tool calls carry no `index`; each call arrives whole in one chunk, the last one carrying the finish reason. */
  toolCallsWithoutIndex?: boolean
  /** Gemini: `finish_reason: "stop"` even when the answer is tool calls (streamed and not). */
  stopWithToolCalls?: boolean
  /** Gemini (older): tool-call ids are `""` (streamed and not). */
  emptyToolCallIds?: boolean
  /**
   * Gemini 3: the first tool call of an answer carries `extra_content.google.thought_signature`,
   * and a request replaying an assistant turn's tool calls without it on the first call is a 400
   * ("Function call is missing a thought_signature…"); the documented sentinel
   * `skip_thought_signature_validator` passes, as does a signature this fake issued.
   */
  thoughtSignatures?: boolean
  /** Gemini: function parameters holding a JSON Schema keyword its declarations lack are a 400 naming the first (`Unknown name "$schema" at 'tools[0]…'`). */
  strictToolSchemas?: boolean
  /**
   * Gemini: OpenAI-shaped error bodies (the fake's own and scripted ones) go out as
   * `[{"error":{"code":<status>,"message":…,"status":"INVALID_ARGUMENT"}}]`; a wrong key gets
   * Gemini's 400 INVALID_ARGUMENT with reason API_KEY_INVALID instead of a 401.
   */
  errorsAsArray?: boolean
  /**
   * Groq: a stream never carries a top-level `usage` (not even with include_usage); the totals come
   * only under `x_groq.usage` on the finishing chunk. Usage objects carry Groq's timing fields.
   */
  groqUsage?: boolean
  /** DeepSeek, OpenRouter: `: keep-alive` before the first event, `: OPENROUTER PROCESSING` and an extra blank line before every later one. */
  keepAlives?: boolean
  /** SSE lines end in `\r\n`. */
  crlf?: boolean
  /**
   * Every SSE write leaves in several TCP writes a millisecond apart: one split inside `data:`, one
   * inside the first multi-byte UTF-8 character, one between `\r` and `\n` when lines end in `\r\n`.
   */
  splitWrites?: boolean
  /** DeepSeek under load: blank lines, in separate writes, before a non-streamed JSON body. */
  blankLinesBeforeJson?: boolean
  /** DeepSeek: cache hits as top-level `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`, no `prompt_tokens_details`. */
  deepseekUsage?: boolean
  /**
   * xAI: reasoning tokens are counted outside `completion_tokens` (the visible answer) and inside
   * `total_tokens`; prompt details split text and image tokens; `num_sources_used` rides along.
   */
  xaiUsage?: boolean
  /** Together: `GET /models` answers a bare JSON array. */
  bareModelList?: boolean
  /** Gemini: model ids are prefixed `models/`. */
  modelsPrefix?: boolean
  /** Ollama, LM Studio: no key needed; any Authorization header, or none, is accepted. */
  noAuth?: boolean
  /**
   * OpenRouter: error bodies are `{"error":{"code":<status number>,"message":…,"metadata"?}}`; a
   * failure after the 200 arrives as a chunk with an `error` object and `finish_reason: "error"`.
   */
  numericErrorCode?: boolean
  /**
   * A careless provider: every error it sends quotes the Authorization header it received, in
   * `error.message` (before the first byte, in a stream's error event, from the model list),
   * appended to a plain-text body, or as an `authorization` field of any other JSON body.
   */
  echoCredential?: boolean
}

export interface FakeOpenAI {
  /** Base URL ending in /v1. */
  url: string
  /** The only key accepted. */
  apiKey: string
  /** Every request, in order, recorded before it is answered (401s included). */
  received: ReceivedRequest[]
  /** Queues behaviours for the next chat/embeddings requests that pass auth and validation; an empty queue means `{ kind: 'reply' }`. */
  script(...behaviours: Behaviour[]): void
  /** Drops the behaviours queued by `script` and not used yet (a burst's refused requests leave theirs). */
  clearScript(): void
  /** The same for `POST /v1/responses`, on a queue of its own. */
  scriptResponses(...behaviours: Array<ResponsesBehaviour | Extract<Behaviour, { kind: 'status' }>>): void
  /** The same for `GET` and `DELETE /v1/responses/{id}` (and its input items): a status, or a delay before the stored answer. */
  scriptRetrievals(...behaviours: Array<Extract<Behaviour, { kind: 'status' | 'delay' }>>): void
  /** Responses the client abandoned before the fake finished writing them (streams, stalled bodies, pending delays). */
  streamsClosedByClient: number
  /** Resolves on the next client close, or at once for one that happened and was not awaited yet. */
  waitForClientClose(timeoutMs?: number): Promise<void>
  /**
   * Bytes of open responses waiting for the kernel to take them: they stay put while the client
   * (a gateway whose own client stopped reading) holds the body back.
   */
  unsentBytes(): number
  close(): Promise<void>
}

const DEFAULT_CONTENT = 'Hello from the fake provider.'
const DEFAULT_USAGE: UsageSpec = { prompt_tokens: 12, completion_tokens: 5, cached_tokens: 0 }
const DEFAULT_EMBEDDING_DIMENSIONS = 8
const DEFAULT_MODELS = ['gpt-4o-mini', 'text-embedding-3-small']
const SYSTEM_FINGERPRINT = 'fp_fake0001'
// Fixed so model listings are deterministic across runs.
const MODEL_CREATED = 1_700_000_000

/**
 * The vector the fake returns for one embeddings input: unit length, seeded from the input (strings
 * and token arrays never collide), every component exactly representable as float32 so the base64
 * and float encodings carry the same numbers.
 */
export function fakeEmbedding(input: string | number[], dims: number): number[] {
  let h = 0x811c9dc5
  const feed = (n: number) => {
    h = Math.imul(h ^ n, 0x01000193) >>> 0
  }
  if (typeof input === 'string') {
    feed(1)
    for (const ch of input) feed(ch.codePointAt(0)!)
  } else {
    feed(2)
    for (const token of input) feed(token)
  }
  const raw = Array.from({ length: dims }, () => {
    h ^= h << 13
    h ^= h >>> 17
    h ^= h << 5
    h >>>= 0
    return (h / 0xffffffff) * 2 - 1
  })
  const norm = Math.hypot(...raw) || 1
  return raw.map((v) => Math.fround(v / norm))
}

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null }
}

const errorBody = (message: string, type: string, param: string | null = null, code: string | null = null): ErrorBody => ({
  error: { message, type, param, code },
})

// OpenAI masks the key it rejects, keeping only the prefix and the last four characters.
const maskKey = (key: string) => `${key.slice(0, 3)}${'*'.repeat(Math.max(key.length - 7, 4))}${key.slice(-4)}`

const invalidKey = (presented: string) =>
  errorBody(
    `Incorrect API key provided: ${maskKey(presented)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    'invalid_request_error',
    null,
    'invalid_api_key',
  )

const modelNotFound = (model: string) =>
  errorBody(`The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model', 'model_not_found')

/** What OpenAI answers for a status, per the reference's table of errors seen in practice (§2.2). */
function defaultError(status: number, model: string, apiKey: string): ErrorBody {
  switch (status) {
    case 400:
      return errorBody('Invalid request.', 'invalid_request_error')
    case 401:
      return invalidKey(apiKey)
    case 403:
      return errorBody('Country, region, or territory not supported', 'request_forbidden', null, 'unsupported_country_region_territory')
    case 404:
      return modelNotFound(model)
    case 429:
      return errorBody(
        `Rate limit reached for ${model} in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.`,
        'requests',
        null,
        'rate_limit_exceeded',
      )
    case 503:
      return errorBody('The engine is currently overloaded, please try again later.', 'server_error')
  }
  if (status >= 500) return errorBody('The server had an error while processing your request. Sorry about that!', 'server_error')
  return errorBody(`Request failed with status ${status}.`, 'invalid_request_error')
}

const randomHex = (bytes: number) => randomBytes(bytes).toString('hex')
const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v)

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  const contentType = typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json'
  res.writeHead(status, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(text)), ...headers })
  res.end(text)
}

/** google.rpc.Code names Gemini puts in `status`, by HTTP status (its OpenAI layer's errors and its native API's). */
export const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
}

const isErrorBody = (v: unknown): v is ErrorBody => isObject(v) && isObject(v.error) && typeof v.error.message === 'string'

/**
 * An OpenAI error body in the provider's dialect; anything else (strings, other shapes) goes out as
 * given. OpenRouter's `metadata` (moderation reasons, a provider's raw error) is taken from a
 * scripted body's `error.metadata`.
 */
function dialectError(status: number, body: unknown, q: FakeQuirks): unknown {
  if (!isErrorBody(body)) return body
  if (q.errorsAsArray) return [{ error: { code: status, message: body.error.message, status: GOOGLE_STATUS[status] ?? 'UNKNOWN' } }]
  if (q.numericErrorCode) {
    const metadata = (body.error as { metadata?: unknown }).metadata
    return { error: { code: status, message: body.error.message, ...(metadata !== undefined ? { metadata } : {}) } }
  }
  return body
}

/** Gemini refuses a wrong key with a 400, not a 401 (its native API sends the object inside, unwrapped). */
export const GEMINI_KEY_INVALID = [
  {
    error: {
      code: 400,
      message: 'API key not valid. Please pass a valid API key.',
      status: 'INVALID_ARGUMENT',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'API_KEY_INVALID',
          domain: 'googleapis.com',
          metadata: { service: 'generativelanguage.googleapis.com' },
        },
      ],
    },
  },
]

/** An error body as a provider with `echoCredential` sends it: quoting the credential of the request it answers. */
function echoed(body: unknown, res: ServerResponse, q: FakeQuirks): unknown {
  if (!q.echoCredential) return body
  const quote = `Authorization: ${res.req.headers.authorization ?? '(none)'}`
  if (typeof body === 'string') return `${body} (${quote})`
  if (isErrorBody(body)) return { ...body, error: { ...body.error, message: `${body.error.message} (${quote})` } }
  return isObject(body) ? { ...body, authorization: quote } : body
}

function sendError(res: ServerResponse, status: number, body: unknown, q: FakeQuirks, headers: Record<string, string> = {}) {
  sendJson(res, status, dialectError(status, echoed(body, res, q), q), headers)
}

/**
 * The bytes of a response's socket the kernel has not taken: libuv's write queue, Node's only
 * measure of it (the socket's `writableLength` counts a write in flight whole until its last byte
 * left, and the fake writes a reply's events at once, so that never shrinks).
 */
function queuedInKernelWrites(res: ServerResponse): number {
  return (res.socket as unknown as { _handle?: { writeQueueSize?: number } } | null)?._handle?.writeQueueSize ?? 0
}

/** One response in flight, with what a behaviour needs to react to the client going away. */
interface Exchange {
  res: ServerResponse
  quirks: FakeQuirks
  closed: boolean
  onClose(fn: () => void): void
  /** Ends the connection after what was written so far, without finishing the HTTP body; not a client close. */
  drop(): void
}

function usageObject(spec: UsageSpec, q: FakeQuirks = {}) {
  const prompt_tokens = spec.prompt_tokens
  const completion_tokens = spec.completion_tokens
  const total_tokens = prompt_tokens + completion_tokens
  if (q.deepseekUsage) {
    return {
      prompt_tokens,
      completion_tokens,
      total_tokens,
      prompt_cache_hit_tokens: spec.cached_tokens,
      prompt_cache_miss_tokens: prompt_tokens - spec.cached_tokens,
      ...(spec.reasoning_tokens !== undefined ? { completion_tokens_details: { reasoning_tokens: spec.reasoning_tokens } } : {}),
    }
  }
  if (q.xaiUsage) {
    const reasoning_tokens = spec.reasoning_tokens ?? 0
    return {
      prompt_tokens,
      completion_tokens,
      total_tokens: total_tokens + reasoning_tokens,
      prompt_tokens_details: { text_tokens: prompt_tokens, audio_tokens: 0, image_tokens: 0, cached_tokens: spec.cached_tokens },
      completion_tokens_details: { reasoning_tokens, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      num_sources_used: 0,
    }
  }
  if (q.groqUsage) {
    return { queue_time: 0.012, prompt_tokens, prompt_time: 0.004, completion_tokens, completion_time: 0.021, total_tokens, total_time: 0.025 }
  }
  return {
    prompt_tokens,
    completion_tokens,
    total_tokens,
    prompt_tokens_details: {
      cached_tokens: spec.cached_tokens,
      audio_tokens: 0,
      ...(spec.cache_write_tokens !== undefined ? { cache_write_tokens: spec.cache_write_tokens } : {}),
    },
    completion_tokens_details: {
      reasoning_tokens: spec.reasoning_tokens ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  }
}

type ReplyBehaviour = Extract<Behaviour, { kind: 'reply' }>

/** The finish reason a reply ends with, as this provider reports it. */
function finishReasonOf(b: ReplyBehaviour, q: FakeQuirks): string {
  if (b.finishReason) return b.finishReason
  return b.toolCalls && !q.stopWithToolCalls ? 'tool_calls' : 'stop'
}

const toolCallId = (call: { id: string }, q: FakeQuirks) => (q.emptyToolCallIds ? '' : call.id)

/** The signature this fake gives a tool call (the first of an answer), as Gemini 3 does. */
export const thoughtSignatureOf = (callId: string) => `sig-${Buffer.from(callId).toString('base64')}`

/** A tool call as the answer carries it: Gemini 3 signs the first one. */
function toolCallOut(call: { id: string; name: string; arguments: string }, i: number, q: FakeQuirks, args = call.arguments): Record<string, unknown> {
  return {
    id: toolCallId(call, q),
    type: 'function',
    function: { name: call.name, arguments: args },
    ...(q.thoughtSignatures && i === 0 ? { extra_content: { google: { thought_signature: thoughtSignatureOf(call.id) } } } : {}),
  }
}

/** Keywords Gemini's function declarations refuse. */
const GEMINI_UNKNOWN = new Set(['$schema', 'additionalProperties', 'propertyNames', 'const', 'exclusiveMinimum', 'exclusiveMaximum'])

/** Gemini's check of tool parameters: the first keyword it does not know, with where it is. */
function unknownSchemaKeyword(body: Record<string, any>): ErrorBody | null {
  const find = (schema: unknown, at: string): string | null => {
    if (Array.isArray(schema)) return schema.map((s, i) => find(s, `${at}[${i}]`)).find((f) => f !== null) ?? null
    if (!isObject(schema)) return null
    for (const [k, v] of Object.entries(schema)) {
      if (GEMINI_UNKNOWN.has(k)) return `Invalid JSON payload received. Unknown name "${k}" at '${at}': Cannot find field.`
      const inner =
        k === 'properties' && isObject(v)
          ? Object.entries(v)
              .map(([name, p]) => find(p, `${at}.properties[${name}].value`))
              .find((f) => f !== null)
          : find(v, `${at}.${k}`)
      if (inner) return inner
    }
    return null
  }
  for (const [i, tool] of (Array.isArray(body.tools) ? body.tools : []).entries()) {
    const found = find(tool?.function?.parameters, `tools[0].function_declarations[${i}].parameters`)
    if (found) return errorBody(found, 'invalid_request_error', null)
  }
  return null
}

/** Gemini 3's check of replayed tool calls: the first of each assistant turn must carry its signature. */
function unsignedToolCall(body: Record<string, any>): ErrorBody | null {
  for (const [i, m] of (Array.isArray(body.messages) ? body.messages : []).entries()) {
    const first = m?.role === 'assistant' && Array.isArray(m.tool_calls) ? m.tool_calls[0] : undefined
    if (!first) continue
    const sig = first.extra_content?.google?.thought_signature
    if (sig === 'skip_thought_signature_validator' || (typeof sig === 'string' && sig === thoughtSignatureOf(first.id))) continue
    return errorBody(
      `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${first.function?.name}\` , position ${i + 1}.`,
      'invalid_request_error',
      null,
    )
  }
  return null
}

function completionObject(model: string, b: ReplyBehaviour, withUsage: boolean, q: FakeQuirks = {}) {
  const toolCalls = b.toolCalls?.map((c, i) => toolCallOut(c, i, q))
  return {
    id: `chatcmpl-${randomHex(12)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: b.content ?? (toolCalls ? null : DEFAULT_CONTENT),
          refusal: null,
          ...(toolCalls ? { tool_calls: toolCalls } : {}),
          annotations: [],
        },
        logprobs: null,
        finish_reason: finishReasonOf(b, q),
        ...(b.matchedStop !== undefined ? { stop_reason: b.matchedStop } : {}),
      },
    ],
    ...(withUsage ? { usage: usageObject({ ...DEFAULT_USAGE, ...b.usage }, q) } : {}),
    service_tier: b.serviceTier ?? 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
    ...(q.groqUsage ? { x_groq: { id: `req_${randomHex(12)}` } } : {}),
  }
}

/** A 200 JSON answer; DeepSeek under load sends blank lines first, each in its own write. */
function sendCompletion(ex: Exchange, body: unknown) {
  if (!ex.quirks.blankLinesBeforeJson) return sendJson(ex.res, 200, body)
  ex.res.writeHead(200, { 'content-type': 'application/json' })
  let blanks = 3
  const next = () => {
    if (ex.closed) return
    if (blanks-- > 0) {
      ex.res.write('\n')
      timer = setTimeout(next, 2)
    } else ex.res.end(JSON.stringify(body))
  }
  let timer = setTimeout(next, 0)
  ex.onClose(() => clearTimeout(timer))
}

/** Where to cut one SSE write into several TCP writes: inside `data:`, inside the first multi-byte character, between \r and \n. */
function splitPoints(bytes: Buffer): number[] {
  const points = new Set<number>([Math.min(3, bytes.length)])
  const continuation = bytes.findIndex((byte) => (byte & 0xc0) === 0x80)
  if (continuation > 0) points.add(continuation)
  const crlf = bytes.indexOf('\r\n')
  if (crlf >= 0) points.add(crlf + 1)
  return [...points].filter((p) => p > 0 && p < bytes.length).sort((a, b) => a - b)
}

/**
 * Writes the SSE byte stream of one response, in this provider's framing. Without `splitWrites`
 * every write goes out at once, in order; with it, writes are queued and leave in pieces.
 */
class SseWriter {
  private queue: Promise<void> = Promise.resolve()
  private events = 0

  constructor(private readonly ex: Exchange) {}

  private get q() {
    return this.ex.quirks
  }

  event(data: string) {
    const eol = this.q.crlf ? '\r\n' : '\n'
    let text = `data: ${data}${eol}${eol}`
    if (this.q.keepAlives) text = (this.events === 0 ? `: keep-alive${eol}${eol}` : `: OPENROUTER PROCESSING${eol}${eol}${eol}`) + text
    this.events++
    this.write(text)
  }

  private write(text: string) {
    if (!this.q.splitWrites) {
      this.ex.res.write(text)
      return
    }
    const bytes = Buffer.from(text)
    let from = 0
    for (const to of [...splitPoints(bytes), bytes.length]) {
      const piece = bytes.subarray(from, to)
      from = to
      this.afterQueued(async () => {
        await new Promise<void>((resolve) => setTimeout(resolve, 1))
        if (!this.ex.closed) this.ex.res.write(piece)
      })
    }
  }

  /** Runs after everything written so far has left. */
  afterQueued(fn: () => unknown) {
    if (!this.q.splitWrites) {
      fn()
      return
    }
    this.queue = this.queue
      .then(async () => {
        if (!this.ex.closed) await fn()
      })
      // A fake that cannot finish a stream cuts it, as handle() does for its own crashes.
      .catch(() => void this.ex.res.destroy())
  }
}

/** Writes chunks of one stream: shared id and created, and `usage: null` on each only when the client asked for usage. */
class ChunkWriter {
  private readonly id = `chatcmpl-${randomHex(12)}`
  private readonly created = Math.floor(Date.now() / 1000)
  private readonly sse: SseWriter
  private readonly q: FakeQuirks

  constructor(
    private readonly ex: Exchange,
    private readonly model: string,
    private readonly includeUsage: boolean,
    private readonly serviceTier = 'default',
  ) {
    this.q = ex.quirks
    this.sse = new SseWriter(ex)
    ex.res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
    ex.res.flushHeaders()
  }

  chunk(delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}, choiceExtra: Record<string, unknown> = {}) {
    this.event({ ...this.envelope([{ index: 0, delta, logprobs: null, finish_reason: finishReason, ...choiceExtra }]), ...extra })
  }

  usage(spec: UsageSpec) {
    this.event({ ...this.envelope([]), usage: usageObject(spec, this.q) })
  }

  event(data: unknown) {
    this.sse.event(typeof data === 'string' ? data : JSON.stringify(data))
  }

  done() {
    this.event('[DONE]')
    this.end()
  }

  /** Ends the body once everything queued has been written. */
  end() {
    this.sse.afterQueued(() => this.ex.res.end())
  }

  /** Drops the connection once everything queued has been written. */
  drop() {
    this.sse.afterQueued(() => this.ex.drop())
  }

  private envelope(choices: unknown[]) {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      service_tier: this.serviceTier,
      system_fingerprint: SYSTEM_FINGERPRINT,
      choices,
      // Groq (older) never sends a top-level usage on a stream.
      ...(this.includeUsage && !this.q.groqUsage ? { usage: null } : {}),
    }
  }
}

function streamReply(ex: Exchange, model: string, b: ReplyBehaviour, includeUsage: boolean) {
  const q = ex.quirks
  const w = new ChunkWriter(ex, model, includeUsage, b.serviceTier)
  const content = b.content ?? (b.toolCalls ? null : DEFAULT_CONTENT)
  const finishReason = finishReasonOf(b, q)
  const usage = { ...DEFAULT_USAGE, ...b.usage }
  // Groq: the request id rides on the first chunk, the usage on the finishing one.
  const groqId = `req_${randomHex(12)}`
  w.chunk({ role: 'assistant', content: content === null ? null : '', refusal: null }, null, q.groqUsage ? { x_groq: { id: groqId } } : {})
  for (const piece of contentPieces(content ?? '')) w.chunk({ content: piece })
  const calls = b.toolCalls ?? []
  if (q.toolCallsWithoutIndex) {
    // Gemini: each call whole in one chunk, no index; the finish reason comes with the last one.
    calls.forEach((call, i) => {
      const last = i === calls.length - 1
      w.chunk(
        { tool_calls: [toolCallOut(call, i, q)] },
        last ? finishReason : null,
        last && q.groqUsage ? { x_groq: { id: groqId, usage: usageObject(usage, q) } } : {},
      )
    })
  } else {
    calls.forEach((call, index) => {
      w.chunk({ tool_calls: [{ index, ...toolCallOut(call, index, q, '') }] })
      for (const piece of contentPieces(call.arguments)) w.chunk({ tool_calls: [{ index, function: { arguments: piece } }] })
    })
  }
  if (!(q.toolCallsWithoutIndex && calls.length > 0)) {
    w.chunk(
      {},
      finishReason,
      q.groqUsage ? { x_groq: { id: groqId, usage: usageObject(usage, q) } } : {},
      b.matchedStop !== undefined ? { stop_reason: b.matchedStop } : {},
    )
  }
  if (includeUsage && !q.groqUsage) w.usage(usage)
  w.done()
}

/** Chunk n of a stream that never finishes normally: the role chunk, then the default content over and over. */
function fillerChunk(w: ChunkWriter, n: number) {
  if (n === 0) return w.chunk({ role: 'assistant', content: '', refusal: null })
  const pieces = contentPieces(`${DEFAULT_CONTENT} `)
  w.chunk({ content: pieces[(n - 1) % pieces.length] })
}

function failMidStream(ex: Exchange, model: string, b: Extract<Behaviour, { kind: 'fail-mid-stream' }>, includeUsage: boolean) {
  const w = new ChunkWriter(ex, model, includeUsage)
  for (let n = 0; n < b.afterChunks; n++) fillerChunk(w, n)
  if (b.mode === 'error-event') {
    if (ex.quirks.numericErrorCode) {
      // OpenRouter: the error rides on a chunk whose choice finishes with "error".
      const error = { code: 'server_error', message: 'Provider disconnected unexpectedly' }
      w.chunk({ content: '' }, 'error', echoed({ provider: 'FakeProvider', error }, ex.res, ex.quirks) as Record<string, unknown>)
    } else {
      w.event(echoed(errorBody('The server had an error while processing your request. Sorry about that!', 'server_error'), ex.res, ex.quirks))
    }
    w.end()
    return
  }
  w.drop()
}

function endlessStream(ex: Exchange, model: string, intervalMs: number, includeUsage: boolean) {
  const w = new ChunkWriter(ex, model, includeUsage)
  let n = 0
  fillerChunk(w, n++)
  const timer = setInterval(() => fillerChunk(w, n++), intervalMs)
  ex.onClose(() => clearInterval(timer))
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done)
      resolve()
    }
    res.once('drain', done).once('close', done)
  })
}

async function endlessLine(ex: Exchange, model: string, chars: number, includeUsage: boolean) {
  const w = new ChunkWriter(ex, model, includeUsage)
  fillerChunk(w, 0)
  const piece = Buffer.alloc(64 * 1024, 'a')
  ex.res.write('data: {"pad":"')
  for (let sent = 0; sent < chars && !ex.closed; sent += piece.length) {
    if (!ex.res.write(piece)) await drainedOrClosed(ex.res)
  }
}

function trickle(ex: Exchange, text: string, b: Extract<Behaviour, { kind: 'trickle' }>) {
  ex.res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) })
  const size = Math.ceil(text.length / b.pieces)
  let sent = 0
  const next = () => {
    ex.res.write(text.slice(sent, (sent += size)))
    if (sent < text.length) timer = setTimeout(next, b.intervalMs)
    else ex.res.end()
  }
  let timer = setTimeout(next, 0)
  ex.onClose(() => clearTimeout(timer))
}

type Terminal = Exclude<Behaviour, { kind: 'status' } | { kind: 'delay' }>

/** Applies the behaviours every scripted endpoint shares, handing the rest to the endpoint. */
function perform(ex: Exchange, b: Behaviour, model: string, apiKey: string, answer: (b: Terminal) => void) {
  if (ex.closed) return
  if (b.kind === 'status') return sendError(ex.res, b.status, b.body ?? defaultError(b.status, model, apiKey), ex.quirks, b.headers)
  if (b.kind === 'delay') {
    const timer = setTimeout(() => perform(ex, b.then ?? { kind: 'reply' }, model, apiKey, answer), b.ms)
    ex.onClose(() => clearTimeout(timer))
    return
  }
  answer(b)
}

/**
 * Anthropic's Messages fields, which OpenAI refuses by name: a gateway translating Messages to chat
 * completions must leave them behind.
 */
const MESSAGES_ONLY_FIELDS = [
  'system',
  'stop_sequences',
  'top_k',
  'thinking',
  'context_management',
  'output_config',
  'cache_control',
  'container',
  'mcp_servers',
]

/** The keys OpenAI's schema allows on each content part type and on a function tool (any other is "unexpected"). */
const PART_KEYS: Record<string, string[]> = {
  text: ['type', 'text'],
  image_url: ['type', 'image_url'],
  input_audio: ['type', 'input_audio'],
  file: ['type', 'file'],
  refusal: ['type', 'refusal'],
}
const TOOL_KEYS = ['type', 'function']
const FUNCTION_KEYS = ['name', 'description', 'parameters', 'strict']

const unexpected = (keys: string[], allowed: string[], where: string) => {
  const extra = keys.find((k) => !allowed.includes(k))
  return extra === undefined
    ? null
    : errorBody(`Additional properties are not allowed ('${extra}' was unexpected) - '${where}'`, 'invalid_request_error', where)
}

/**
 * What OpenAI checks of messages and tools: part types and their keys, tool definitions, and the
 * tool-call protocol (each tool message answers a call of the assistant message before it, and
 * every call is answered before the conversation goes on), in OpenAI's words.
 */
function validateToolProtocol(body: Record<string, any>): ErrorBody | null {
  const messages: any[] = body.messages
  let pending: string[] = []
  let answerable = new Set<string>()
  for (const [i, m] of messages.entries()) {
    if (!isObject(m)) return errorBody(`Invalid type for 'messages[${i}]': expected an object.`, 'invalid_request_error', `messages[${i}]`)
    if (Array.isArray(m.content)) {
      for (const [j, part] of m.content.entries()) {
        const where = `messages[${i}].content[${j}]`
        const allowed = isObject(part) ? PART_KEYS[part.type] : undefined
        if (!allowed) {
          return errorBody(
            `Invalid value: '${isObject(part) ? part.type : typeof part}'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'.`,
            'invalid_request_error',
            `${where}.type`,
            'invalid_value',
          )
        }
        const extra = unexpected(Object.keys(part), allowed, where)
        if (extra) return extra
      }
    }
    if (m.role === 'tool') {
      if (!answerable.has(m.tool_call_id)) {
        return errorBody(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          'invalid_request_error',
          `messages.[${i}].role`,
        )
      }
      pending = pending.filter((id) => id !== m.tool_call_id)
      continue
    }
    if (pending.length) {
      return errorBody(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(', ')}`,
        'invalid_request_error',
        `messages.[${i}].role`,
      )
    }
    const calls: any[] = m.role === 'assistant' && Array.isArray(m.tool_calls) ? m.tool_calls : []
    pending = calls.map((c) => c?.id)
    answerable = new Set(pending)
  }
  if (pending.length) {
    return errorBody(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(', ')}`,
      'invalid_request_error',
      'messages',
    )
  }
  return null
}

function validateTools(body: Record<string, any>): ErrorBody | null {
  if (body.parallel_tool_calls != null && !Array.isArray(body.tools)) {
    return errorBody("Invalid value for 'parallel_tool_calls': only allowed when 'tools' are specified.", 'invalid_request_error', 'parallel_tool_calls')
  }
  if (!Array.isArray(body.tools)) return null
  for (const [i, tool] of body.tools.entries()) {
    if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function) || typeof tool.function.name !== 'string') {
      return errorBody(`Missing required parameter: 'tools[${i}].function'.`, 'invalid_request_error', `tools[${i}].function`, 'missing_required_parameter')
    }
    const extra = unexpected(Object.keys(tool), TOOL_KEYS, `tools[${i}]`) ?? unexpected(Object.keys(tool.function), FUNCTION_KEYS, `tools[${i}].function`)
    if (extra) return extra
  }
  return null
}

function validateChat(body: Record<string, any>): ErrorBody | null {
  const foreign = MESSAGES_ONLY_FIELDS.find((f) => f in body)
  if (foreign) return errorBody(`Unrecognized request argument supplied: ${foreign}`, 'invalid_request_error')
  if (typeof body.model !== 'string' || body.model === '') return errorBody('you must provide a model parameter', 'invalid_request_error', 'model')
  if (!Array.isArray(body.messages))
    return errorBody("Missing required parameter: 'messages'.", 'invalid_request_error', 'messages', 'missing_required_parameter')
  if (body.messages.length === 0) {
    return errorBody(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'invalid_request_error',
      'messages',
      'empty_array',
    )
  }
  if (body.stream_options != null && body.stream !== true) {
    return errorBody("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'invalid_request_error', 'stream_options')
  }
  return validateToolProtocol(body) ?? validateTools(body)
}

function answerChat(ex: Exchange, body: Record<string, any>, b: Terminal) {
  const model: string = body.model
  const stream = body.stream === true
  const includeUsage = stream && body.stream_options?.include_usage === true
  switch (b.kind) {
    case 'reply':
      return stream ? streamReply(ex, model, b, includeUsage) : sendCompletion(ex, completionObject(model, b, true, ex.quirks))
    case 'no-usage':
      return stream ? streamReply(ex, model, { kind: 'reply' }, false) : sendCompletion(ex, completionObject(model, { kind: 'reply' }, false, ex.quirks))
    case 'fail-mid-stream': {
      if (stream) return failMidStream(ex, model, b, includeUsage)
      const text = JSON.stringify(completionObject(model, { kind: 'reply' }, true, ex.quirks))
      ex.res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) })
      ex.res.write(text.slice(0, text.length >> 1))
      return ex.drop()
    }
    case 'endless-line':
      if (stream) return void endlessLine(ex, model, b.chars, includeUsage)
      return sendError(ex.res, 500, errorBody("fake-openai: behaviour 'endless-line' applies to streamed chat only", 'server_error'), ex.quirks)
    case 'trickle':
      if (stream) return sendError(ex.res, 500, errorBody("fake-openai: behaviour 'trickle' applies to non-streamed chat only", 'server_error'), ex.quirks)
      return trickle(ex, JSON.stringify(completionObject(model, { kind: 'reply' }, true, ex.quirks)), b)
    case 'endless-stream':
      if (stream) return endlessStream(ex, model, b.intervalMs, includeUsage)
      ex.res.writeHead(200, { 'content-type': 'application/json' })
      ex.res.flushHeaders()
      return
  }
}

type EmbeddingInput = string | number[]

const isTokenArray = (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every((t) => Number.isInteger(t))

/** The inputs of an embeddings request, or the error OpenAI would give, naming the offending field. */
function parseEmbeddingInputs(input: unknown): EmbeddingInput[] | ErrorBody {
  const invalid = (param: string) => errorBody(`Invalid value for '${param}': expected a non-empty string or token array.`, 'invalid_request_error', param)
  if (input === undefined) return errorBody("Missing required parameter: 'input'.", 'invalid_request_error', 'input', 'missing_required_parameter')
  if (typeof input === 'string') return input === '' ? invalid('input') : [input]
  if (isTokenArray(input)) return [input]
  if (!Array.isArray(input) || input.length === 0) return invalid('input')
  const inputs: EmbeddingInput[] = []
  for (const [i, item] of input.entries()) {
    if ((typeof item === 'string' && item !== '') || isTokenArray(item)) inputs.push(item)
    else return invalid(`input[${i}]`)
  }
  return inputs
}

const tokenCount = (input: EmbeddingInput) => (typeof input === 'string' ? input.split(/\s+/).filter(Boolean).length : input.length)

function base64Float32(vector: number[]): string {
  const view = new DataView(new ArrayBuffer(vector.length * 4))
  vector.forEach((v, i) => view.setFloat32(i * 4, v, true))
  return Buffer.from(view.buffer).toString('base64')
}

function validateEmbeddings(body: Record<string, any>): EmbeddingInput[] | ErrorBody {
  if (typeof body.model !== 'string' || body.model === '') return errorBody('you must provide a model parameter', 'invalid_request_error', 'model')
  if (body.encoding_format !== undefined && body.encoding_format !== 'float' && body.encoding_format !== 'base64') {
    return errorBody(`Invalid value for 'encoding_format': expected 'float' or 'base64'.`, 'invalid_request_error', 'encoding_format')
  }
  // OpenAI's largest embedding model has 3072 dimensions; it refuses more.
  if (body.dimensions !== undefined && !(Number.isInteger(body.dimensions) && body.dimensions > 0 && body.dimensions <= 3072)) {
    return errorBody(`Invalid value for 'dimensions': expected a positive integer up to 3072.`, 'invalid_request_error', 'dimensions')
  }
  return parseEmbeddingInputs(body.input)
}

function answerEmbeddings(ex: Exchange, body: Record<string, any>, inputs: EmbeddingInput[], b: Terminal) {
  if (b.kind === 'fail-mid-stream' || b.kind === 'endless-stream' || b.kind === 'endless-line' || b.kind === 'trickle') {
    // A test scripting a stream failure for embeddings is a mistake in the test; say so loudly.
    return sendError(ex.res, 500, errorBody(`fake-openai: behaviour '${b.kind}' does not apply to /v1/embeddings`, 'server_error'), ex.quirks)
  }
  const dims: number = body.dimensions ?? DEFAULT_EMBEDDING_DIMENSIONS
  const tokens = inputs.reduce((sum, input) => sum + tokenCount(input), 0)
  sendJson(ex.res, 200, {
    object: 'list',
    data: inputs.map((input, index) => {
      const vector = fakeEmbedding(input, dims)
      return { object: 'embedding', index, embedding: body.encoding_format === 'base64' ? base64Float32(vector) : vector }
    }),
    model: body.model,
    ...(b.kind === 'no-usage' ? {} : { usage: { prompt_tokens: tokens, total_tokens: tokens } }),
  })
}

export async function startFakeOpenAI(
  opts: {
    apiKey?: string
    models?: string[]
    quirks?: FakeQuirks
    /** The model list fails with this status (OpenAI's error body for it) instead of listing. */
    modelsStatus?: number
    /** The model list answers 200 with this text, made from the Authorization header received, instead of listing. */
    modelsBody?: (authorization: string) => string
  } = {},
): Promise<FakeOpenAI> {
  const apiKey = opts.apiKey ?? `sk-fake-${randomHex(16)}`
  const models = opts.models ?? DEFAULT_MODELS
  const quirks: FakeQuirks = { ...opts.quirks }
  const received: ReceivedRequest[] = []
  const queue: Behaviour[] = []
  const responsesQueue: Array<ResponsesBehaviour | Extract<Behaviour, { kind: 'status' }>> = []
  const retrievalsQueue: Behaviour[] = []
  const responsesState = { encrypted: new Set<string>(), stored: new Map<string, unknown>() }
  let clientCloses = 0
  let unclaimedCloses = 0
  const waiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = []
  let shuttingDown = false
  /** Responses not closed yet. */
  const open = new Set<ServerResponse>()

  const clientClosed = () => {
    clientCloses++
    const waiter = waiters.shift()
    if (waiter) waiter.resolve()
    else unclaimedCloses++
  }

  const modelObject = (id: string) => ({ id: quirks.modelsPrefix ? `models/${id}` : id, object: 'model', created: MODEL_CREATED, owned_by: 'fake' })

  async function handle(req: IncomingMessage, res: ServerResponse) {
    res.setHeader('x-request-id', `req_${randomHex(16)}`)
    res.setHeader('openai-version', '2020-10-01')
    res.setHeader('openai-processing-ms', '7')

    const closeHandlers: Array<() => void> = []
    let droppedByUs = false
    open.add(res)
    const ex: Exchange = {
      res,
      quirks,
      closed: false,
      onClose: (fn) => closeHandlers.push(fn),
      drop: () => {
        droppedByUs = true
        // destroySoon flushes what was written first; a plain destroy could discard the last chunks.
        if (res.socket) res.socket.destroySoon()
        else res.destroy()
      },
    }
    res.on('close', () => {
      open.delete(res)
      ex.closed = true
      for (const fn of closeHandlers) fn()
      if (!res.writableEnded && !droppedByUs && !shuttingDown) clientClosed()
    })

    const { body, text, malformed } = await readBody(req)
    const path = req.url ?? '/'
    const method = req.method ?? 'GET'
    received.push({ method, path, headers: req.headers, body, text })

    const auth = req.headers.authorization ?? ''
    if (!quirks.noAuth && (!auth.startsWith('Bearer ') || auth.slice('Bearer '.length).trim() === '')) {
      return sendError(
        res,
        401,
        errorBody(
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from https://platform.openai.com/account/api-keys.",
          'invalid_request_error',
        ),
        quirks,
      )
    }
    const presented = auth.slice('Bearer '.length).trim()
    if (!quirks.noAuth && presented !== apiKey) {
      return quirks.errorsAsArray ? sendJson(res, 400, GEMINI_KEY_INVALID) : sendError(res, 401, invalidKey(presented), quirks)
    }

    if (malformed) {
      return sendError(
        res,
        400,
        errorBody(
          "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
          'invalid_request_error',
        ),
        quirks,
      )
    }

    const pathname = new URL(path, 'http://fake').pathname
    const json: Record<string, any> = isObject(body) ? body : {}
    if (method === 'POST' && pathname === '/v1/chat/completions') {
      const invalid =
        validateChat(json) ?? (quirks.strictToolSchemas ? unknownSchemaKeyword(json) : null) ?? (quirks.thoughtSignatures ? unsignedToolCall(json) : null)
      if (invalid) return sendError(res, 400, invalid, quirks)
      return perform(ex, queue.shift() ?? { kind: 'reply' }, json.model, apiKey, (b) => answerChat(ex, json, b))
    }
    if (method === 'POST' && pathname === '/v1/embeddings') {
      const inputs = validateEmbeddings(json)
      if (!Array.isArray(inputs)) return sendError(res, 400, inputs, quirks)
      return perform(ex, queue.shift() ?? { kind: 'reply' }, json.model, apiKey, (b) => answerEmbeddings(ex, json, inputs, b))
    }
    if (method === 'POST' && pathname === '/v1/responses') {
      const invalid = validateResponses(json, responsesState.encrypted)
      if (invalid) return sendError(res, 400, invalid, quirks)
      const b = responsesQueue.shift() ?? { kind: 'reply' }
      if (b.kind === 'status') return sendError(res, b.status, b.body ?? defaultError(b.status, json.model, apiKey), quirks, b.headers)
      return answerResponses(res, json, b, responsesState, ex.drop)
    }
    if (method === 'POST' && pathname === '/v1/responses/input_tokens') {
      const invalid = validateInputTokens(json)
      if (invalid) return sendError(res, 400, invalid, quirks)
      return sendJson(res, 200, { object: 'response.input_tokens', input_tokens: countInputTokens(json) })
    }
    if ((method === 'GET' || method === 'DELETE') && pathname.startsWith('/v1/responses/')) {
      const [id, tail] = decodeURIComponent(pathname.slice('/v1/responses/'.length)).split('/')
      return perform(ex, retrievalsQueue.shift() ?? { kind: 'reply' }, '', apiKey, () => {
        const found = responsesState.stored.get(id) as Record<string, any> | undefined
        if (!found || (tail !== undefined && (tail !== 'input_items' || method !== 'GET'))) {
          return sendError(res, 404, errorBody(`Response with id '${id}' not found.`, 'invalid_request_error', null), quirks)
        }
        if (method === 'DELETE') {
          responsesState.stored.delete(id)
          return sendJson(res, 200, { id, object: 'response.deleted', deleted: true })
        }
        if (tail === 'input_items') {
          const data = [...found.input_items].reverse()
          return sendJson(res, 200, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false })
        }
        const { input_items: _input, ...response } = found
        return sendJson(res, 200, response)
      })
    }
    if (method === 'GET' && pathname === '/v1/models') {
      if (opts.modelsStatus) return sendError(res, opts.modelsStatus, defaultError(opts.modelsStatus, '', apiKey), quirks)
      if (opts.modelsBody) return sendJson(res, 200, opts.modelsBody(auth))
      const data = models.map(modelObject)
      return sendJson(res, 200, quirks.bareModelList ? data : { object: 'list', data })
    }
    if (method === 'GET' && pathname.startsWith('/v1/models/')) {
      let id = decodeURIComponent(pathname.slice('/v1/models/'.length))
      if (quirks.modelsPrefix) id = id.replace(/^models\//, '')
      return models.includes(id) ? sendJson(res, 200, modelObject(id)) : sendError(res, 404, modelNotFound(id), quirks)
    }
    sendError(res, 404, errorBody(`Invalid URL (${method} ${pathname})`, 'invalid_request_error'), quirks)
  }

  const { port, close } = await listenOnLoopback(handle, (res, err) => sendJson(res, 500, errorBody(`fake-openai crashed: ${String(err)}`, 'server_error')))

  return {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey,
    received,
    script: (...behaviours) => {
      queue.push(...behaviours)
    },
    clearScript: () => {
      queue.length = 0
    },
    scriptResponses: (...behaviours) => {
      responsesQueue.push(...behaviours)
    },
    scriptRetrievals: (...behaviours) => {
      retrievalsQueue.push(...behaviours)
    },
    get streamsClosedByClient() {
      return clientCloses
    },
    unsentBytes: () => [...open].reduce((sum, res) => sum + queuedInKernelWrites(res), 0),
    waitForClientClose(timeoutMs = 2000) {
      if (unclaimedCloses > 0) {
        unclaimedCloses--
        return Promise.resolve()
      }
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          resolve: () => {
            clearTimeout(timer)
            resolve()
          },
          reject: (e: Error) => {
            clearTimeout(timer)
            reject(e)
          },
        }
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1)
          reject(new Error(`fake-openai: no client close within ${timeoutMs} ms`))
        }, timeoutMs)
        waiters.push(waiter)
      })
    },
    async close() {
      shuttingDown = true
      for (const waiter of waiters.splice(0)) waiter.reject(new Error('fake-openai closed while waiting for a client close'))
      await close()
    },
  }
}
