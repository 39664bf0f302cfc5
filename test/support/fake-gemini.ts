/**
 * A fake Google Generative Language API (Gemini's native wire, /work/shared/reference/wire-format.md
 * §8) for integration tests: a real HTTP server on 127.0.0.1 serving `models/{m}:generateContent`,
 * `:streamGenerateContent` (SSE with `?alt=sse`, an incrementally written JSON array without it),
 * `:countTokens`, `:embedContent`, `:batchEmbedContents` and the model list under `/v1beta` and
 * `/v1`, with Google's auth (an API key in `x-goog-api-key` or `?key=`), its error bodies and its
 * validation (contents, roles, parts, the function call / response protocol, unknown fields by
 * name), so the gateway's Gemini wire is proven against the protocol. Google's OpenAI layer
 * (`/v1beta/openai/…`) is a fake OpenAI server with Gemini's quirks behind the same port and key.
 * Tests steer it with `script()`.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import { randomBytes } from 'node:crypto'
import { listenOnLoopback, readBody, type ReceivedRequest } from './loopbackServer'
import { contentPieces } from './contentPieces'
import { fakeEmbedding, GEMINI_KEY_INVALID, GOOGLE_STATUS, startFakeOpenAI, type FakeOpenAI } from './fake-openai'

export type GeminiMethod = 'generateContent' | 'streamGenerateContent' | 'countTokens' | 'embedContent' | 'batchEmbedContents'

export interface GeminiUsageSpec {
  /** Includes `cachedContentTokenCount`, as Google counts it. */
  promptTokenCount: number
  cachedContentTokenCount: number
  /** The visible answer only: thoughts are counted apart. */
  candidatesTokenCount: number
  thoughtsTokenCount: number
  /** Input the model read from its own tool use (search results…). */
  toolUsePromptTokenCount: number
}

export interface FunctionCallSpec {
  name: string
  args: Record<string, unknown>
  /** Sent only when set: the Gemini API leaves it out for most models. */
  id?: string
}

/** Which requests a queued behaviour is for: by default the next generateContent or streamGenerateContent of any model. */
interface Match {
  model?: string
  method?: GeminiMethod
}

export type Behaviour = Match &
  (
    | {
        kind: 'reply'
        /** The answer's text; by default a fixed sentence, or for a JSON answer with a schema, an instance of it; none when function calls are scripted. */
        text?: string
        functionCalls?: FunctionCallSpec[]
        /** A thought summary part (`thought: true`) before the answer, as with `includeThoughts`. */
        thought?: string
        usage?: Partial<GeminiUsageSpec>
        /** Streams: every chunk before the last carries a running usageMetadata too, as some models send. */
        runningUsage?: boolean
        /** `STOP` unless set (Google has no finish reason for function calls). */
        finishReason?: string
        /** Google Search grounding ran these queries: groundingMetadata on the (last) candidate. */
        webSearchQueries?: string[]
        /** The prompt was blocked: no candidates, `promptFeedback.blockReason` (e.g. `SAFETY`), prompt usage only. */
        blockReason?: string
      }
    /** An error before the first byte: Google's body for the status unless `body` is given; a 429 carries RetryInfo (`retryDelay`, default `17s`). */
    | { kind: 'status'; status: number; message?: string; retryDelay?: string; body?: unknown; headers?: Record<string, string> }
    /**
     * Streams: 200, `afterChunks` text chunks, then Google's error object as a chunk of its own
     * (`error-event`) or a cut connection (`drop`). Not streamed: half of the JSON body, then a cut.
     */
    | { kind: 'fail-mid-stream'; afterChunks: number; mode: 'error-event' | 'drop'; status?: number }
    | { kind: 'delay'; ms: number; then?: Behaviour }
  )

export interface FakeGemini {
  /** Origin without a version (what `GOOGLE_GEMINI_BASE_URL` and the SDK's `httpOptions.baseUrl` take). */
  url: string
  /** Base URL of Google's OpenAI layer: `${url}/v1beta/openai`. */
  openaiUrl: string
  /** The only key accepted. */
  apiKey: string
  /** Every request, in order, recorded before it is answered (refused ones included; the OpenAI layer's too). */
  received: ReceivedRequest[]
  /**
   * Queues behaviours; a request takes the first whose `model` and `method` match it (a behaviour
   * without `method` is for generateContent and streamGenerateContent). None matching means a reply.
   */
  script(...behaviours: Behaviour[]): void
  /** The fake OpenAI server behind `/v1beta/openai` (Gemini's quirks on): script it and read what it received (its paths are `/v1/…`). */
  openai: FakeOpenAI
  close(): Promise<void>
}

