import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { builtinProviders } from '../../src/gateway/providers/builtin'
import { geminiAdapter } from '../../src/gateway/providers/gemini/adapter'
import { adapterFor } from '../../src/gateway/providers/kinds'
import { dialectOf, quirksOf } from '../../src/gateway/providers/quirks'
import { retryAfterMs } from '../../src/gateway/routing/routingConfig'
import { Redactor } from '../../src/gateway/secrets/redactor'

const KEY = 'AIzaSyD-test-key-0123456789abcdefghij'

/** Google's error body: `{"error": {code, message, status, details}}`. */
const googleError = (code: number, status: string, message: string, details: unknown[] = []) => ({ error: { code, message, status, details } })
const retryInfo = (retryDelay: string) => ({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay })
const keyInvalid = googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
  {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: 'API_KEY_INVALID',
    domain: 'googleapis.com',
    metadata: { service: 'generativelanguage.googleapis.com' },
  },
])

const map = (status: number, body: unknown, headers: Record<string, string> = {}, redactor = new Redactor()) =>
  geminiAdapter.httpError('gemini', status, typeof body === 'string' ? body : JSON.stringify(body), headers, redactor)

describe('the gemini kind: both of Google’s APIs under one base URL and key', () => {
  it('is registered, and the built-in gemini is of it at Google’s version root', () => {
    assert.equal(adapterFor('gemini'), geminiAdapter)
    const builtin = builtinProviders.find((p) => p.id === 'gemini')!
    assert.deepEqual(
      [builtin.kind, builtin.baseUrl, builtin.dialect, builtin.wire],
      ['gemini', 'https://generativelanguage.googleapis.com/v1beta', undefined, undefined],
    )
  })

  it('sends chat completions and embeddings to the OpenAI layer under the base URL, as the openai kind builds them', () => {
    const body = { model: 'gemini-3-flash-preview', messages: [{ role: 'user', content: 'hi' }] }
    assert.deepEqual(geminiAdapter.chatRequest(body, { stream: false, autoCache: false }), { path: 'openai/chat/completions', body })
    const input = { model: 'gemini-embedding-001', input: 'hi' }
    assert.deepEqual(geminiAdapter.embeddingsRequest(input), { path: 'openai/embeddings', body: input })
  })

  it('authenticates the OpenAI layer with a bearer token and the native API with x-goog-api-key', () => {
    assert.deepEqual(geminiAdapter.headers(KEY, 'openai/chat/completions'), { authorization: `Bearer ${KEY}` })
    assert.deepEqual(geminiAdapter.headers(KEY, 'openai/embeddings'), { authorization: `Bearer ${KEY}` })
    assert.deepEqual(geminiAdapter.headers(KEY, 'models/gemini-3-flash-preview:streamGenerateContent?alt=sse'), { 'x-goog-api-key': KEY })
    assert.deepEqual(geminiAdapter.headers(KEY, 'models/gemini-3-flash-preview:countTokens'), { 'x-goog-api-key': KEY })
    assert.deepEqual(geminiAdapter.headers(KEY, geminiAdapter.modelsPath), { 'x-goog-api-key': KEY })
    assert.deepEqual(geminiAdapter.headers(null, 'openai/chat/completions'), {})
    assert.deepEqual(geminiAdapter.headers(null, 'models'), {})
  })

  it('has the gemini dialect’s quirks wherever its base URL points', () => {
    for (const baseUrl of ['https://generativelanguage.googleapis.com/v1beta', 'http://10.0.0.5:8080/google/v1beta']) {
      const p = { id: 'goog', kind: 'gemini', baseUrl, dialect: null }
      assert.equal(dialectOf(p), 'gemini', baseUrl)
      assert.deepEqual(quirksOf(p), { limitField: 'max_tokens', reasoning: 'outside', geminiBody: true, promptCacheKey: false })
    }
  })

  it('lists the models that generate content or embed, without the models/ prefix or a creation time', () => {
    const list = {
      models: [
        {
          name: 'models/gemini-3-flash-preview',
          supportedGenerationMethods: ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'],
        },
        { name: 'models/gemini-embedding-001', supportedGenerationMethods: ['embedContent', 'countTextTokens', 'countTokens', 'asyncBatchEmbedContent'] },
        { name: 'models/imagen-4.0-generate-001', supportedGenerationMethods: ['predict'] },
        { name: 'models/veo-3.0-generate-001', supportedGenerationMethods: ['predictLongRunning'] },
        { name: 'models/aqa', supportedGenerationMethods: ['generateAnswer'] },
        { name: 'models/proxied-model' },
        { displayName: 'no name' },
      ],
      nextPageToken: 'Cg1tb2RlbHMvYXFh',
    }
    assert.deepEqual(geminiAdapter.parseModels(list), [
      { id: 'gemini-3-flash-preview', created: null },
      { id: 'gemini-embedding-001', created: null },
      { id: 'proxied-model', created: null },
    ])
    assert.deepEqual(geminiAdapter.parseModels({ data: [{ id: 'x' }] }), [])
    assert.deepEqual(geminiAdapter.parseModels(null), [])
    // Google's default page is 50 models: the list asks for all of them at once.
    assert.equal(new URL(geminiAdapter.modelsPath, 'https://g.test/v1beta/').searchParams.get('pageSize'), '1000')
  })
})

