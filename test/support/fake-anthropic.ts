/**
 * A fake Anthropic upstream for integration tests: a real HTTP server on 127.0.0.1 speaking the
 * Messages API (see /work/shared/reference/wire-format.md §4): its headers, its named stream
 * events, its usage object and its error bodies. It validates requests the way Anthropic does and
 * answers 400 `invalid_request_error` otherwise (required fields, roles, tool_use/tool_result
 * pairing, image types, temperature range, at most 4 cache breakpoints, no unknown fields), so the
 * gateway's translation is proven against the protocol. Tests steer it with `script()`.
 */
import { listenOnLoopback, readBody, type ReceivedRequest } from './loopbackServer'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { randomBytes } from 'node:crypto'
import { FakePromptCache } from './fakePromptCache'

export interface UsageSpec {
  /** Uncached input only: Anthropic counts cache reads and writes apart. */
  input_tokens: number
  output_tokens: number
  cache_read_input_tokens: number
  cache_creation_input_tokens: number
  /** The 1-hour part of cache_creation_input_tokens; the rest are 5-minute writes. */
  cache_creation_1h_input_tokens: number
  /** Reported in output_tokens_details when set; part of output_tokens, as Anthropic bills them. */
  thinking_tokens?: number
  /** `server_tool_use.web_search_requests`: searches the answer ran (a stream reports them in message_delta). */
  web_search_requests?: number
  /** `standard` unless set. */
  service_tier?: string
  /** `fast` when fast mode served the answer. */
  speed?: string
  /** Where the answer was served (`us`, `global`). */
  inference_geo?: string
}

export interface ToolUseSpec {
  id: string
  name: string
  input: Record<string, unknown>
}

export type Behaviour =
  | {
      kind: 'reply'
      /** Text block; none when omitted and tool uses are scripted. */
      text?: string
      toolUses?: ToolUseSpec[]
      /** A thinking block before the text, as with extended thinking on. */
      thinking?: string
      stopReason?: string
      stopSequence?: string
      usage?: Partial<UsageSpec>
      /** Streams: a ping between every two events, not only the one after message_start. */
      pings?: boolean
    }
  /** An error before the first byte; the body is Anthropic's for `errorType` (default: the status's type) unless `body` is given. */
  | { kind: 'status'; status: number; errorType?: string; message?: string; body?: unknown; headers?: Record<string, string> }
  /** Streams: 200, message_start and `afterBlocks` complete text blocks, then an `error` event and the end of the body. */
  | { kind: 'error-mid-stream'; afterBlocks?: number; errorType?: string; message?: string }

export interface FakeAnthropic {
  /** Base URL ending in /v1. */
  url: string
  /** The only key accepted. */
  apiKey: string
  /** Every request, in order, recorded before it is answered (rejected ones included). */
  received: ReceivedRequest[]
  /** From now on plays the prompt cache, as `promptCache: true` does from the start. */
  playPromptCache(): void
  /** Queues behaviours for the next valid /v1/messages requests (a `status` one also for count_tokens); an empty queue means `{ kind: 'reply' }`. */
  script(...behaviours: Behaviour[]): void
  close(): Promise<void>
}

const DEFAULT_TEXT = 'Hello from the fake Anthropic.'
const DEFAULT_USAGE: UsageSpec = {
  input_tokens: 12,
  output_tokens: 6,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_creation_1h_input_tokens: 0,
}
const DEFAULT_MODELS = ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-5']
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp']
const MAX_BREAKPOINTS = 4
const TOP_LEVEL_FIELDS = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'stop_sequences',
  'temperature',
  'top_p',
  'top_k',
  'stream',
  'tools',
  'tool_choice',
  'metadata',
  'thinking',
  'output_config',
  'service_tier',
  'container',
  'cache_control',
  'inference_geo',
])

