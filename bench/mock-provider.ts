/**
 * Mock provider for the gateway benchmark, run as its own process so its CPU is not the load
 * generator's. Speaks Chat Completions as OpenAI does (ids, usage, usage-only chunk when
 * `stream_options.include_usage` is set, `[DONE]`) on /v1/chat/completions, and Anthropic's
 * Messages API on /v1/messages (usage in message_start and message_delta, named events), with the
 * same text, token counts and timings on both, the Responses API on /v1/responses (a stream's events all at once),
 * OpenAI's embeddings on /v1/embeddings (a small fixed vector of floats, with usage), and
 * Google's generateContent API on /v1beta/models/{model}:generateContent and
 * :streamGenerateContent?alt=sse (usageMetadata; a stream's chunks all at once). The mode comes
 * from the model name (Google's: from the path), so every path (direct, gateway, peer) selects it
 * the same way and the gateway still prices the request:
 *   gpt-4o-mini, claude-haiku-4-5,   instant reply
 *   gemini-2.5-flash, any embedding
 *   gpt-4o, claude-sonnet-4-5,       reply after a fixed DELAY_MS (60 ms)
 *   gemini-2.5-pro
 *   any model with stream:true       STREAM_CHUNKS content chunks, one every STREAM_INTERVAL_MS
 *                                    (Responses, streamGenerateContent: every event at once)
 * Usage: node --import tsx bench/mock-provider.ts [--port N]; prints {"url": ...} on stdout.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseArgs } from 'node:util'

export const MOCK_MODELS = { instant: 'gpt-4o-mini', delayed: 'gpt-4o', stream: 'gpt-4o-mini', embeddings: 'text-embedding-3-small' } as const
export const MOCK_MESSAGES_MODELS = { instant: 'claude-haiku-4-5', delayed: 'claude-sonnet-4-5', stream: 'claude-haiku-4-5' } as const
/** Google's models in its catalog, so the gateway routes a bare id to its `gemini` provider and prices it. */
export const MOCK_GEMINI_MODELS = { instant: 'gemini-2.5-flash', delayed: 'gemini-2.5-pro' } as const
const DELAYED: ReadonlySet<string> = new Set([MOCK_MODELS.delayed, MOCK_MESSAGES_MODELS.delayed, MOCK_GEMINI_MODELS.delayed])
const TEXT = 'Hello from the mock provider.'
export const DELAY_MS = 60
export const STREAM_CHUNKS = 20
export const STREAM_INTERVAL_MS = 20

const usage = {
  prompt_tokens: 12,
  completion_tokens: STREAM_CHUNKS,
  total_tokens: 12 + STREAM_CHUNKS,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
}

let seq = 0
function completion(model: string): string {
  return JSON.stringify({
    id: `chatcmpl-bench${++seq}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: TEXT, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
    usage,
    service_tier: 'default',
    system_fingerprint: 'fp_bench',
  })
}

const messagesUsage = (output: number) => ({
  input_tokens: usage.prompt_tokens,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
  output_tokens: output,
  service_tier: 'standard',
})

function message(model: string): string {
  return JSON.stringify({
    id: `msg_bench${++seq}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: TEXT }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: messagesUsage(STREAM_CHUNKS),
  })
}

/** Runs `send` after DELAY_MS for the delayed models, at once otherwise. */
const answer = (model: string, send: () => void) => (DELAYED.has(model) ? setTimeout(send, DELAY_MS) : send())

/** One content chunk every STREAM_INTERVAL_MS, then `end`; stops if the client goes away. */
function drip(res: http.ServerResponse, chunk: (n: number) => string, end: () => void): void {
  let sent = 0
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer)
    sent++
    res.write(chunk(sent))
    if (sent < STREAM_CHUNKS) return
    clearInterval(timer)
    end()
  }, STREAM_INTERVAL_MS)
  res.on('close', () => clearInterval(timer))
}

type Body = { model?: string; stream?: boolean; stream_options?: { include_usage?: boolean } }