const DEFAULT_TEXT = 'Hello from the fake Gemini.'
const DEFAULT_USAGE: GeminiUsageSpec = {
  promptTokenCount: 12,
  cachedContentTokenCount: 0,
  candidatesTokenCount: 6,
  thoughtsTokenCount: 0,
  toolUsePromptTokenCount: 0,
}
/** Google's current models, those Gemini CLI 0.61 calls among them (pro, flash, the router's flash-lite), and an embedding model. */
export const DEFAULT_GEMINI_MODELS = [
  'gemini-2.5-pro',
  'gemini-2.5-flash',
  'gemini-2.5-flash-lite',
  'gemini-3.1-pro-preview',
  'gemini-3.1-pro-preview-customtools',
  'gemini-3.5-flash',
  'gemini-3.8-flash',
  'gemini-3.5-flash-lite',
  'gemini-embedding-001',
]
const DEFAULT_EMBEDDING_DIMENSIONS = 8
/** Google's default page of `GET models`. */
const MODELS_PAGE = 50
/** The sentinel Google documents for replaying function calls whose signature was lost. */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator'

const DEFAULT_MESSAGES: Record<number, string> = {
  400: 'Request contains an invalid argument.',
  401: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
  403: 'The caller does not have permission',
  429: 'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
  500: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  503: 'The model is overloaded. Please try again later.',
  504: 'Deadline expired before operation could complete.',
}

const GENERATE_FIELDS = new Set([
  'model',
  'contents',
  'systemInstruction',
  'tools',
  'toolConfig',
  'safetySettings',
  'generationConfig',
  'cachedContent',
  'labels',
  'serviceTier',
  'store',
  'continuationToken',
])
const GENERATION_CONFIG_FIELDS = new Set([
  'temperature',
  'topP',
  'topK',
  'candidateCount',
  'maxOutputTokens',
  'stopSequences',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'presencePenalty',
  'frequencyPenalty',
  'seed',
  'responseLogprobs',
  'logprobs',
  'thinkingConfig',
  'responseModalities',
  'mediaResolution',
  'speechConfig',
  'imageConfig',
  'enableEnhancedCivicAnswers',
  'enableAffectiveDialog',
])
const TOOL_FIELDS = new Set([
  'functionDeclarations',
  'googleSearch',
  'googleSearchRetrieval',
  'codeExecution',
  'urlContext',
  'fileSearch',
  'googleMaps',
  'computerUse',
])
/** Exactly one of these makes a part (Google's oneof `data`); the others ride along. */
const PART_DATA = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult']
const PART_EXTRAS = new Set(['thought', 'thoughtSignature', 'videoMetadata', 'mediaResolution', 'partMetadata'])
/** Fields of Google's `Schema` (a function's `parameters`); full JSON Schema goes in `parametersJsonSchema` instead. */
const SCHEMA_FIELDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'items',
  'minItems',
  'maxItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'propertyOrdering',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'example',
  'anyOf',
  'default',
])
const FUNCTION_MODES = new Set(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'])

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v)
const randomId = () => randomBytes(16).toString('base64url')
/** Google's paths name fields in snake_case. */
const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

interface GoogleError {
  error: { code: number; message: string; status: string; details?: unknown[] }
}

const googleError = (code: number, message: string, details?: unknown[]): GoogleError => ({
  error: { code, message, status: GOOGLE_STATUS[code] ?? 'UNKNOWN', ...(details ? { details } : {}) },
})

/** No key at all: Google cannot tell who calls. */
const NO_KEY = googleError(
  403,
  "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
)
/** An API key sent as a bearer token: Google takes bearer tokens for OAuth only. */
const BEARER_NOT_OAUTH = googleError(401, DEFAULT_MESSAGES[401], [
  {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: 'ACCESS_TOKEN_TYPE_UNSUPPORTED',
    domain: 'googleapis.com',
    metadata: { method: 'google.ai.generativelanguage.v1beta.GenerativeService.GenerateContent', service: 'generativelanguage.googleapis.com' },
  },
])

/** "Unknown name" as Google words it, with the BadRequest detail it carries. */
function unknownName(name: string, at?: string): GoogleError {
  const message = `Invalid JSON payload received. Unknown name "${name}"${at ? ` at '${at}'` : ''}: Cannot find field.`
  return googleError(400, message, [
    { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ ...(at ? { field: at } : {}), description: message }] },
  ])
}

