/**
 * The Responses API half of the fake OpenAI server (`POST /v1/responses`, `POST
 * /v1/responses/input_tokens`, `GET /v1/responses/{id}`): it validates a body as the real API does
 * (unknown top-level parameters refused with `unknown_parameter`, input items, tools, include) and
 * answers with OpenAI's object and event sequence: named events, `sequence_number` on each,
 * reasoning items (with `encrypted_content` when `include` asks for it), messages, function calls
 * with streamed arguments, and usage on `response.completed` with cached and reasoning tokens.
 */
import { randomBytes } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { contentPieces } from './contentPieces'

const hex = (bytes: number) => randomBytes(bytes).toString('hex')
const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v)

export interface ResponsesUsageSpec {
  input_tokens: number
  cached_tokens: number
  output_tokens: number
  reasoning_tokens: number
}

/** What one `POST /v1/responses` answers (the shared behaviours, status and delay, are the server's). */
export type ResponsesBehaviour =
  | {
      kind: 'reply'
      content?: string
      usage?: Partial<ResponsesUsageSpec>
      toolCalls?: Array<{ name: string; arguments: string }>
      status?: 'completed' | 'incomplete'
      /** The tier the finished response reports serving; otherwise the one asked for, `auto` resolving to `default`. */
      serviceTier?: string
      /** `web_search_call` output items before the answer, one per search. */
      webSearches?: number
    }
  /** Streams only: `afterDeltas` text deltas, then OpenAI's `error` event, a `response.failed` event (the error's `message` as given), or a cut connection. */
  | { kind: 'fail-mid-stream'; afterDeltas: number; mode: 'error-event' | 'response-failed' | 'drop'; message?: string }

const DEFAULT_CONTENT = 'Hello from the fake Responses API.'
const DEFAULT_USAGE: ResponsesUsageSpec = { input_tokens: 30, cached_tokens: 0, output_tokens: 8, reasoning_tokens: 0 }

/** Top-level parameters of `POST /v1/responses`; the real API refuses any other with `unknown_parameter`. */
const KNOWN = new Set([
  'background',
  'client_metadata', // not in the SDK's types; Codex sends it and the API takes it
  'context_management',
  'conversation',
  'include',
  'input',
  'instructions',
  'max_output_tokens',
  'max_tool_calls',
  'metadata',
  'model',
  'parallel_tool_calls',
  'previous_response_id',
  'prompt',
  'prompt_cache_key',
  'prompt_cache_retention',
  'reasoning',
  'safety_identifier',
  'service_tier',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'text',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'truncation',
  'user',
])

const INCLUDABLE = new Set([
  'reasoning.encrypted_content',
  'message.output_text.logprobs',
  'web_search_call.action.sources',
  'code_interpreter_call.outputs',
  'computer_call_output.output.image_url',
  'file_search_call.results',
  'message.input_image.image_url',
])

const ITEM_TYPES = new Set([
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
  'additional_tools',
  'item_reference',
  'web_search_call',
  'local_shell_call',
  'local_shell_call_output',
])

export interface ResponsesError {
  error: { message: string; type: string; param: string | null; code: string | null }
}

const invalid = (message: string, param: string | null, code: string | null = null): ResponsesError => ({
  error: { message, type: 'invalid_request_error', param, code },
})

/** A tool as the API takes it: functions and custom tools named, namespaces holding tools, hosted tools by type alone. */
function checkTool(tool: unknown, at: string): ResponsesError | null {
  if (!isObject(tool) || typeof tool.type !== 'string') return invalid(`Missing required parameter: '${at}.type'.`, `${at}.type`, 'missing_required_parameter')
  if ((tool.type === 'function' || tool.type === 'custom') && typeof tool.name !== 'string') {
    return invalid(`Missing required parameter: '${at}.name'.`, `${at}.name`, 'missing_required_parameter')
  }
  if (tool.type === 'namespace') {
    if (!Array.isArray(tool.tools)) return invalid(`Missing required parameter: '${at}.tools'.`, `${at}.tools`, 'missing_required_parameter')
    for (const [i, t] of tool.tools.entries()) {
      const bad = checkTool(t, `${at}.tools[${i}]`)
      if (bad) return bad
    }
  }
  return null
}

/**
 * Checks a body as the real API would; `encrypted` is every reasoning blob this server issued, so
 * a reasoning item sent back must carry one of them untouched.
 */
