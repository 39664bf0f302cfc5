import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { resolveConfig } from '../../src/gateway/config'
import { MODELS_KEPT, OTHER_MODELS, RequestTallies, TIME_BUCKETS_MS } from '../../src/gateway/metrics/requestTallies'
import { presentsBearer } from '../../src/gateway/http/metricsRoute'
import { noBalanceLeft, periodLimitReached, rateLimited, refusalReason, sessionRequestsReached, sessionSpendReached } from '../../src/gateway/pipeline/refusals'
import { policyViolation } from '../../src/gateway/pipeline/enforcePolicy'
import { Cooldown, coolingError } from '../../src/gateway/routing/cooldown'
import { defaultRouting } from '../../src/gateway/routing/routingConfig'
import { ApiError } from '../../src/gateway/errors'
import { recordFixture } from '../support/recordFixture'
import type { RequestRecord } from '../../src/gateway/store/requestsRepo'

const record = (spec: Parameters<typeof recordFixture>[0], more: Partial<RequestRecord> = {}): RequestRecord => ({
  ...recordFixture(spec, { model: 'gpt-4o-mini', provider: 'openai', upstreamModel: 'gpt-4o-mini' }),
  ...more,
})

describe('metrics configuration', () => {
  it('is off unless asked for', () => {
    assert.equal(resolveConfig({}, {}).metrics, null)
    assert.equal(resolveConfig({}, { GW_METRICS: '0' }).metrics, null)
  })

  it("--metrics (GW_METRICS=1) serves them on the gateway's port; --metrics-port (GW_METRICS_PORT) on one of their own", () => {
    assert.deepEqual(resolveConfig({ metrics: true }, {}).metrics, { port: null, token: null })
    assert.deepEqual(resolveConfig({}, { GW_METRICS: 'true' }).metrics, { port: null, token: null })
    assert.deepEqual(resolveConfig({}, { GW_METRICS_PORT: '9464' }).metrics, { port: 9464, token: null })
    assert.deepEqual(resolveConfig({ metricsPort: '9100' }, { GW_METRICS_PORT: '9464' }).metrics, { port: 9100, token: null })
  })

  it('takes the token from --metrics-token or GW_METRICS_TOKEN, and refuses one while metrics are off', () => {
    assert.deepEqual(resolveConfig({ metrics: true }, { GW_METRICS_TOKEN: 's3cret' }).metrics, { port: null, token: 's3cret' })
    assert.deepEqual(resolveConfig({ metrics: true, metricsToken: 'flag' }, { GW_METRICS_TOKEN: 'env' }).metrics, { port: null, token: 'flag' })
    assert.throws(() => resolveConfig({}, { GW_METRICS_TOKEN: 's3cret' }), /metrics are off: add --metrics or --metrics-port/)
    assert.throws(() => resolveConfig({ metrics: true, metricsToken: ' ' }, {}), /--metrics-token must not be empty/)
  })

  it('refuses a GW_METRICS that is no on/off word and a port out of range', () => {
    assert.throws(() => resolveConfig({}, { GW_METRICS: 'maybe' }), /GW_METRICS must be 1 or 0/)
    assert.throws(() => resolveConfig({ metricsPort: '70000' }, {}), /port must be an integer from 0 to 65535/)
  })
})

describe('the bearer token check', () => {
  it('takes exactly `Bearer <token>`', () => {
    assert.equal(presentsBearer('Bearer tok', 'tok'), true)
    for (const wrong of [undefined, '', 'tok', 'Bearer', 'Bearer ', 'Bearer tok ', 'Bearer to', 'bearer tok', 'Basic tok', 'Bearer tokk']) {
      assert.equal(presentsBearer(wrong, 'tok'), false, String(wrong))
    }
  })
})

