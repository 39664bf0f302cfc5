/**
 * Hostile input against the routes a client can reach: random, truncated and invalid JSON, wrong
 * types for every known field, huge strings, deep nesting, numbers JSON cannot hold, odd content
 * types, headers and cookies, unknown operations. Every answer must be below 500, carry
 * x-request-id and, when it is an error, have its route's documented shape; the gateway must
 * still answer /healthz at the end. The fake provider stays healthy, so any 5xx is the gateway's.
 *
 * Seeded: GW_FUZZ_SEED=<n> replays a run, GW_FUZZ_CASES=<n> sets its length (default 3000),
 * GW_FUZZ_FIRST=<i> starts it at case i (GW_FUZZ_FIRST=i GW_FUZZ_CASES=1 replays one case).
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { rawRequest, type RawResponse } from '../support/rawHttp'
import { startTestGateway, type TestGateway } from '../support/harness'
import { SESSION_COOKIE } from '../../src/gateway/http/api/routes'
import { operations } from '../../src/contract'

const SEED = Number(process.env.GW_FUZZ_SEED ?? 0x15eed)
const CASES = Number(process.env.GW_FUZZ_CASES ?? 3000)
const FIRST = Number(process.env.GW_FUZZ_FIRST ?? 0)
const CONCURRENCY = Number(process.env.GW_FUZZ_CONCURRENCY ?? 6)
const BODY_LIMIT = 2 * 1024 * 1024

/** mulberry32: small, fast and the same on every platform. */
function prng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

class Gen {
  private readonly next: () => number
  /** Raw JSON text to splice in where a placeholder string stands (numbers JSON.stringify cannot write, deep nesting). */
  readonly raw: string[] = []
  constructor(seed: number) {
    this.next = prng(seed)
  }
  int = (n: number) => Math.floor(this.next() * n)
  chance = (p: number) => this.next() < p
  pick = <T>(xs: readonly T[]): T => xs[this.int(xs.length)]

  string(max = 40): string {
    const alphabets = ['abcxyz', 'ABC019 _-./', '"\\\'`{}[]:,', '\u0000\u0001\u001f\u007f\t\r\n', 'éü日本🙂\u202e\ufeff', '\ud800\udfff']
    let s = ''
    for (let n = this.int(max); n > 0; n--) s += this.pick([...this.pick(alphabets)])
    return s
  }

  /** A number as JSON text, including ones that overflow or lose precision. */
  numberText(): string {
    return this.pick([
      '0',
      '-0',
      '1',
      '-1',
      '0.5',
      '1e308',
      '1e999',
      '-1e999',
      '1e-999',
      '123456789012345678901234567890',
      '9007199254740993',
      '2.5e-324',
      '1E400',
      '-0.0e0',
    ])
  }

  hostileNumber(): string {
    return this.placeholder(this.pick(['1e999', '-1e999', '1E400', '-1e400']))
  }

  deep(): string {
    const depth = this.pick([64, 500, 1000, 3000, 5000])
    const [open, close] = this.chance(0.5) ? ['[', ']'] : ['{"a":', '}']
    return this.placeholder(`${open.repeat(depth)}1${close.repeat(depth)}`)
  }

  placeholder(text: string): string {
    this.raw.push(text)
    return `\u0000RAW${this.raw.length - 1}\u0000`
  }

  value(depth = 0): unknown {
    switch (this.int(depth > 2 ? 6 : 9)) {
      case 0:
        return null
      case 1:
        return this.chance(0.5)
      case 2:
        return this.placeholder(this.numberText())
      case 3:
        return this.string()
      case 4:
        return this.int(1000) - 500
      case 5:
        return this.pick(['', 'user', 'system', 'assistant', 'tool', 'gpt-4o-mini', 'auto', 'none', 'json_object'])
      case 6:
        return Array.from({ length: this.int(4) }, () => this.value(depth + 1))
      case 7:
        return Object.fromEntries(
          Array.from({ length: this.int(4) }, () => [
            this.pick(['a', 'type', 'text', 'role', 'content', '__proto__', 'constructor', this.string(8)]),
            this.value(depth + 1),
          ]),
        )
      default:
        return this.chance(0.5) ? this.hostileNumber() : this.deep()
    }
  }

  hugeString(): string {
    return this.pick(['x', 'é', '🙂', 'ab"\\']).repeat(this.pick([10_000, 100_000, 600_000]))
  }
}

/** Models that keep every call on the healthy fake or refuse it before any provider (404), never on an unconfigured provider (503). */
const modelChoice = (g: Gen) =>
  g.pick<unknown>([
    'gpt-4o-mini',
    'openai/gpt-4o-mini',
    `openai/zz-${g.string(10)}`,
    `zz-unknown-${g.string(6)}`,
    `policy/${g.string(6)}`,
    `@preset/${g.string(6)}`,
    '',
    g.value(),
  ])

