import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ApiError, invalidRequest } from '../../src/gateway/errors'
import { GeminiArrayGrammar, googleErrorReply, geminiSseGrammar } from '../../src/gateway/http/geminiGrammar'
import { errorReply } from '../../src/gateway/http/errorShape'
import { rateLimited, noBalanceLeft } from '../../src/gateway/pipeline/refusals'

describe("Google's wire grammar", () => {
  it("answers errors in Google's shape: code, message, status, the field in a BadRequest detail", () => {
    const reply = googleErrorReply(invalidRequest('contents: Field required (an array of contents)', 'contents'))
    assert.equal(reply.status, 400)
    const error = (reply.body as { error: Record<string, unknown> }).error
    assert.equal(error.code, 400)
    assert.equal(error.status, 'INVALID_ARGUMENT')
    assert.equal(error.message, 'contents: Field required (an array of contents)')
    assert.deepEqual(error.details, [
      {
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [{ field: 'contents', description: 'contents: Field required (an array of contents)' }],
      },
    ])
  })

  it("gives a rate limit Google's RESOURCE_EXHAUSTED with a RetryInfo delay, and a spent balance PERMISSION_DENIED", () => {
    const limited = googleErrorReply(rateLimited('ci', 10, 4500))
    assert.equal(limited.status, 429)
    const error = (limited.body as { error: { status: string; details: Array<Record<string, unknown>> } }).error
    assert.equal(error.status, 'RESOURCE_EXHAUSTED')
    assert.deepEqual(error.details[0], { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '5s' })
    assert.equal(limited.headers['retry-after'], '5')
    const broke = googleErrorReply(noBalanceLeft({ id: 'k1', name: 'ci' }, 0n, 0n))
    assert.equal(broke.status, 403)
    assert.equal((broke.body as { error: { status: string } }).error.status, 'PERMISSION_DENIED')
  })

  it('maps what Google has no name for by family: 5xx UNAVAILABLE, other 4xx INVALID_ARGUMENT', () => {
    assert.equal(googleErrorReply(new ApiError(502, 'server_error', 'bad gateway')).status, 503)
    assert.equal(googleErrorReply(new ApiError(418, 'invalid_request_error', 'teapot')).status, 400)
    assert.equal(googleErrorReply(new ApiError(503, 'server_error', 'busy')).status, 503)
  })

  it('gives what no retry can fix (x-should-retry: false) FAILED_PRECONDITION, not a status Gemini CLI asks again after', () => {
    const noRetry = { 'x-should-retry': 'false' }
    for (const e of [
      new ApiError(502, 'upstream_error', "openai answered 401: the gateway's credential was refused", 'provider_auth_failed', null, noRetry),
      new ApiError(429, 'insufficient_quota', 'openai answered 429: out of credit', 'provider_insufficient_quota', null, noRetry),
      new ApiError(503, 'server_error', 'The gateway has no API key for provider openai.', 'provider_not_configured', null, noRetry),
    ]) {
      const reply = googleErrorReply(e)
      const { error } = reply.body as { error: { status: string; code: number } }
      assert.deepEqual([reply.status, error.code, error.status], [400, 400, 'FAILED_PRECONDITION'], e.code!)
    }
    // Refusals Google has a final status for keep it.
    assert.equal(googleErrorReply(noBalanceLeft({ id: 'k1', name: 'ci' }, 0n, 0n)).status, 403)
    assert.equal(googleErrorReply(new ApiError(502, 'server_error', 'bad gateway')).status, 503)
  })

  it("frames SSE as data lines with no end marker, and an error inside the stream as Google's body", () => {
    assert.equal(geminiSseGrammar.frame({ a: 1 }), 'data: {"a":1}\n\n')
    assert.equal(geminiSseGrammar.frame({ a: 1 }, '{"a": 1}'), 'data: {"a": 1}\n\n')
    assert.equal(geminiSseGrammar.done, '')
    assert.match(geminiSseGrammar.streamError(new ApiError(503, 'server_error', 'gone')), /^data: \{"error":\{"code":503,.*"status":"UNAVAILABLE"/)
  })

  it('writes a streamed JSON array element by element: "[" first, "," between, "]" last; "[]" when empty', () => {
    const g = new GeminiArrayGrammar()
    const text = g.frame({ n: 1 }) + g.frame({ n: 2 }, '{"n":2}') + g.done
    assert.deepEqual(JSON.parse(text), [{ n: 1 }, { n: 2 }])
    assert.equal(new GeminiArrayGrammar().done, '[]')
    const failed = new GeminiArrayGrammar()
    const cut = failed.frame({ n: 1 }) + failed.streamError(new ApiError(500, 'server_error', 'broke'))
    assert.equal(JSON.parse(cut)[1].error.status, 'INTERNAL')
  })

  it("answers in Google's shape on its routes and on the model list for Google clients only", () => {
    const e = new ApiError(401, 'invalid_request_error', 'no key')
    const google = (url: string, headers = {}) => (errorReply(url, headers, e).body as { error: { status?: string } }).error.status
    assert.equal(google('/v1beta/models/x:generateContent'), 'UNAUTHENTICATED')
    assert.equal(google('/v1/models/gemini-2.5-pro%3AstreamGenerateContent?alt=sse'), 'UNAUTHENTICATED')
    assert.equal(google('/v1/models', { 'x-goog-api-key': 'k' }), 'UNAUTHENTICATED')
    assert.equal(google('/v1/models?key=k'), 'UNAUTHENTICATED')
    assert.equal(google('/v1/models'), undefined)
    assert.equal(google('/v1/chat/completions'), undefined)
  })
})
