/**
 * Mock OpenAI provider for the gateway benchmark, run as its own process so its CPU is not the
 * load generator's. Speaks Chat Completions (and, not streamed, the Responses API) as OpenAI does (ids, usage, usage-only chunk when
 * `stream_options.include_usage` is set, `[DONE]`). The mode comes from the model name, so every
 * path (direct, gateway, peer) selects it the same way and the gateway still prices the request:
 *   gpt-4o-mini                 instant reply
 *   gpt-4o                      reply after a fixed DELAY_MS (60 ms)
 *   any model with stream:true  STREAM_CHUNKS content chunks, one every STREAM_INTERVAL_MS
 * Usage: node --import tsx bench/mock-provider.ts [--port N]; prints {"url": ...} on stdout.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseArgs } from 'node:util'

export const MOCK_MODELS = { instant: 'gpt-4o-mini', delayed: 'gpt-4o', stream: 'gpt-4o-mini' } as const
export const DELAY_MS = 60
export const STREAM_CHUNKS = 20
export const STREAM_INTERVAL_MS = 20

const usage = { prompt_tokens: 12, completion_tokens: STREAM_CHUNKS, total_tokens: 12 + STREAM_CHUNKS, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } }

let seq = 0
function completion(model: string): string {
  return JSON.stringify({
    id: `chatcmpl-bench${++seq}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the mock provider.', refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
    usage,
    service_tier: 'default',
    system_fingerprint: 'fp_bench',
  })
}

/** A Responses API answer (`POST /responses`, not streamed), with its usage in the Responses convention. */
function response(model: string): string {
  return JSON.stringify({
    id: `resp_bench${++seq}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    error: null,
    incomplete_details: null,
    model,
    output: [{ id: `msg_bench${seq}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello from the mock provider.', annotations: [] }] }],
    usage: { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 19 },
  })
}

function serve(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
  let body: { model?: string; stream?: boolean; stream_options?: { include_usage?: boolean } }
  try {
    body = JSON.parse(raw)
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"bad json","type":"invalid_request_error","param":null,"code":null}}')
    return
  }
  const model = body.model ?? 'unknown'
  if (body.stream === true) {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': `req_mock${seq}` })
    const id = `chatcmpl-bench${++seq}`
    const created = Math.floor(Date.now() / 1000)
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_bench', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(body.stream_options?.include_usage ? { usage: null } : {}) })}\n\n`
    // First chunk at once (role), then one content chunk per interval, then finish, usage, [DONE].
    res.write(chunk({ role: 'assistant', content: '', refusal: null }, null))
    let sent = 0
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer)
      sent++
      res.write(chunk({ content: `tok${sent} ` }, null))
      if (sent < STREAM_CHUNKS) return
      clearInterval(timer)
      res.write(chunk({}, 'stop'))
      if (body.stream_options?.include_usage) {
        res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_bench', choices: [], usage })}\n\n`)
      }
      res.end('data: [DONE]\n\n')
    }, STREAM_INTERVAL_MS)
    res.on('close', () => clearInterval(timer))
    return
  }
  const text = req.url?.endsWith('/responses') ? response(model) : completion(model)
  const send = () => res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_mock${seq}` }).end(text)
  if (model === MOCK_MODELS.delayed) setTimeout(send, DELAY_MS)
  else send()
}

export function startMock(port = 0): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (req.method === 'POST' && (req.url?.endsWith('/chat/completions') || req.url?.endsWith('/responses'))) serve(req, res, Buffer.concat(chunks).toString())
      else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found","type":"invalid_request_error","param":null,"code":"unknown_url"}}')
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