describe('refusal reasons', () => {
  const reasonOf = (e: ApiError) => refusalReason({ code: e.code, message: e.message })
  const key = { id: 'key_1', name: 'k' }

  it('names each refusal the gateway makes by the rule that made it', () => {
    assert.equal(reasonOf(noBalanceLeft(key, 0n, 0n)), 'balance')
    assert.equal(reasonOf(periodLimitReached('k', 'daily', 1n, 1n, 0n, 0)), 'spend_limit')
    assert.equal(reasonOf(rateLimited('k', 10, 1000)), 'rpm')
    assert.equal(reasonOf(sessionRequestsReached('messages', 'k', 5, 5, 0)), 'session_requests')
    assert.equal(reasonOf(sessionSpendReached('responses', 'k', 1n, 1n, 0n)), 'session_usd')
    assert.equal(reasonOf(policyViolation('key "k" may not use model x [rule: allowed_models = y]')), 'policy')
    assert.equal(reasonOf(coolingError('openai', { until: 2000, lastError: 'HTTP 500' }, 1000)), 'cooldown')
  })

  it("takes no provider's error for one: a provider's own 429 is no rpm refusal", () => {
    assert.equal(refusalReason({ code: 'rate_limit_exceeded', message: 'openai: Rate limit reached for gpt-4o-mini' }), null)
    assert.equal(refusalReason({ code: 'provider_unavailable', message: 'no provider could take the request' }), null)
    assert.equal(refusalReason({ code: 'invalid_json', message: 'We could not parse the JSON body' }), null)
  })
})