const invalid = (message: string) => googleError(400, message)

const notFound = (model: string, method: string, version: string) =>
  googleError(
    404,
    `models/${model} is not found for API version ${version}, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`,
  )

/** Google's error for a status, 429 with its quota, help and retry details. */
function statusError(b: Extract<Behaviour, { kind: 'status' }>, model: string): GoogleError {
  const message = b.message ?? DEFAULT_MESSAGES[b.status] ?? (b.status === 404 ? `models/${model} is not found.` : `Request failed with status ${b.status}.`)
  if (b.status !== 429) return googleError(b.status, message)
  return googleError(429, message, [
    {
      '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
      violations: [
        {
          quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
          quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
          quotaDimensions: { location: 'global', model },
          quotaValue: '2',
        },
      ],
    },
    {
      '@type': 'type.googleapis.com/google.rpc.Help',
      links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }],
    },
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: b.retryDelay ?? '17s' },
  ])
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body, null, 2)
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': String(Buffer.byteLength(text)), ...headers })
  res.end(text)
}

/** The first unknown key of `obj` as Google refuses it, or null. */
function unknownKey(obj: Record<string, unknown>, known: Set<string>, at?: string): GoogleError | null {
  const extra = Object.keys(obj).find((k) => !known.has(k))
  return extra === undefined ? null : unknownName(extra, at)
}

/** One content (a turn or the system instruction): parts present, each with exactly one kind of data. */
function checkContent(c: unknown, where: string, rpc: string): GoogleError | null {
  if (!isObject(c)) return invalid(`* ${rpc}.${where}: must be an object`)
  const extra = unknownKey(c, new Set(['role', 'parts']), snake(where))
  if (extra) return extra
  if (!Array.isArray(c.parts) || c.parts.length === 0) return invalid(`* ${rpc}.${where}.parts: contents.parts must not be empty.\n`)
  for (const [j, p] of c.parts.entries()) {
    const at = `${where}.parts[${j}]`
    if (!isObject(p)) return invalid(`* ${rpc}.${at}: must be an object`)
    const odd = Object.keys(p).find((k) => !PART_DATA.includes(k) && !PART_EXTRAS.has(k))
    if (odd) return unknownName(odd, snake(at))
    if (PART_DATA.filter((k) => p[k] !== undefined).length !== 1) {
      return invalid(`* ${rpc}.${at}.data: required oneof field 'data' must have one initialized field\n`)
    }
    if (p.functionCall !== undefined && (!isObject(p.functionCall) || typeof p.functionCall.name !== 'string' || p.functionCall.name === '')) {
      return invalid(`* ${rpc}.${at}.function_call.name: Name cannot be empty.\n`)
    }
    if (p.functionResponse !== undefined && (!isObject(p.functionResponse) || typeof p.functionResponse.name !== 'string' || p.functionResponse.name === '')) {
      return invalid(`* ${rpc}.${at}.function_response.name: Name cannot be empty.\n`)
    }
  }
  return null
}

const calls = (c: Record<string, any>) => (c.parts as Array<Record<string, any>>).filter((p) => p.functionCall !== undefined)
const responses = (c: Record<string, any>) => (c.parts as Array<Record<string, any>>).filter((p) => p.functionResponse !== undefined)

/**
 * Google's function-call protocol: a model turn calling functions follows a user turn (or a turn
 * of function responses), and the next turn answers each call with a function response.
 */