export function validateResponses(body: Record<string, any>, encrypted: Set<string>): ResponsesError | null {
  for (const k of Object.keys(body)) if (!KNOWN.has(k)) return invalid(`Unknown parameter: '${k}'.`, k, 'unknown_parameter')
  if (typeof body.model !== 'string' || body.model === '') return invalid("Missing required parameter: 'model'.", 'model', 'missing_required_parameter')
  if (body.input !== undefined && typeof body.input !== 'string' && !Array.isArray(body.input))
    return invalid("Invalid type for 'input'.", 'input', 'invalid_type')
  for (const [i, item] of (Array.isArray(body.input) ? body.input : []).entries()) {
    const type = isObject(item) ? (item.type ?? (typeof item.role === 'string' ? 'message' : undefined)) : undefined
    if (!ITEM_TYPES.has(type)) return invalid(`Invalid value for 'input[${i}].type'.`, `input[${i}].type`, 'invalid_value')
    if (type === 'reasoning' && item.encrypted_content !== undefined && !encrypted.has(item.encrypted_content)) {
      return invalid(`The encrypted content for item ${item.id} could not be verified.`, `input[${i}].encrypted_content`, 'invalid_encrypted_content')
    }
    if (type === 'additional_tools') {
      for (const [j, t] of (Array.isArray(item.tools) ? item.tools : []).entries()) {
        const bad = checkTool(t, `input[${i}].tools[${j}]`)
        if (bad) return bad
      }
    }
  }
  for (const [i, t] of (Array.isArray(body.tools) ? body.tools : []).entries()) {
    const bad = checkTool(t, `tools[${i}]`)
    if (bad) return bad
  }
  for (const [i, v] of (Array.isArray(body.include) ? body.include : []).entries()) {
    if (!INCLUDABLE.has(v)) return invalid(`Invalid value: '${v}'. Supported values are: ${[...INCLUDABLE].join(', ')}.`, `include[${i}]`, 'invalid_value')
  }
  const format = body.text?.format
  if (isObject(format) && format.type === 'json_schema' && (typeof format.name !== 'string' || !isObject(format.schema))) {
    return invalid("Missing required parameter: 'text.format.name'.", 'text.format.name', 'missing_required_parameter')
  }
  if (body.max_output_tokens !== undefined && !(Number.isInteger(body.max_output_tokens) && body.max_output_tokens >= 16)) {
    return invalid(
      `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${body.max_output_tokens} instead.`,
      'max_output_tokens',
      'integer_below_min_value',
    )
  }
  return null
}

/** Parameters of `POST /v1/responses/input_tokens`: a Responses request without its sampling and output settings. */
const COUNT_KNOWN = new Set([
  'conversation',
  'input',
  'instructions',
  'model',
  'parallel_tool_calls',
  'personality',
  'previous_response_id',
  'reasoning',
  'text',
  'tool_choice',
  'tools',
  'truncation',
])

export function validateInputTokens(body: Record<string, any>): ResponsesError | null {
  for (const k of Object.keys(body)) if (!COUNT_KNOWN.has(k)) return invalid(`Unknown parameter: '${k}'.`, k, 'unknown_parameter')
  return null
}

/** Rough input tokens for `POST /v1/responses/input_tokens`: words of every string in the input and instructions. */
export function countInputTokens(body: Record<string, any>): number {
  const words = (v: unknown): number =>
    typeof v === 'string'
      ? v.split(/\s+/).filter(Boolean).length
      : Array.isArray(v)
        ? v.reduce((n, x) => n + words(x), 0)
        : isObject(v)
          ? Object.values(v).reduce((n: number, x) => n + words(x), 0)
          : 0
  return words(body.input) + words(body.instructions)
}

function usageObject(u: ResponsesUsageSpec) {
  return {
    input_tokens: u.input_tokens,
    input_tokens_details: { cached_tokens: u.cached_tokens },
    output_tokens: u.output_tokens,
    output_tokens_details: { reasoning_tokens: u.reasoning_tokens },
    total_tokens: u.input_tokens + u.output_tokens,
  }
}

/** The response object, echoing the request's settings as the API does. */
function responseShell(body: Record<string, any>, id: string) {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'in_progress',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model,
    output: [] as unknown[],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    service_tier: body.service_tier ?? 'default',
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    usage: null as unknown,
    user: null,
    metadata: body.metadata ?? {},
  }
}