describe('the gemini kind: Google’s errors in OpenAI’s shape', () => {
  it('a refused key (a 400 with API_KEY_INVALID), as an object or as the OpenAI layer’s array, is the gateway’s credential, never the caller’s request', () => {
    for (const body of [keyInvalid, [keyInvalid]]) {
      const e = map(400, body)
      assert.deepEqual([e.status, e.code, e.headers['x-should-retry']], [502, 'provider_auth_failed', 'false'], JSON.stringify(body).slice(0, 1))
      assert.match(e.message, /gemini answered 400: API key not valid/)
      assert.match(e.message, /gw providers set gemini --api-key-stdin/)
    }
    for (const [status, name] of [
      [401, 'UNAUTHENTICATED'],
      [403, 'PERMISSION_DENIED'],
    ] as const) {
      const e = map(status, googleError(status, name, 'Method doesn’t allow unregistered callers.'))
      assert.deepEqual([e.status, e.code], [502, 'provider_auth_failed'], name)
    }
  })

  it('a 429 carries the wait RetryInfo gives, in the headers the client and the routing read; a header the provider sent wins', () => {
    const quota = googleError(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota, please check your plan and billing details.', [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests' }],
      },
      { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
      retryInfo('17s'),
    ])
    let e = map(429, quota)
    assert.deepEqual([e.status, e.type, e.code], [429, 'rate_limit_exceeded', 'rate_limit_exceeded'])
    assert.deepEqual(e.headers, { 'retry-after-ms': '17000', 'retry-after': '17' })
    assert.equal(retryAfterMs(e.headers, 0), 17_000)
    e = map(429, [googleError(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted.', [retryInfo('0.250s')])])
    assert.deepEqual(e.headers, { 'retry-after-ms': '250', 'retry-after': '1' })
    assert.equal(retryAfterMs(e.headers, 0), 250)
    e = map(429, quota, { 'retry-after': '3' })
    assert.deepEqual(e.headers, { 'retry-after': '3' })
    // No RetryInfo, or one that is no duration: no wait is made up.
    assert.deepEqual(map(429, googleError(429, 'RESOURCE_EXHAUSTED', 'slow down')).headers, {})
    assert.deepEqual(map(429, googleError(429, 'RESOURCE_EXHAUSTED', 'slow down', [retryInfo('soon')])).headers, {})
  })

  it('keeps the caller’s own mistakes and maps Google’s failures to the status family OpenAI clients know', () => {
    const cases: Array<[number, string, number, string]> = [
      [400, 'INVALID_ARGUMENT', 400, 'invalid_request_error'],
      [404, 'NOT_FOUND', 404, 'invalid_request_error'],
      [500, 'INTERNAL', 502, 'server_error'],
      [503, 'UNAVAILABLE', 503, 'server_error'],
      [504, 'DEADLINE_EXCEEDED', 504, 'server_error'],
    ]
    for (const [status, name, want, type] of cases) {
      const e = map(status, googleError(status, name, `${name} happened`))
      assert.deepEqual([e.status, e.type], [want, type], name)
      assert.match(e.message, new RegExp(`${name} happened`))
      assert.notEqual(typeof e.code, 'number', 'Google’s numeric code is not an OpenAI code')
    }
  })

  it('passes no credential the provider echoes', () => {
    const redactor = new Redactor()
    redactor.remember(KEY)
    const e = map(400, googleError(400, 'INVALID_ARGUMENT', `Invalid value for key ${KEY}`), {}, redactor)
    assert.doesNotMatch(e.message, /AIzaSyD-test-key/)
    assert.match(e.message, /\[redacted\]/)
  })
})