function checkTurns(contents: Array<Record<string, any>>, signatures: Set<string> | null): GoogleError | null {
  for (const [i, c] of contents.entries()) {
    const role = c.role ?? 'user'
    if (role !== 'user' && role !== 'model') return invalid('Please use a valid role: user, model.')
    if (calls(c).length > 0 && role !== 'model')
      return invalid(`* GenerateContentRequest.contents[${i}]: function_call parts are only allowed in model turns.\n`)
    if (responses(c).length > 0) {
      const previous = contents[i - 1]
      if (!previous || previous.role !== 'model' || calls(previous).length === 0) {
        return invalid('Please ensure that function response turn comes immediately after a function call turn.')
      }
      if (responses(c).length !== calls(previous).length) {
        return invalid('Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.')
      }
    }
    if (role === 'model' && calls(c).length > 0) {
      const previous = contents[i - 1]
      if (!previous || (previous.role ?? 'user') !== 'user') {
        return invalid('Please ensure that function call turn comes immediately after a user turn or after a function response turn.')
      }
      const next = contents[i + 1]
      if (next && responses(next).length === 0) return invalid('Please ensure that function response turn comes immediately after a function call turn.')
      const first = calls(c)[0]
      if (signatures && first.thoughtSignature !== SKIP_SIGNATURE && !signatures.has(first.thoughtSignature)) {
        return invalid(
          `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${first.functionCall.name}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
        )
      }
    }
  }
  return null
}

/** The first keyword of a `parameters` schema Google's Schema lacks, refused with where it is. */
function unknownSchemaKey(schema: unknown, at: string): GoogleError | null {
  if (!isObject(schema)) return null
  const extra = unknownKey(schema, SCHEMA_FIELDS, at)
  if (extra) return extra
  const inner = [
    ...Object.entries(isObject(schema.properties) ? schema.properties : {}).map(([name, p]) => unknownSchemaKey(p, `${at}.properties[${name}].value`)),
    unknownSchemaKey(schema.items, `${at}.items`),
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []).map((s, i) => unknownSchemaKey(s, `${at}.any_of[${i}]`)),
  ]
  return inner.find((e) => e !== null) ?? null
}

function checkTools(body: Record<string, any>): GoogleError | null {
  if (body.tools === undefined) return null
  if (!Array.isArray(body.tools))
    return invalid(`Invalid value at 'tools' (type.googleapis.com/google.ai.generativelanguage.v1beta.Tool), ${JSON.stringify(body.tools)}`)
  for (const [i, tool] of body.tools.entries()) {
    if (!isObject(tool)) return invalid(`Invalid value at 'tools[${i}]'`)
    const extra = unknownKey(tool, TOOL_FIELDS, `tools[${i}]`)
    if (extra) return extra
    for (const [j, f] of (Array.isArray(tool.functionDeclarations) ? tool.functionDeclarations : []).entries()) {
      if (!isObject(f) || typeof f.name !== 'string' || !/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/.test(f.name)) {
        return invalid(
          `* GenerateContentRequest.tools[${i}].function_declarations[${j}].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 128.\n`,
        )
      }
      const where = `tools[${i}].function_declarations[${j}]`
      const extra = unknownKey(f, new Set(['name', 'description', 'parameters', 'parametersJsonSchema', 'response', 'responseJsonSchema', 'behavior']), where)
      if (extra) return extra
      if (f.parameters !== undefined && f.parametersJsonSchema !== undefined) {
        return invalid(`* GenerateContentRequest.${where}: parameters and parameters_json_schema cannot both be set.\n`)
      }
      const odd = unknownSchemaKey(f.parameters, `${where}.parameters`)
      if (odd) return odd
    }
  }
  const mode = body.toolConfig?.functionCallingConfig?.mode
  if (mode !== undefined && !FUNCTION_MODES.has(mode)) {
    return invalid(
      `Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "${mode}"`,
    )
  }
  return null
}

/** What Google refuses about a generateContent body (also the `generateContentRequest` of a count), or null. */
function validateGenerate(body: unknown, signatures: Set<string> | null, rpc = 'GenerateContentRequest'): GoogleError | null {
  if (!isObject(body)) return invalid('Invalid JSON payload received. Expected an object.')
  const extra = unknownKey(body, GENERATE_FIELDS)
  if (extra) return extra
  if (body.generationConfig !== undefined) {
    if (!isObject(body.generationConfig)) return invalid(`Invalid value at 'generation_config'`)
    const odd = unknownKey(body.generationConfig, GENERATION_CONFIG_FIELDS, 'generation_config')
    if (odd) return odd
  }
  if (!Array.isArray(body.contents) || body.contents.length === 0) return invalid(`* ${rpc}.contents: contents is not specified\n`)
  for (const [i, c] of body.contents.entries()) {
    const bad = checkContent(c, `contents[${i}]`, rpc)
    if (bad) return bad
  }
  if (body.systemInstruction !== undefined) {
    const bad = checkContent(body.systemInstruction, 'systemInstruction', rpc)
    if (bad) return bad
  }
  return checkTurns(body.contents, signatures) ?? checkTools(body)
}

/**
 * The fake's token count for a prompt: one per 4 characters of its contents, system instruction
 * and tools as JSON, plus 3. Deterministic, so a test can tell it from the gateway's estimate.
 */
export function fakeGeminiTokenCount(body: { contents?: unknown; systemInstruction?: unknown; tools?: unknown }): number {
  return 3 + Math.ceil(JSON.stringify([body.contents ?? null, body.systemInstruction ?? null, body.tools ?? null]).length / 4)
}

/** A value of the schema a JSON answer was asked for (OpenAPI's `OBJECT` or JSON Schema's `object`), as structured output returns one. */
function instanceOf(schema: unknown): unknown {
  if (!isObject(schema)) return null
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  switch (String(schema.type).toLowerCase()) {
    case 'object':
      return Object.fromEntries(Object.entries(isObject(schema.properties) ? schema.properties : {}).map(([k, v]) => [k, instanceOf(v)]))
    case 'array':
      return []
    case 'string':
      return 'fake'
    case 'integer':
    case 'number':
      return schema.minimum ?? 1
    case 'boolean':
      return false
    default:
      return null
  }
}

/** The signature this fake gives the first function call of an answer (or its text, after a thought). */
export const geminiSignatureOf = (seed: string) => Buffer.from(`sig:${seed}`).toString('base64')

type Reply = Extract<Behaviour, { kind: 'reply' }>

/** The answer's parts: thought, text, function calls, signed where Gemini signs. */
function replyParts(b: Reply, body: Record<string, any>, issue: (seed: string) => string): Array<Record<string, unknown>> {
  const parts: Array<Record<string, unknown>> = []
  if (b.thought !== undefined) parts.push({ text: b.thought, thought: true })
  const config = body.generationConfig ?? {}
  const schema = config.responseJsonSchema ?? config.responseSchema
  const fallback = config.responseMimeType === 'application/json' && schema !== undefined ? JSON.stringify(instanceOf(schema)) : DEFAULT_TEXT
  const text = b.text ?? (b.functionCalls ? undefined : fallback)
  if (text !== undefined) parts.push({ text })
  for (const [i, call] of (b.functionCalls ?? []).entries()) {
    const functionCall = { ...(call.id !== undefined ? { id: call.id } : {}), name: call.name, args: call.args }
    parts.push({ functionCall, ...(i === 0 ? { thoughtSignature: issue(`${call.name}:${randomId()}`) } : {}) })
  }
  // With thinking on and no calls, the signature rides on the last part of the answer.
  if (b.thought !== undefined && !b.functionCalls?.length && text !== undefined) parts[parts.length - 1].thoughtSignature = issue(randomId())
  return parts
}

function usageMetadata(spec: GeminiUsageSpec) {
  const total = spec.promptTokenCount + spec.candidatesTokenCount + spec.thoughtsTokenCount + spec.toolUsePromptTokenCount
  const text = (tokenCount: number) => [{ modality: 'TEXT', tokenCount }]
  return {
    promptTokenCount: spec.promptTokenCount,
    candidatesTokenCount: spec.candidatesTokenCount,
    totalTokenCount: total,
    ...(spec.cachedContentTokenCount ? { cachedContentTokenCount: spec.cachedContentTokenCount } : {}),
    promptTokensDetails: text(spec.promptTokenCount),
    ...(spec.cachedContentTokenCount ? { cacheTokensDetails: text(spec.cachedContentTokenCount) } : {}),
    ...(spec.thoughtsTokenCount ? { thoughtsTokenCount: spec.thoughtsTokenCount } : {}),
    ...(spec.toolUsePromptTokenCount
      ? { toolUsePromptTokenCount: spec.toolUsePromptTokenCount, toolUsePromptTokensDetails: text(spec.toolUsePromptTokenCount) }
      : {}),
  }
}

function groundingMetadata(queries: string[]) {
  return {
    webSearchQueries: queries,
    searchEntryPoint: { renderedContent: `<div class="container">${queries.map((q) => `<a class="chip">${q}</a>`).join('')}</div>` },
    groundingChunks: queries.map((q, i) => ({
      web: { uri: `https://vertexaisearch.cloud.google.com/grounding-api-redirect/fake${i}`, title: `${q}.example` },
    })),
    groundingSupports: [],
  }
}