/** What count_tokens takes: the prompt's fields, none of generation's (max_tokens, sampling, stream, metadata). */
const COUNT_FIELDS = new Set(['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'output_config', 'cache_control', 'speed'])

/** Fields Anthropic takes only under their beta header (`anthropic-beta`, comma-separated): the beta each needs. */
const BETA_FIELDS: Record<string, string> = {
  context_management: 'context-management-2025-06-27',
  speed: 'fast-mode-2026-02-01',
}

/** Anthropic's error type for each status (its errors page). */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
}

const DEFAULT_MESSAGES: Record<string, string> = {
  invalid_request_error: 'Invalid request.',
  authentication_error: 'invalid x-api-key',
  billing_error: 'Your credit balance is too low to access the Anthropic API.',
  permission_error: 'Your API key does not have permission to use the specified resource.',
  not_found_error: 'Not found.',
  request_too_large: 'Request exceeds the maximum allowed number of bytes.',
  rate_limit_error: 'Number of request tokens has exceeded your per-minute rate limit.',
  api_error: 'Internal server error',
  timeout_error: 'Request timed out',
  overloaded_error: 'Overloaded',
}

const randomId = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url')}`
const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v)

const errorBody = (type: string, message: string) => ({ type: 'error', error: { type, message }, request_id: randomId('req') })

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers })
  res.end(text)
}

/** Checks one cache_control and counts it; null when fine. */
function checkCache(block: Record<string, any>, where: string, count: { n: number }): string | null {
  if (block.cache_control === undefined) return null
  const c = block.cache_control
  if (!isObject(c) || c.type !== 'ephemeral' || (c.ttl !== undefined && c.ttl !== '5m' && c.ttl !== '1h')) {
    return `${where}.cache_control: Input should be {type: 'ephemeral', ttl?: '5m' | '1h'}`
  }
  count.n++
  return null
}

function checkText(block: Record<string, any>, where: string, count: { n: number }): string | null {
  if (typeof block.text !== 'string') return `${where}.text: Field required`
  if (block.text === '') return 'messages: text content blocks must be non-empty'
  return checkCache(block, where, count)
}