const CHAT_FIELDS: Record<string, (g: Gen) => unknown> = {
  temperature: (g) => (g.chance(0.5) ? g.int(3) : g.value()),
  top_p: (g) => g.value(),
  max_tokens: (g) => (g.chance(0.5) ? g.int(100) : g.value()),
  max_completion_tokens: (g) => g.value(),
  n: (g) => g.value(),
  stop: (g) => g.pick([['\n'], 'x', g.value()]),
  stream: (g) => g.pick([true, false, g.value()]),
  stream_options: (g) => g.pick([{ include_usage: true }, g.value()]),
  tools: (g) => g.pick([[{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }], [g.value()], g.value()]),
  tool_choice: (g) => g.value(),
  response_format: (g) => g.pick([{ type: 'json_object' }, g.value()]),
  seed: (g) => g.value(),
  user: (g) => g.value(),
  logit_bias: (g) => g.value(),
  metadata: (g) => g.value(),
  gw: (g) => g.pick([{ user_id: g.value(), trace_id: g.value(), session_id: g.value(), tags: g.value(), extra: g.value() }, g.value()]),
}

function message(g: Gen): unknown {
  if (g.chance(0.6)) return { role: 'user', content: g.chance(0.8) ? g.string(30) : g.value() }
  return g.pick([
    { role: g.value(), content: g.value() },
    { role: 'user', content: [{ type: 'text', text: g.value() }, g.value()] },
    { role: 'assistant', content: null, tool_calls: [{ id: g.value(), type: 'function', function: { name: g.value(), arguments: g.value() } }] },
    { role: 'tool', tool_call_id: g.value(), content: g.value() },
    g.value(),
  ])
}

function chatBody(g: Gen): Record<string, unknown> {
  const body: Record<string, unknown> = { model: modelChoice(g), messages: Array.from({ length: 1 + g.int(3) }, () => message(g)) }
  for (const [name, make] of Object.entries(CHAT_FIELDS)) if (g.chance(0.15)) body[name] = make(g)
  if (g.chance(0.1)) body.messages = g.value()
  if (g.chance(0.05)) delete body.messages
  if (g.chance(0.05)) delete body.model
  return body
}

function embeddingsBody(g: Gen): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: g.chance(0.7) ? 'text-embedding-3-small' : modelChoice(g),
    input: g.pick<unknown>([g.string(20), [g.string(10), g.string(10)], [1, 2, 3], [[1, 2], [3]], [], '', g.value()]),
  }
  if (g.chance(0.2)) body.encoding_format = g.pick(['float', 'base64', g.value()])
  if (g.chance(0.2)) body.dimensions = g.value()
  if (g.chance(0.1)) body.user = g.value()
  if (g.chance(0.1)) body.gw = g.value()
  return body
}

/** Operations that would change what the other cases run against (sessions, providers, settings, keys) get no session: they are refused at the door. */
const UNSAFE_OPS = new Set([
  'auth.signOut',
  'providers.set',
  'providers.remove',
  'providers.test',
  'secrets.rotate',
  'settings.update',
  'users.remove',
  'keys.revoke',
  'keys.deleteResponses',
  'keys.update',
  'keys.adjust',
  'keys.topUp',
])
const OP_NAMES = Object.keys(operations)

function apiCase(g: Gen, session: string): { path: string; body: unknown; cookie: string | null } {
  const name = g.chance(0.8)
    ? g.pick(OP_NAMES)
    : g.pick([
        `zz.${g.string(8)}`,
        'x'.repeat(99 + g.int(20)),
        '%2e%2e',
        '%E0%A4%A',
        encodeURIComponent(g.string(12)),
        '__proto__',
        'constructor',
        'toString',
        '',
      ])
  const body = g.chance(0.6)
    ? Object.fromEntries(
        Array.from({ length: g.int(4) }, () => [
          g.pick(['id', 'name', 'model', 'from', 'to', 'by', 'limit', 'password', 'username', 'input', 'cursor', g.string(6)]),
          g.value(),
        ]),
      )
    : g.value()
  const cookie = UNSAFE_OPS.has(name)
    ? null
    : g.pick<string | null>([
        `${SESSION_COOKIE}=${session}`,
        `${SESSION_COOKIE}=${session}`,
        null,
        `${SESSION_COOKIE}=%`,
        `${SESSION_COOKIE}=${g.string(30)}`,
        `a=%; ${SESSION_COOKIE}=%zz`,
        `${SESSION_COOKIE}`,
        ';;;=;',
      ])
  return { path: `/api/${name}`, body, cookie }
}

interface Case {
  path: string
  pieces: Array<string | Buffer>
  /** What the case sends, for the failure report. */
  summary: string
  stalls: boolean
}