/** One response object: the candidate's parts, and what only the last chunk of a stream carries when `last`. */
function responseObject(
  model: string,
  responseId: string,
  parts: Array<Record<string, unknown>>,
  b: Reply,
  usage: GeminiUsageSpec | null,
  last: boolean,
): Record<string, unknown> {
  const candidate = {
    content: { parts, role: 'model' },
    ...(last ? { finishReason: b.finishReason ?? 'STOP' } : {}),
    ...(last && b.webSearchQueries ? { groundingMetadata: groundingMetadata(b.webSearchQueries) } : {}),
    index: 0,
  }
  return { candidates: [candidate], ...(usage ? { usageMetadata: usageMetadata(usage) } : {}), modelVersion: model, responseId }
}

/** A prompt refused before any answer: no candidates, the reason in promptFeedback. */
const blocked = (model: string, responseId: string, blockReason: string, usage: GeminiUsageSpec) => ({
  promptFeedback: { blockReason },
  usageMetadata: usageMetadata({ ...usage, candidatesTokenCount: 0, thoughtsTokenCount: 0 }),
  modelVersion: model,
  responseId,
})

/** The stream's chunks: one per thought, text piece and function call; finish reason and usage on the last. */
function replyChunks(model: string, b: Reply, body: Record<string, any>, issue: (seed: string) => string): Array<Record<string, unknown>> {
  const usage = { ...DEFAULT_USAGE, ...b.usage }
  const responseId = randomId()
  if (b.blockReason !== undefined) return [blocked(model, responseId, b.blockReason, usage)]
  const pieces = replyParts(b, body, issue).flatMap((p) =>
    typeof p.text === 'string' && p.thoughtSignature === undefined ? contentPieces(p.text).map((text) => ({ ...p, text })) : [p],
  )
  return pieces.map((part, i) => {
    const last = i === pieces.length - 1
    const running = { ...usage, candidatesTokenCount: Math.floor((usage.candidatesTokenCount * (i + 1)) / pieces.length) }
    return responseObject(model, responseId, [part], b, last ? usage : b.runningUsage ? running : null, last)
  })
}