describe('request tallies', () => {
  it('keeps one series per wire, provider, model, status class and outcome, with no key, user or session in its labels', () => {
    const tallies = new RequestTallies()
    tallies.recorded(record({ at: 0, key: 'key_a', user: 'u1', session: 's1' }))
    tallies.recorded(record({ at: 0, key: 'key_b', user: 'u2', session: 's2' }))
    tallies.recorded(record({ at: 0, status: 502, outcome: 'error' }))
    tallies.recorded(record({ at: 0, status: 499, outcome: 'aborted', endpoint: 'messages' }))
    const series = [...tallies.requests.values()].map((s) => [s.labels, s.requests])
    assert.deepEqual(series, [
      [{ wire: 'chat.completions', provider: 'openai', upstream_model: 'gpt-4o-mini', status_class: '2xx', outcome: 'ok' }, 2],
      [{ wire: 'chat.completions', provider: 'openai', upstream_model: 'gpt-4o-mini', status_class: '5xx', outcome: 'error' }, 1],
      [{ wire: 'messages', provider: 'openai', upstream_model: 'gpt-4o-mini', status_class: '4xx', outcome: 'aborted' }, 1],
    ])
  })

  it('keeps at most MODELS_KEPT models apart per provider: past them, models a caller names at will count under (other)', () => {
    const tallies = new RequestTallies()
    const attempt = (model: string) => [{ provider: 'openai', model, status: 404, latency_ms: 1, error: 'no such model' }]
    for (let i = 0; i < MODELS_KEPT + 50; i++) tallies.recorded(record({ at: 0, upstream: `made-up-${i}` }, { attempts: attempt(`made-up-${i}`) }))
    tallies.recorded(record({ at: 0, upstream: 'made-up-3' }))
    const models = tallies.requests.map((s) => s.labels.upstream_model)
    assert.equal(models.length, MODELS_KEPT + 1)
    assert.equal(tallies.requests.find((s) => s.labels.upstream_model === OTHER_MODELS)!.requests, 50)
    assert.equal(tallies.requests.find((s) => s.labels.upstream_model === 'made-up-3')!.requests, 2, 'a model kept apart stays apart')
    assert.equal(tallies.attempts.length, MODELS_KEPT + 1)
    assert.equal(tallies.attempts.at(-1)!.labels.upstream_model, OTHER_MODELS)
  })

  it('sums cost exactly in pico-dollars, and counts the unpriced apart', () => {
    const tallies = new RequestTallies()
    // 0.1 + 0.2 is 0.30000000000000004 in doubles; in pico-dollars it is 0.3.
    for (const cost of [0.1, 0.2, 0.0000048, null]) tallies.recorded(record({ at: 0, cost }))
    const [s] = tallies.requests.values()
    assert.equal(s.costPico / 1e12, 0.3000048)
    assert.equal(s.unpriced, 1)
  })

  it('adds tokens by type, and times into buckets from 1 ms to 60 s', () => {
    const tallies = new RequestTallies()
    const usage = { prompt_tokens: 100, completion_tokens: 20, cached_tokens: 60, cache_write_tokens: 5, reasoning_tokens: 7 }
    tallies.recorded(record({ at: 0, latency: 1 }, { usage, ttfb_ms: 0 }))
    tallies.recorded(record({ at: 0, latency: 61_000 }, { usage, ttfb_ms: 1200 }))
    const [s] = tallies.requests.values()
    assert.deepEqual(s.tokens, { input: 200, output: 40, cached_read: 120, cached_write: 10, reasoning: 14 })
    const bucketOf = (ms: number) => (ms > TIME_BUCKETS_MS.at(-1)! ? TIME_BUCKETS_MS.length : TIME_BUCKETS_MS.findIndex((b) => ms <= b))
    assert.equal(s.latency.counts[bucketOf(1)], 1, '1 ms is in the first bucket')
    assert.equal(s.latency.counts[TIME_BUCKETS_MS.length], 1, 'past 60 s: only in +Inf')
    assert.equal(s.ttfb.counts[bucketOf(1200)], 1)
    assert.deepEqual([s.latency.count, s.latency.sumMs, s.ttfb.count], [2, 61_001, 2])
  })

  it("counts attempts by the provider's answer, a retry of the same model, a fallback and a refusal by its reason", () => {
    const tallies = new RequestTallies()
    const attempt = (provider: string, model: string, status: number | null) => ({
      provider,
      model,
      status,
      latency_ms: 5,
      error: status === 200 ? null : 'failed',
    })
    tallies.recorded(
      record(
        { at: 0, provider: 'anthropic', upstream: 'claude-haiku-4-5' },
        {
          attempts: [attempt('openai', 'gpt-4o-mini', 500), attempt('openai', 'gpt-4o-mini', null), attempt('anthropic', 'claude-haiku-4-5', 200)],
          fallback_used: true,
        },
      ),
    )
    const refused = noBalanceLeft({ id: 'key_1', name: 'k' }, 0n, 0n)
    tallies.recorded(
      record({ at: 0, status: 402, outcome: 'error' }, { error: { status: 402, type: refused.type, code: refused.code, message: refused.message } }),
    )
    assert.deepEqual(
      [...tallies.attempts.values()].map((s) => [s.labels.provider, s.labels.status_class, s.attempts, s.retries]),
      [
        ['openai', '5xx', 1, 0],
        ['openai', 'none', 1, 1],
        ['anthropic', '2xx', 1, 0],
      ],
    )
    assert.equal([...tallies.requests.values()][0].fallbacks, 1)
    assert.deepEqual(
      [...tallies.refusals.values()].map((s) => [s.labels, s.refusals]),
      [[{ wire: 'chat.completions', reason: 'balance' }, 1]],
    )
  })
})

describe('cool-down counts', () => {
  it('counts cool-downs begun (not the failures that extend one) and the providers cooling now', () => {
    let now = 0
    const cooldown = new Cooldown({ ...defaultRouting, cooldownAfterFailures: 2, cooldownMs: 1000 }, () => now)
    cooldown.failure('a', 'x')
    assert.deepEqual([cooldown.started, cooldownCount(cooldown)], [0, 0])
    cooldown.failure('a', 'x')
    cooldown.failure('a', 'x')
    cooldown.failure('b', 'x')
    cooldown.failure('b', 'x')
    assert.deepEqual([cooldown.started, cooldownCount(cooldown)], [2, 2])
    now = 1500
    assert.equal(cooldownCount(cooldown), 0)
    cooldown.failure('a', 'x')
    assert.deepEqual([cooldown.started, cooldownCount(cooldown)], [3, 1])
  })
})

const cooldownCount = (c: Cooldown) => c.coolingCount()