/** Serialises a body, then spoils its text the way broken and hostile clients do. */
function bodyBytes(g: Gen, body: unknown): Buffer {
  let text = JSON.stringify(body) ?? 'null'
  if (g.chance(0.05)) text = text.replace(/}$/, `,"${g.pick(['model', 'messages', 'input', '__proto__'])}":${JSON.stringify(g.value())}}`)
  if (g.chance(0.03)) text = text.replace(/}$/, `,"pad":${JSON.stringify(g.hugeString())}}`)
  text = text.replace(/"\\u0000RAW(\d+)\\u0000"/g, (_m, i) => g.raw[Number(i)])
  g.raw.length = 0
  const bytes = Buffer.from(text)
  switch (g.int(30)) {
    case 0:
      return bytes.subarray(0, g.int(bytes.length))
    case 1:
      return Buffer.from(g.pick(['', ' ', 'null', '[]', '"x"', '123', 'true', '{', '}', '{"a":1}{"b":2}', '\ufeff{}', 'nul']))
    case 2: {
      for (let i = 0; i < 1 + g.int(4); i++) bytes[g.int(bytes.length)] = g.int(256)
      return bytes
    }
    case 3:
      return Buffer.concat([bytes.subarray(0, g.int(bytes.length)), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), bytes.subarray(g.int(bytes.length))])
    case 4:
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])
    case 5:
      return Buffer.from(g.string(200))
    default:
      return bytes
  }
}

const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/octet-stream',
  'APPLICATION/JSON',
  'application/json;;',
  '*/*',
  'garbage',
  '',
]

/** Mostly what HTTP allows in a header value (UTF-8 bytes included), now and then a control character it does not. */
function headerValue(g: Gen): string {
  const s = g.string(30).replace(/[\r\n\0]/g, ' ')
  // eslint-disable-next-line no-control-regex -- control characters are what this removes
  return g.chance(0.05) ? s : s.replace(/[\u0001-\u0008\u000b-\u001f\u007f]/g, '_')
}

function makeCase(g: Gen, t: { host: string; key: string; session: string }): Case {
  const route = g.int(100)
  let path: string
  let body: unknown
  let cookie: string | null = null
  if (route < 40) [path, body] = ['/v1/chat/completions', chatBody(g)]
  else if (route < 65) [path, body] = ['/v1/embeddings', embeddingsBody(g)]
  else ({ path, body, cookie } = apiCase(g, t.session))
  if (g.chance(0.03)) path += g.pick(['?', '?a=1&a=2', `?${g.string(20)}`, '#x'])
  const payload = bodyBytes(g, body)

  const headers: string[] = [g.chance(0.98) ? `host: ${t.host}` : g.pick(['host: evil.example', `host: ${g.string(10)}`, ''])]
  if (path.startsWith('/v1') || g.chance(0.1)) {
    if (g.chance(0.85)) headers.push(`authorization: Bearer ${t.key}`)
    else
      headers.push(
        g.pick([
          'authorization: Bearer',
          'authorization: Bearer gw-wrong',
          'authorization: Basic eDp5',
          `authorization: Bearer ${g.string(80).replace(/[\r\n\0]/g, '')}`,
          'authorization: ',
          `x-api-key: ${t.key}`,
        ]),
      )
  }
  const type = g.pick(CONTENT_TYPES)
  if (type) headers.push(`content-type: ${type}`)
  if (cookie !== null) headers.push(`cookie: ${cookie}`)
  for (let i = g.chance(0.2) ? g.int(6) : 0; i > 0; i--) {
    headers.push(
      `x-gw-${g.pick(['user-id', 'trace-id', 'session-id', 'tags', 'team', g.string(10).replace(/[^a-z0-9-]/g, '') || 'x'])}: ${g.chance(0.1) ? 'v'.repeat(3000) : headerValue(g)}`,
    )
  }
  if (g.chance(0.02)) headers.push(`x-filler: ${'f'.repeat(16_500 + g.int(20_000))}`)
  if (g.chance(0.01)) headers.push(g.pick(['bad header: x', 'x-ctl: a\u0001b', ': empty', 'x-dup: 1\r\nx-dup: 2']))
  if (g.chance(0.02)) for (let i = 0; i < 200; i++) headers.push(`x-many-${i}: ${i}`)

  const stalls = g.chance(0.005)
  const chunked = !stalls && g.chance(0.1)
  if (chunked) headers.push('transfer-encoding: chunked')
  else headers.push(`content-length: ${payload.length + (stalls ? 10 : 0)}`)
  headers.push('connection: close')

  // Not HEAD: its answer has no body to check.
  const method = g.chance(0.97) ? 'POST' : g.pick(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'POST\u0001', 'post'])
  const head = `${method} ${path} HTTP/1.1\r\n${headers.filter(Boolean).join('\r\n')}\r\n\r\n`
  const pieces: Array<string | Buffer> = [head]
  if (chunked) {
    for (let at = 0; at < payload.length;) {
      const size = 1 + g.int(Math.max(1, payload.length / 2))
      const part = payload.subarray(at, at + size)
      pieces.push(Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]))
      at += size
    }
    pieces.push('0\r\n\r\n')
  } else pieces.push(payload)
  const summary = `${head.slice(0, 400).replace(/x-filler: f+/, (m) => `x-filler: f×${m.length}`)}${payload.subarray(0, 300).toString('latin1')}${payload.length > 300 ? `… (${payload.length} bytes)` : ''}`
  return { path, pieces, summary, stalls }
}