/** How a stream's chunks are framed: SSE events (`alt=sse`), or the elements of one JSON array. */
class ChunkWriter {
  private count = 0

  constructor(
    private readonly res: ServerResponse,
    private readonly sse: boolean,
  ) {
    res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json; charset=UTF-8' })
    res.flushHeaders()
  }

  chunk(data: unknown) {
    if (this.sse) this.res.write(`data: ${JSON.stringify(data)}\n\n`)
    // Google separates the array's elements with a comma on a line of its own.
    else this.res.write(`${this.count === 0 ? '[' : '\n,\r\n'}${JSON.stringify(data, null, 2)}`)
    this.count++
  }

  end() {
    if (!this.sse) this.res.write(this.count === 0 ? '[]' : '\n]')
    this.res.end()
  }
}

/** Closes the connection after what was written, without ending the HTTP body. */
function drop(res: ServerResponse): void {
  if (res.socket) res.socket.destroySoon()
  else res.destroy()
}

export async function startFakeGemini(
  opts: {
    apiKey?: string
    models?: string[]
    /** Gemini 3: a replayed model turn whose first function call lacks a signature this fake issued (or the skip sentinel) is a 400. */
    thoughtSignatures?: boolean
  } = {},
): Promise<FakeGemini> {
  const apiKey = opts.apiKey ?? `AIzaFake${randomBytes(16).toString('hex')}`
  const models = opts.models ?? DEFAULT_GEMINI_MODELS
  const received: ReceivedRequest[] = []
  const queue: Behaviour[] = []
  const issued = new Set<string>()
  const issue = (seed: string) => {
    const sig = geminiSignatureOf(seed)
    issued.add(sig)
    return sig
  }
  const openai = await startFakeOpenAI({
    apiKey,
    models,
    quirks: { toolCallsWithoutIndex: true, stopWithToolCalls: true, errorsAsArray: true, thoughtSignatures: true, strictToolSchemas: true, modelsPrefix: true },
  })

  const take = (model: string, method: GeminiMethod): Behaviour => {
    const generating = method === 'generateContent' || method === 'streamGenerateContent'
    const i = queue.findIndex((b) => (b.model === undefined || b.model === model) && (b.method === undefined ? generating : b.method === method))
    return i < 0 ? { kind: 'reply' } : queue.splice(i, 1)[0]
  }

  const modelObject = (id: string) => {
    const embedding = id.includes('embedding')
    return {
      name: `models/${id}`,
      version: '001',
      displayName: id,
      description: `The fake ${id}.`,
      inputTokenLimit: embedding ? 2048 : 1_048_576,
      outputTokenLimit: embedding ? 1 : 65_536,
      supportedGenerationMethods: embedding
        ? ['embedContent', 'countTextTokens', 'countTokens', 'asyncBatchEmbedContent']
        : ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'],
      ...(embedding ? {} : { temperature: 1, topP: 0.95, topK: 64, maxTemperature: 2, thinking: true }),
    }
  }
  const supports = (model: string, method: GeminiMethod) => {
    if (!models.includes(model)) return false
    const methods: string[] = modelObject(model).supportedGenerationMethods
    return methods.includes(method === 'streamGenerateContent' ? 'generateContent' : method === 'batchEmbedContents' ? 'embedContent' : method)
  }

  /** Google's OpenAI layer: the request goes on to the fake OpenAI server as `/v1/…`. */
  function toOpenAI(req: IncomingMessage, res: ServerResponse, rest: string, body: Buffer) {
    const upstream = new URL(openai.url)
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, path: `/v1${rest}`, method: req.method, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    forward.on('error', () => res.destroy())
    res.on('close', () => forward.destroy())
    forward.end(body)
  }

  function answer(res: ServerResponse, b: Behaviour, model: string, method: GeminiMethod, body: Record<string, any>, sse: boolean) {
    if (res.destroyed) return
    switch (b.kind) {
      case 'delay': {
        const timer = setTimeout(() => answer(res, b.then ?? { kind: 'reply' }, model, method, body, sse), b.ms)
        res.on('close', () => clearTimeout(timer))
        return
      }
      case 'status':
        return sendJson(res, b.status, b.body ?? statusError(b, model), b.headers)
      case 'fail-mid-stream': {
        const chunks = replyChunks(
          model,
          { kind: 'reply', text: Array.from({ length: b.afterChunks + 1 }, (_, i) => `Partial ${i + 1}.`).join(' ') },
          body,
          issue,
        )
        if (method !== 'streamGenerateContent') {
          const text = JSON.stringify(responseObject(model, randomId(), [{ text: DEFAULT_TEXT }], { kind: 'reply' }, DEFAULT_USAGE, true))
          res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': String(Buffer.byteLength(text)) })
          res.write(text.slice(0, text.length >> 1))
          return drop(res)
        }
        const w = new ChunkWriter(res, sse)
        for (const chunk of chunks.slice(0, b.afterChunks)) w.chunk(chunk)
        if (b.mode === 'drop') return drop(res)
        const status = b.status ?? 503
        w.chunk(googleError(status, DEFAULT_MESSAGES[status] ?? 'Error'))
        return w.end()
      }
      case 'reply': {
        if (method === 'generateContent') {
          const usage = { ...DEFAULT_USAGE, ...b.usage }
          if (b.blockReason !== undefined) return sendJson(res, 200, blocked(model, randomId(), b.blockReason, usage))
          return sendJson(res, 200, responseObject(model, randomId(), replyParts(b, body, issue), b, usage, true))
        }
        const w = new ChunkWriter(res, sse)
        for (const chunk of replyChunks(model, b, body, issue)) w.chunk(chunk)
        return w.end()
      }
    }
  }

  function embed(res: ServerResponse, model: string, body: Record<string, any>, batch: boolean) {
    const rpc = batch ? 'BatchEmbedContentsRequest' : 'EmbedContentRequest'
    const requests: unknown[] = batch ? body.requests : [body]
    if (batch) {
      const extra = unknownKey(body, new Set(['requests']))
      if (extra) return sendJson(res, 400, extra)
      if (!Array.isArray(requests) || requests.length === 0) return sendJson(res, 400, invalid(`* ${rpc}.requests: requests is not specified\n`))
    }
    const vectors: number[][] = []
    for (const [i, r] of requests.entries()) {
      const at = batch ? `requests[${i}]` : ''
      if (!isObject(r)) return sendJson(res, 400, invalid(`* ${rpc}.${at}: must be an object`))
      const extra = unknownKey(r, new Set(['model', 'content', 'taskType', 'title', 'outputDimensionality']), at || undefined)
      if (extra) return sendJson(res, 400, extra)
      if (batch && r.model !== `models/${model}`) {
        return sendJson(
          res,
          400,
          invalid(`* ${rpc}.${at}.model: Model in the request (${String(r.model)}) does not match the model in the URL (models/${model}).\n`),
        )
      }
      const bad = checkContent(r.content, at ? `${at}.content` : 'content', rpc)
      if (bad) return sendJson(res, 400, bad)
      const text = (r.content.parts as Array<Record<string, unknown>>).map((p) => (typeof p.text === 'string' ? p.text : '')).join('')
      vectors.push(fakeEmbedding(text, r.outputDimensionality ?? DEFAULT_EMBEDDING_DIMENSIONS))
    }
    sendJson(res, 200, batch ? { embeddings: vectors.map((values) => ({ values })) } : { embedding: { values: vectors[0] } })
  }

  function count(res: ServerResponse, body: Record<string, any>) {
    const extra = unknownKey(body, new Set(['contents', 'generateContentRequest']))
    if (extra) return sendJson(res, 400, extra)
    const request = body.generateContentRequest ?? { contents: body.contents }
    const refused = validateGenerate(request, null, body.generateContentRequest ? 'CountTokensRequest.generate_content_request' : 'CountTokensRequest')
    if (refused) return sendJson(res, 400, refused)
    const totalTokens = fakeGeminiTokenCount(request)
    sendJson(res, 200, { totalTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: totalTokens }] })
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = []
    const method = req.method ?? 'GET'
    const path = req.url ?? '/'
    const url = new URL(path, 'http://fake')
    const pathname = decodeURIComponent(url.pathname)
    if (pathname.startsWith('/v1beta/openai/')) {
      for await (const c of req) chunks.push(c as Buffer)
      const raw = Buffer.concat(chunks)
      let body: unknown = raw.toString('utf8')
      try {
        body = JSON.parse(body as string)
      } catch {
        // Recorded as sent; the OpenAI fake answers what it makes of it.
      }
      received.push({ method, path, headers: req.headers, body: raw.length ? body : null, text: raw.toString('utf8') })
      return toOpenAI(req, res, pathname.slice('/v1beta/openai'.length), raw)
    }

    const { body, text, malformed } = await readBody(req)
    received.push({ method, path, headers: req.headers, body, text })

    const header = req.headers['x-goog-api-key']
    const key = typeof header === 'string' && header !== '' ? header : url.searchParams.get('key')
    if (!key) return sendJson(res, req.headers.authorization ? 401 : 403, req.headers.authorization ? BEARER_NOT_OAUTH : NO_KEY)
    if (key !== apiKey) return sendJson(res, 400, GEMINI_KEY_INVALID[0])
    if (malformed) return sendJson(res, 400, invalid(`Invalid JSON payload received. Unexpected token.\n${String(body).slice(0, 40)}\n^`))

    const route = /^\/(v1beta|v1)\/models(?:\/([^:]+)(?::(\w+))?)?$/.exec(pathname)
    if (!route) return sendJson(res, 404, googleError(404, `Method not found: ${method} ${pathname}`))
    const [, version, model, rpc] = route
    if (method === 'GET' && rpc === undefined) {
      if (model !== undefined)
        return models.includes(model) ? sendJson(res, 200, modelObject(model)) : sendJson(res, 404, googleError(404, `models/${model} is not found.`))
      const size = Number(url.searchParams.get('pageSize') ?? MODELS_PAGE)
      const from = Number(url.searchParams.get('pageToken') ?? 0)
      const page = models.slice(from, from + size)
      const next = from + size < models.length ? { nextPageToken: String(from + size) } : {}
      return sendJson(res, 200, { models: page.map(modelObject), ...next })
    }
    const rpcs: GeminiMethod[] = ['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents']
    const found = rpcs.find((r) => r === rpc)
    if (method !== 'POST' || model === undefined || !found) return sendJson(res, 404, googleError(404, `Method not found: ${method} ${pathname}`))
    if (!supports(model, found)) return sendJson(res, 404, notFound(model, found, version))
    const json: Record<string, any> = isObject(body) ? body : {}
    if (found === 'countTokens' || found === 'embedContent' || found === 'batchEmbedContents') {
      const b = take(model, found)
      if (b.kind !== 'reply') return answer(res, b, model, found, json, false)
      return found === 'countTokens' ? count(res, json) : embed(res, model, json, found === 'batchEmbedContents')
    }
    const refused = validateGenerate(body, opts.thoughtSignatures ? issued : null)
    if (refused) return sendJson(res, 400, refused)
    answer(res, take(model, found), model, found, json, url.searchParams.get('alt') === 'sse')
  }

  const { port, close } = await listenOnLoopback(handle, (res, err) => sendJson(res, 500, googleError(500, `fake-gemini crashed: ${String(err)}`)))
  const url = `http://127.0.0.1:${port}`
  return {
    url,
    openaiUrl: `${url}/v1beta/openai`,
    apiKey,
    received,
    script: (...behaviours) => {
      queue.push(...behaviours)
    },
    openai,
    async close() {
      await close()
      await openai.close()
    },
  }
}