/** The Responses API's usage for the mock's answer. */
const responsesUsage = {
  input_tokens: usage.prompt_tokens,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: usage.completion_tokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: usage.total_tokens,
}

/** The mock's response object: `output` empty while in progress, the answer's message once completed. */
function responseObject(id: string, model: string, completed: boolean) {
  const output = [{ id: `msg_${id}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: TEXT, annotations: [] }] }]
  return {
    id: `resp_${id}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: completed ? 'completed' : 'in_progress',
    error: null,
    incomplete_details: null,
    model,
    output: completed ? output : [],
    usage: completed ? responsesUsage : null,
  }
}

/**
 * A Responses API answer, with its usage in the Responses convention. Streamed, the whole event
 * sequence goes out at once (created, in_progress, the message item with its text in
 * STREAM_CHUNKS deltas, completed): scenario A measures what relaying a Responses stream adds.
 */
function serveResponses(res: http.ServerResponse, body: Body): void {
  const model = body.model ?? 'unknown'
  const id = `bench${++seq}`
  if (body.stream !== true) {
    const text = JSON.stringify(responseObject(id, model, true))
    answer(model, () => res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_mock${seq}` }).end(text))
    return
  }
  let n = 0
  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: n++, ...data })}\n\n`
  const at = { item_id: `msg_${id}`, output_index: 0 }
  const events = [
    event('response.created', { response: responseObject(id, model, false) }),
    event('response.in_progress', { response: responseObject(id, model, false) }),
    event('response.output_item.added', { output_index: 0, item: { id: at.item_id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } }),
    event('response.content_part.added', { ...at, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
    ...Array.from({ length: STREAM_CHUNKS }, (_, i) => event('response.output_text.delta', { ...at, content_index: 0, delta: `tok${i + 1} `, logprobs: [] })),
    event('response.output_text.done', { ...at, content_index: 0, text: TEXT, logprobs: [] }),
    event('response.content_part.done', { ...at, content_index: 0, part: { type: 'output_text', text: TEXT, annotations: [] } }),
    event('response.output_item.done', { output_index: 0, item: responseObject(id, model, true).output[0] }),
    event('response.completed', { response: responseObject(id, model, true) }),
  ]
  answer(model, () =>
    res
      .writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': `req_mock${seq}` })
      .end(events.join('')),
  )
}

/**
 * The mock's embedding, eight floats: the row measures the gateway's work per request. A real one
 * (1,536 floats and more, ~20 KB of JSON) adds its size to the answer the gateway parses and writes again.
 */
const EMBEDDING = [0.0123, -0.0456, 0.0789, -0.0012, 0.0345, -0.0678, 0.0901, -0.0234]

/** OpenAI's embeddings answer for one input (what the bench sends), as floats (the encoding it asks for), with usage. */
function serveEmbeddings(res: http.ServerResponse, body: Body): void {
  const text = JSON.stringify({
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding: EMBEDDING }],
    model: body.model ?? 'unknown',
    usage: { prompt_tokens: usage.prompt_tokens, total_tokens: usage.prompt_tokens },
  })
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_mock${++seq}` }).end(text)
}

/** Google's usageMetadata for the mock's answer: the same token counts as the other wires. */
const usageMetadata = {
  promptTokenCount: usage.prompt_tokens,
  candidatesTokenCount: usage.completion_tokens,
  totalTokenCount: usage.total_tokens,
  promptTokensDetails: [{ modality: 'TEXT', tokenCount: usage.prompt_tokens }],
}

/** One GenerateContentResponse carrying `text`; the last of an answer has its finish reason and usage. */
function geminiResponse(model: string, responseId: string, text: string, last: boolean) {
  return {
    candidates: [{ content: { parts: [{ text }], role: 'model' }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
    ...(last ? { usageMetadata } : {}),
    modelVersion: model,
    responseId,
  }
}

/**
 * Google's generateContent API, the model and method from the path. Streamed (SSE only: the
 * gateway always asks for it), STREAM_CHUNKS chunks go out at once, the last with the finish
 * reason and usage: scenario A measures what relaying a Gemini stream adds, as for Responses.
 */
function serveGemini(res: http.ServerResponse, model: string, stream: boolean): void {
  const responseId = `bench${++seq}`
  if (!stream) {
    const text = JSON.stringify(geminiResponse(model, responseId, TEXT, true))
    answer(model, () => res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' }).end(text))
    return
  }
  const chunks = Array.from({ length: STREAM_CHUNKS }, (_, i) => geminiResponse(model, responseId, `tok${i + 1} `, i === STREAM_CHUNKS - 1))
  answer(model, () => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')))
}

function serveMessages(res: http.ServerResponse, body: Body): void {
  const model = body.model ?? 'unknown'
  if (body.stream !== true) {
    const text = message(model)
    answer(model, () => res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_mock${seq}` }).end(text))
    return
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': `req_mock${seq}` })
  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  const start = {
    id: `msg_bench${++seq}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: messagesUsage(1),
  }
  res.write(event('message_start', { message: start }) + event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }))
  drip(
    res,
    (n) => event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `tok${n} ` } }),
    () =>
      res.end(
        event('content_block_stop', { index: 0 }) +
          event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: STREAM_CHUNKS } }) +
          event('message_stop', {}),
      ),
  )
}

function serve(res: http.ServerResponse, body: Body): void {
  const model = body.model ?? 'unknown'
  if (body.stream === true) {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': `req_mock${seq}` })
    const id = `chatcmpl-bench${++seq}`
    const created = Math.floor(Date.now() / 1000)
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_bench', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(body.stream_options?.include_usage ? { usage: null } : {}) })}\n\n`
    // First chunk at once (role), then one content chunk per interval, then finish, usage, [DONE].
    res.write(chunk({ role: 'assistant', content: '', refusal: null }, null))
    drip(
      res,
      (n) => chunk({ content: `tok${n} ` }, null),
      () => {
        res.write(chunk({}, 'stop'))
        if (body.stream_options?.include_usage) {
          res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_bench', choices: [], usage })}\n\n`)
        }
        res.end('data: [DONE]\n\n')
      },
    )
    return
  }
  const text = completion(model)
  answer(model, () => res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_mock${seq}` }).end(text))
}

/** `models/{model}:{method}` on Google's paths (the model may come percent-encoded, as the gateway sends it). */
const GEMINI_PATH = /\/models\/([^/]+):(generateContent|streamGenerateContent)$/

type Route = (res: http.ServerResponse, body: Body) => void

/** What answers a request: a wire's handler by the path's end, or null (a 404). */
function routeOf(method: string | undefined, url: string | undefined): Route | null {
  if (method !== 'POST' || !url) return null
  if (url.endsWith('/chat/completions')) return serve
  if (url.endsWith('/messages')) return serveMessages
  if (url.endsWith('/responses')) return serveResponses
  if (url.endsWith('/embeddings')) return serveEmbeddings
  const { pathname, searchParams } = new URL(url, 'http://mock')
  const gemini = GEMINI_PATH.exec(pathname)
  if (!gemini) return null
  const stream = gemini[2] === 'streamGenerateContent'
  if (stream && searchParams.get('alt') !== 'sse') return null
  return (res) => serveGemini(res, decodeURIComponent(gemini[1]), stream)
}

export function startMock(port = 0): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const route = routeOf(req.method, req.url)
      let body: Body | null
      try {
        body = route && JSON.parse(Buffer.concat(chunks).toString())
      } catch {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end('{"error":{"message":"bad json","type":"invalid_request_error","param":null,"code":null}}')
        return
      }
      if (route && body) route(res, body)
      else
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"message":"not found","type":"invalid_request_error","param":null,"code":"unknown_url"}}')
    })
  })
  server.keepAliveTimeout = 120_000
  server.headersTimeout = 125_000
  server.maxRequestsPerSocket = 0
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } })
  const server = await startMock(Number(values.port))
  const { port } = server.address() as AddressInfo
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${port}` }) + '\n')
  const stop = () => server.close(() => process.exit(0))
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}