/** Why an answer breaks the guarantees, or null. */
function violation(c: Case, res: RawResponse): string | null {
  if (res.status >= 500) return `status ${res.status}`
  if (!/^req_/.test(res.headers['x-request-id'] ?? '')) return 'no x-request-id'
  if (c.stalls && res.status < 400) return 'a stalled body was served'
  if (res.status < 400) return null
  let error: Record<string, unknown>
  try {
    error = JSON.parse(res.body).error
  } catch {
    return `error body is not JSON: ${res.body.slice(0, 100)}`
  }
  if (typeof error !== 'object' || error === null) return 'no error object'
  const keys = Object.keys(error).sort().join(',')
  // When Node refuses a request before its request line could be read, the body carries both shapes.
  if (keys === 'code,message,param,status,type' && [400, 408, 431].includes(res.status)) return null
  if (c.path.startsWith('/api/')) {
    const shaped = typeof error.status === 'number' && error.status === res.status && typeof error.code === 'string' && typeof error.message === 'string'
    return shaped && /^code,(field,)?message,status$/.test(keys) ? null : `not the management shape: ${res.body.slice(0, 200)}`
  }
  const shaped = typeof error.message === 'string' && typeof error.type === 'string' && 'param' in error && 'code' in error
  return shaped && keys === 'code,message,param,type' ? null : `not OpenAI's shape: ${res.body.slice(0, 200)}`
}

describe(`fuzz: hostile requests (seed ${SEED}, ${CASES} cases; GW_FUZZ_SEED replays)`, () => {
  let t: TestGateway
  let host: string
  let session: string
  before(async () => {
    t = await startTestGateway({ bodyLimitBytes: BODY_LIMIT, requestTimeout: 1.5, headersTimeout: 1 })
    host = new URL(t.url).host
    const setup = await fetch(`${t.url}/api/auth.setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'owner', password: 'correct horse battery' }),
    })
    assert.equal(setup.status, 200)
    session = /gw_session=([^;]+)/.exec(setup.headers.get('set-cookie') ?? '')![1]
  })
  after(() => t.close())

  it('answers every case below 500, with x-request-id, errors in the route shape', async () => {
    const failures: string[] = []
    const byKind = new Map<string, number>()
    let next = FIRST
    const worker = async () => {
      while (next < FIRST + CASES) {
        const i = next++
        const started = Date.now()
        // Each case draws from its own stream, so one case replays without the ones before it.
        const c = makeCase(new Gen(SEED * 100_003 + i), { host, key: t.key, session })
        let res: RawResponse
        try {
          res = await rawRequest(t.url, c.pieces, { timeoutMs: 30_000 })
        } catch (err) {
          failures.push(`case ${i}: ${(err as Error).message}\n${c.summary}`)
          continue
        }
        if (process.env.GW_FUZZ_TRACE) console.log(`case ${i}: ${res.status} in ${Date.now() - started} ms ${res.status >= 400 ? res.body.slice(0, 160) : ''}`)
        const why = violation(c, res)
        const kind = `${c.path.split('?')[0].startsWith('/api/') ? '/api' : c.path.split('?')[0]} ${res.status}`
        byKind.set(kind, (byKind.get(kind) ?? 0) + 1)
        if (why) failures.push(`case ${i} (${why}):\n${c.summary}\n→ ${res.status} ${res.body.slice(0, 300)}`)
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker))
    const health = await fetch(`${t.url}/healthz`)
    assert.equal(health.status, 200, 'the gateway stopped answering')
    const kinds = [...byKind]
      .sort()
      .map(([k, n]) => `${k}: ${n}`)
      .join(', ')
    assert.equal(
      failures.length,
      0,
      `seed ${SEED} (GW_FUZZ_SEED=${SEED} replays): ${failures.length} of ${CASES} cases broke the guarantees\nstatuses: ${kinds}\n\n${failures.slice(0, 15).join('\n\n')}`,
    )
  })
})