function checkImage(block: Record<string, any>, where: string, count: { n: number }): string | null {
  const s = block.source
  if (!isObject(s)) return `${where}.source: Field required`
  if (s.type === 'base64') {
    if (!IMAGE_TYPES.includes(s.media_type)) {
      return `${where}.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`
    }
    if (typeof s.data !== 'string' || s.data === '' || !/^[A-Za-z0-9+/]+=*$/.test(s.data)) return `${where}.source.base64.data: invalid base64 data`
  } else if (s.type === 'url') {
    if (typeof s.url !== 'string' || !/^https?:\/\//.test(s.url)) return `${where}.source.url.url: Input should be a valid URL`
  } else {
    return `${where}.source.type: Input should be 'base64', 'url' or 'file'`
  }
  return checkCache(block, where, count)
}

/** One content block of a turn; tool_use only from the assistant, tool_result only from the user. */
function checkBlock(block: unknown, role: string, where: string, count: { n: number }): string | null {
  if (!isObject(block)) return `${where}: Input should be an object`
  switch (block.type) {
    case 'text':
      return checkText(block, where, count)
    case 'image':
      return role === 'user' ? checkImage(block, where, count) : `${where}: image blocks are only allowed in user messages`
    case 'tool_use':
      if (role !== 'assistant') return `${where}: tool_use blocks are only allowed in assistant messages`
      if (typeof block.id !== 'string' || !/^[a-zA-Z0-9_-]+$/.test(block.id)) return `${where}.id: String should match pattern '^[a-zA-Z0-9_-]+$'`
      if (typeof block.name !== 'string' || block.name === '') return `${where}.name: Field required`
      if (!isObject(block.input)) return `${where}.input: Input should be a valid dictionary`
      return checkCache(block, where, count)
    case 'tool_result': {
      if (role !== 'user') return `${where}: tool_result blocks are only allowed in user messages`
      if (typeof block.tool_use_id !== 'string') return `${where}.tool_use_id: Field required`
      if (Array.isArray(block.content)) {
        for (const [k, inner] of block.content.entries()) {
          const at = `${where}.content.${k}`
          if (!isObject(inner) || (inner.type !== 'text' && inner.type !== 'image')) return `${at}: Input should be a text or image block`
          const e = inner.type === 'text' ? checkText(inner, at, count) : checkImage(inner, at, count)
          if (e) return e
        }
      } else if (block.content !== undefined && typeof block.content !== 'string') {
        return `${where}.content: Input should be a valid string or list`
      }
      return checkCache(block, where, count)
    }
    case 'thinking':
    case 'redacted_thinking':
      if (role !== 'assistant') return `${where}: ${block.type} blocks are only allowed in assistant messages`
      if (block.type === 'thinking' && (typeof block.thinking !== 'string' || typeof block.signature !== 'string' || block.signature === '')) {
        return `${where}.signature: Field required`
      }
      return null
    default:
      return `${where}.type: Input tag '${String(block.type)}' found using 'type' does not match any of the expected tags`
  }
}

/**
 * What Anthropic would refuse about a Messages request (or a count_tokens
 * request: `counting`), as its message; null when the request is valid.
 */
export function validateMessages(
  body: unknown,
  models: string[],
  betas: string[] = [],
  counting = false,
): { status: number; type: string; message: string } | null {
  const bad = (message: string) => ({ status: 400, type: 'invalid_request_error', message })
  if (!isObject(body)) return bad('Request body must be a JSON object')
  const fields = counting ? COUNT_FIELDS : TOP_LEVEL_FIELDS
  for (const key of Object.keys(body)) {
    if (fields.has(key) || (BETA_FIELDS[key] !== undefined && betas.includes(BETA_FIELDS[key]))) continue
    return bad(`${key}: Extra inputs are not permitted${BETA_FIELDS[key] ? ` (it needs the anthropic-beta header ${BETA_FIELDS[key]})` : ''}`)
  }
  if (typeof body.model !== 'string' || body.model === '') return bad('model: Field required')
  if (body.max_tokens === undefined && !counting) return bad('max_tokens: Field required')
  if (!counting && (!Number.isInteger(body.max_tokens) || body.max_tokens < 0)) return bad('max_tokens: Input should be a valid integer')
  if (!Array.isArray(body.messages)) return bad('messages: Field required')
  if (body.messages.length === 0) return bad('messages: at least one message is required')
  if (body.temperature !== undefined && !(typeof body.temperature === 'number' && body.temperature >= 0 && body.temperature <= 1)) {
    return bad('temperature: Input should be less than or equal to 1')
  }
  if (body.top_p !== undefined && !(typeof body.top_p === 'number' && body.top_p >= 0 && body.top_p <= 1))
    return bad('top_p: Input should be less than or equal to 1')
  if (body.stop_sequences !== undefined && !(Array.isArray(body.stop_sequences) && body.stop_sequences.every((s: unknown) => typeof s === 'string'))) {
    return bad('stop_sequences: Input should be a valid list of strings')
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return bad('stream: Input should be a valid boolean')
  if (body.metadata !== undefined && !(isObject(body.metadata) && Object.keys(body.metadata).every((k) => k === 'user_id'))) {
    return bad('metadata: only user_id is permitted')
  }
  if (body.output_config !== undefined) {
    const f = body.output_config?.format
    if (!isObject(body.output_config) || (f !== undefined && !(isObject(f) && f.type === 'json_schema' && isObject(f.schema)))) {
      return bad('output_config.format: Input should be {type: "json_schema", schema}')
    }
  }

  const count = { n: 0 }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return bad('tools: Input should be a valid list')
    for (const [i, tool] of body.tools.entries()) {
      if (!isObject(tool) || typeof tool.name !== 'string' || !/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name))
        return bad(`tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`)
      if (!isObject(tool.input_schema) || tool.input_schema.type !== 'object') return bad(`tools.${i}.input_schema.type: Input should be 'object'`)
      const e = checkCache(tool, `tools.${i}`, count)
      if (e) return bad(e)
    }
  }
  if (body.tool_choice !== undefined) {
    const c = body.tool_choice
    if (!isObject(c) || !['auto', 'any', 'tool', 'none'].includes(c.type)) return bad("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'")
    if (c.type === 'tool' && typeof c.name !== 'string') return bad('tool_choice.tool.name: Field required')
    if (c.type === 'none' && 'disable_parallel_tool_use' in c) return bad('tool_choice.none.disable_parallel_tool_use: Extra inputs are not permitted')
    if (!Array.isArray(body.tools) || body.tools.length === 0) return bad('tool_choice may only be specified while providing tools')
  }
  if (body.system !== undefined) {
    if (Array.isArray(body.system)) {
      for (const [i, block] of body.system.entries()) {
        if (!isObject(block) || block.type !== 'text') return bad(`system.${i}.type: Input should be 'text'`)
        const e = checkText(block, `system.${i}`, count)
        if (e) return bad(e)
      }
    } else if (typeof body.system !== 'string') {
      return bad('system: Input should be a valid string or list of text blocks')
    }
  }

  // Consecutive turns of one role are merged before the rules below apply, as Anthropic does.
  const turns: Array<{ role: string; blocks: Array<Record<string, any>>; first: number }> = []
  for (const [i, m] of body.messages.entries()) {
    if (!isObject(m)) return bad(`messages.${i}: Input should be an object`)
    if (m.role !== 'user' && m.role !== 'assistant') return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`)
    let blocks: unknown[]
    if (typeof m.content === 'string') {
      if (m.content === '' && i !== body.messages.length - 1)
        return bad(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`)
      blocks = m.content === '' ? [] : [{ type: 'text', text: m.content }]
    } else if (Array.isArray(m.content)) {
      if (m.content.length === 0) return bad(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`)
      blocks = m.content
    } else {
      return bad(`messages.${i}.content: Field required`)
    }
    for (const [j, block] of blocks.entries()) {
      const e = checkBlock(block, m.role, `messages.${i}.content.${j}`, count)
      if (e) return bad(e)
    }
    const last = turns.at(-1)
    if (last && last.role === m.role) last.blocks.push(...(blocks as Array<Record<string, any>>))
    else turns.push({ role: m.role, blocks: blocks as Array<Record<string, any>>, first: i })
  }
  for (const [t, turn] of turns.entries()) {
    if (turn.role === 'assistant') {
      const ids = turn.blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string)
      const next = turns[t + 1]
      const answered = new Set((next?.blocks ?? []).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id))
      const missing = ids.filter((id) => !answered.has(id))
      if (missing.length > 0) {
        return bad(
          `messages.${next?.first ?? body.messages.length}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        )
      }
    } else {
      const previous = t > 0 ? turns[t - 1] : undefined
      const offered = new Set((previous?.blocks ?? []).filter((b) => b.type === 'tool_use').map((b) => b.id))
      const results = turn.blocks.filter((b) => b.type === 'tool_result')
      const stray = results.find((b) => !offered.has(b.tool_use_id))
      if (stray) {
        return bad(
          `messages.${turn.first}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        )
      }
      const firstOther = turn.blocks.findIndex((b) => b.type !== 'tool_result')
      if (results.length > 0 && firstOther !== -1 && turn.blocks.slice(firstOther).some((b) => b.type === 'tool_result')) {
        return bad(`messages.${turn.first}: tool_result blocks must come first in the content array, before any other content`)
      }
    }
  }
  if (count.n > MAX_BREAKPOINTS) return bad(`A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${count.n}.`)
  if (!models.includes(body.model)) return { status: 404, type: 'not_found_error', message: `model: ${body.model}` }
  return null
}

type Reply = Extract<Behaviour, { kind: 'reply' }>

/**
 * The fake's token count for a count_tokens body: one per 4 characters of its system prompt,
 * messages and tools as JSON, plus 3. Deterministic, so a test can tell it from the gateway's
 * own estimate (which has no `+ 3`).
 */
export function fakeTokenCount(body: { system?: unknown; messages: unknown; tools?: unknown }): number {
  return 3 + Math.ceil(JSON.stringify([body.system ?? null, body.messages, body.tools ?? null]).length / 4)
}

function usageObject(spec: UsageSpec) {
  const oneHour = spec.cache_creation_1h_input_tokens
  return {
    input_tokens: spec.input_tokens,
    cache_creation_input_tokens: spec.cache_creation_input_tokens,
    cache_read_input_tokens: spec.cache_read_input_tokens,
    cache_creation: { ephemeral_5m_input_tokens: spec.cache_creation_input_tokens - oneHour, ephemeral_1h_input_tokens: oneHour },
    output_tokens: spec.output_tokens,
    ...(spec.thinking_tokens !== undefined ? { output_tokens_details: { thinking_tokens: spec.thinking_tokens } } : {}),
    ...serverToolUse(spec),
    service_tier: spec.service_tier ?? 'standard',
    ...(spec.speed !== undefined ? { speed: spec.speed } : {}),
    ...(spec.inference_geo !== undefined ? { inference_geo: spec.inference_geo } : {}),
  }
}

const serverToolUse = (spec: UsageSpec) =>
  spec.web_search_requests !== undefined ? { server_tool_use: { web_search_requests: spec.web_search_requests, web_fetch_requests: 0 } } : {}

function replyBlocks(b: Reply): Array<Record<string, unknown>> {
  const blocks: Array<Record<string, unknown>> = []
  if (b.thinking !== undefined) blocks.push({ type: 'thinking', thinking: b.thinking, signature: randomBytes(24).toString('base64') })
  const text = b.text ?? (b.toolUses ? undefined : DEFAULT_TEXT)
  if (text !== undefined) blocks.push({ type: 'text', text, citations: null })
  for (const t of b.toolUses ?? []) blocks.push({ type: 'tool_use', id: t.id, name: t.name, input: t.input, caller: { type: 'direct' } })
  return blocks
}

const stopReasonOf = (b: Reply) => b.stopReason ?? (b.toolUses?.length ? 'tool_use' : 'end_turn')

function messageObject(model: string, b: Reply) {
  return {
    id: randomId('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content: replyBlocks(b),
    stop_reason: stopReasonOf(b),
    stop_sequence: b.stopSequence ?? null,
    usage: usageObject({ ...DEFAULT_USAGE, ...b.usage }),
  }
}

/** Pieces of a string as they would arrive in deltas: at most `size` characters each. */
const pieces = (s: string, size: number) => Array.from({ length: Math.ceil(s.length / size) }, (_, i) => s.slice(i * size, (i + 1) * size))

class EventWriter {
  constructor(
    private readonly res: ServerResponse,
    private readonly pings: boolean,
  ) {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
  }

  send(type: string, data: Record<string, unknown>) {
    this.res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
    if (this.pings && type !== 'message_stop') this.ping()
  }

  ping() {
    this.res.write(`event: ping\ndata: {"type": "ping"}\n\n`)
  }

  /** One content block: start with the block emptied, deltas, stop. */
  block(index: number, block: Record<string, unknown>) {
    if (block.type === 'text') {
      this.send('content_block_start', { index, content_block: { type: 'text', text: '', citations: null } })
      for (const p of pieces(block.text as string, 6)) this.send('content_block_delta', { index, delta: { type: 'text_delta', text: p } })
    } else if (block.type === 'thinking') {
      this.send('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } })
      for (const p of pieces(block.thinking as string, 6)) this.send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: p } })
      this.send('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } })
    } else {
      this.send('content_block_start', { index, content_block: { ...block, input: {} } })
      this.send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } })
      for (const p of pieces(JSON.stringify(block.input), 7)) this.send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: p } })
    }
    this.send('content_block_stop', { index })
  }

  start(model: string, usage: UsageSpec) {
    const message = { id: randomId('msg'), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null }
    const { server_tool_use: _searchesComeLater, ...started } = usageObject(usage) as Record<string, unknown>
    this.send('message_start', { message: { ...message, usage: { ...started, output_tokens: 1 } } })
    // Anthropic sends one ping right after message_start.
    if (!this.pings) this.ping()
  }

  end() {
    this.res.end()
  }
}

function streamReply(res: ServerResponse, model: string, b: Reply) {
  const usage = { ...DEFAULT_USAGE, ...b.usage }
  const w = new EventWriter(res, b.pings === true)
  w.start(model, usage)
  replyBlocks(b).forEach((block, index) => w.block(index, block))
  // message_delta's counts are cumulative; this one carries only the output count, as older API versions do.
  w.send('message_delta', {
    delta: { stop_reason: stopReasonOf(b), stop_sequence: b.stopSequence ?? null },
    usage: { output_tokens: usage.output_tokens, ...serverToolUse(usage) },
  })
  w.send('message_stop', {})
  w.end()
}

function errorMidStream(res: ServerResponse, model: string, b: Extract<Behaviour, { kind: 'error-mid-stream' }>, quote: (message: string) => string) {
  const w = new EventWriter(res, false)
  w.start(model, DEFAULT_USAGE)
  for (let i = 0; i < (b.afterBlocks ?? 1); i++) w.block(i, { type: 'text', text: `Partial answer ${i + 1}. ` })
  const type = b.errorType ?? 'overloaded_error'
  w.send('error', { error: { type, message: quote(b.message ?? DEFAULT_MESSAGES[type] ?? 'Error') } })
  w.end()
}

export async function startFakeAnthropic(
  opts: {
    apiKey?: string
    models?: string[]
    /**
     * A careless provider: every error message it sends quotes the x-api-key it received (before
     * the first byte, in a stream's error event, from the model list).
     */
    echoCredential?: boolean
    /** The model list fails with this status (Anthropic's error body for it) instead of listing. */
    modelsStatus?: number
    /** Plays Anthropic's prompt cache (`FakePromptCache`): a reply's cache usage is what its prompt reads and writes, unless scripted. */
    promptCache?: boolean
  } = {},
): Promise<FakeAnthropic> {
  const apiKey = opts.apiKey ?? `sk-ant-fake-${randomBytes(16).toString('hex')}`
  const models = opts.models ?? DEFAULT_MODELS
  const received: ReceivedRequest[] = []
  const queue: Behaviour[] = []
  let cache = opts.promptCache ? new FakePromptCache() : null

  async function handle(req: IncomingMessage, res: ServerResponse) {
    res.setHeader('request-id', randomId('req'))
    res.setHeader('anthropic-organization-id', 'fake-org')
    const { body, text, malformed } = await readBody(req)
    const method = req.method ?? 'GET'
    const path = req.url ?? '/'
    received.push({ method, path, headers: req.headers, body, text })
    const quote = (message: string) => (opts.echoCredential ? `${message} (x-api-key: ${req.headers['x-api-key'] ?? '(none)'})` : message)
    const fail = (status: number, type: string, message: string, headers?: Record<string, string>) =>
      sendJson(res, status, errorBody(type, quote(message)), headers)

    const key = req.headers['x-api-key']
    if (typeof key !== 'string' || key === '') return fail(401, 'authentication_error', 'x-api-key header is required')
    if (key !== apiKey) return fail(401, 'authentication_error', 'invalid x-api-key')
    if (typeof req.headers['anthropic-version'] !== 'string') return fail(400, 'invalid_request_error', 'anthropic-version: header is required')
    if (malformed) return fail(400, 'invalid_request_error', 'There was an error parsing the body of your request.')

    const pathname = new URL(path, 'http://fake').pathname
    if (method === 'GET' && pathname === '/v1/models') {
      if (opts.modelsStatus) {
        const type = ERROR_TYPES[opts.modelsStatus] ?? 'api_error'
        return fail(opts.modelsStatus, type, DEFAULT_MESSAGES[type] ?? 'Error')
      }
      const data = models.map((id, i) => ({ type: 'model', id, display_name: id, created_at: new Date(Date.UTC(2025, 8, 29 - i)).toISOString() }))
      return sendJson(res, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null })
    }
    const counting = pathname === '/v1/messages/count_tokens'
    if (method !== 'POST' || (pathname !== '/v1/messages' && !counting)) return fail(404, 'not_found_error', 'Not Found')
    const beta = req.headers['anthropic-beta']
    const refused = validateMessages(body, models, typeof beta === 'string' ? beta.split(',').map((b) => b.trim()) : [], counting)
    if (refused) return fail(refused.status, refused.type, refused.message)
    // A count answers a scripted error status; any other behaviour stays queued for the next message.
    if (counting && queue[0]?.kind !== 'status') return sendJson(res, 200, { input_tokens: fakeTokenCount(body) })

    const scripted = queue.shift() ?? { kind: 'reply' }
    const b = cache && scripted.kind === 'reply' ? { ...scripted, usage: { ...cache.use(body), ...scripted.usage } } : scripted
    const stream = body.stream === true
    switch (b.kind) {
      case 'reply':
        return stream ? streamReply(res, body.model, b) : sendJson(res, 200, messageObject(body.model, b))
      case 'status': {
        const type = b.errorType ?? ERROR_TYPES[b.status] ?? 'api_error'
        if (b.body !== undefined) return sendJson(res, b.status, b.body, b.headers)
        return fail(b.status, type, b.message ?? DEFAULT_MESSAGES[type] ?? 'Error', b.headers)
      }
      case 'error-mid-stream':
        if (!stream) return fail(500, 'api_error', "fake-anthropic: 'error-mid-stream' needs a streamed request")
        return errorMidStream(res, body.model, b, quote)
    }
  }

  const { port, close } = await listenOnLoopback(handle, (res, err) => sendJson(res, 500, errorBody('api_error', `fake-anthropic crashed: ${String(err)}`)))
  return {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey,
    received,
    script: (...behaviours) => {
      queue.push(...behaviours)
    },
    playPromptCache() {
      cache ??= new FakePromptCache()
    },
    async close() {
      await close()
    },
  }
}