/** The output items of a reply, in order, as they stand once done; `encrypted` learns every reasoning blob issued. */
function outputItems(body: Record<string, any>, b: Extract<ResponsesBehaviour, { kind: 'reply' }>, encrypted: Set<string>) {
  const items: Array<Record<string, any>> = []
  if (isObject(body.reasoning)) {
    const item: Record<string, any> = { id: `rs_${hex(12)}`, type: 'reasoning', summary: [] }
    if (Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content')) {
      item.encrypted_content = `gAAAA${randomBytes(48).toString('base64')}`
      encrypted.add(item.encrypted_content)
    }
    items.push(item)
  }
  for (let i = 0; i < (b.webSearches ?? 0); i++) {
    items.push({ id: `ws_${hex(12)}`, type: 'web_search_call', status: 'completed', action: { type: 'search', query: `query ${i + 1}` } })
  }
  const content = b.content ?? (b.toolCalls ? undefined : DEFAULT_CONTENT)
  if (content !== undefined) {
    items.push({
      id: `msg_${hex(12)}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: content, annotations: [], logprobs: [] }],
    })
  }
  for (const call of b.toolCalls ?? []) {
    items.push({ id: `fc_${hex(12)}`, type: 'function_call', status: 'completed', arguments: call.arguments, call_id: `call_${hex(12)}`, name: call.name })
  }
  return items
}

/** Writes one stream's named events, each with the next sequence number. */
class EventWriter {
  private seq = 0
  constructor(private readonly res: ServerResponse) {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
    res.flushHeaders()
  }
  event(type: string, fields: Record<string, unknown>) {
    this.res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...fields, sequence_number: this.seq++ })}\n\n`)
  }
}

/** The events that build one output item, from `output_item.added` to `output_item.done`. */
function streamItem(w: EventWriter, item: Record<string, any>, output_index: number) {
  const item_id = item.id
  if (item.type === 'message') {
    const text: string = item.content[0].text
    w.event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } })
    w.event('response.content_part.added', { item_id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } })
    for (const delta of contentPieces(text)) w.event('response.output_text.delta', { item_id, output_index, content_index: 0, delta, logprobs: [] })
    w.event('response.output_text.done', { item_id, output_index, content_index: 0, text, logprobs: [] })
    w.event('response.content_part.done', { item_id, output_index, content_index: 0, part: item.content[0] })
  } else if (item.type === 'function_call') {
    w.event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } })
    for (const delta of contentPieces(item.arguments)) w.event('response.function_call_arguments.delta', { item_id, output_index, delta })
    w.event('response.function_call_arguments.done', { item_id, output_index, arguments: item.arguments })
  } else {
    w.event('response.output_item.added', { output_index, item: { ...item, encrypted_content: undefined } })
  }
  w.event('response.output_item.done', { output_index, item })
}

/** Answers a valid `POST /v1/responses`; `stored` keeps responses the API would store, with their input, for `GET` and `DELETE /v1/responses/{id}` and `input_items`. */
export function answerResponses(
  res: ServerResponse,
  body: Record<string, any>,
  b: ResponsesBehaviour,
  state: { encrypted: Set<string>; stored: Map<string, unknown> },
  drop: () => void,
): void {
  const shell = responseShell(body, `resp_${hex(16)}`)
  const stream = body.stream === true
  if (b.kind === 'fail-mid-stream') {
    if (!stream) {
      res.writeHead(500, { 'content-type': 'application/json' })
      return void res.end(
        JSON.stringify({
          error: { message: "fake-openai: behaviour 'fail-mid-stream' applies to streamed responses only", type: 'server_error', param: null, code: null },
        }),
      )
    }
    const w = new EventWriter(res)
    w.event('response.created', { response: shell })
    w.event('response.in_progress', { response: shell })
    const item = { id: `msg_${hex(12)}`, type: 'message', status: 'in_progress', role: 'assistant', content: [] }
    w.event('response.output_item.added', { output_index: 0, item })
    w.event('response.content_part.added', {
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
    })
    for (let n = 0; n < b.afterDeltas; n++)
      w.event('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: 'partial ', logprobs: [] })
    if (b.mode === 'drop') return drop()
    const error = { code: 'server_error', message: b.message ?? 'The server had an error while processing your request. Sorry about that!' }
    if (b.mode === 'error-event') w.event('error', { ...error, param: null })
    else w.event('response.failed', { response: { ...shell, status: 'failed', error, usage: usageObject({ ...DEFAULT_USAGE, output_tokens: b.afterDeltas }) } })
    return void res.end()
  }
  const items = outputItems(body, b, state.encrypted)
  const status = b.status ?? 'completed'
  const usage = { ...DEFAULT_USAGE, ...b.usage }
  const final = {
    ...shell,
    status,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    output: items,
    usage: usageObject(usage),
    service_tier: b.serviceTier ?? (shell.service_tier === 'auto' ? 'default' : shell.service_tier),
  }
  // What `input_items` lists: the input as items with ids, as the API keeps it.
  const input = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: body.input }] }] : (body.input ?? [])
  if (final.store) state.stored.set(final.id, { ...final, input_items: input.map((i: any) => ({ id: `msg_${hex(12)}`, ...i })) })
  if (!stream) {
    const text = JSON.stringify(final)
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) })
    return void res.end(text)
  }
  const w = new EventWriter(res)
  w.event('response.created', { response: shell })
  w.event('response.in_progress', { response: shell })
  items.forEach((item, i) => streamItem(w, item, i))
  w.event(status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: final })
  res.end()
}
