import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ApiError, invalidRequest } from '../../src/gateway/errors'
import type { AttemptLog } from '../../src/gateway/pipeline/attemptLog'
import type { Target } from '../../src/gateway/pipeline/resolveModel'
import { ProviderRegistry } from '../../src/gateway/providers/registry'
import { Cooldown } from '../../src/gateway/routing/cooldown'
import { route, type RoutingDeps } from '../../src/gateway/routing/route'
import { defaultRouting, type RoutingConfig } from '../../src/gateway/routing/routingConfig'
import { ClientAborted } from '../../src/gateway/routing/sendToProvider'
import type { Attempt } from '../../src/gateway/store/requestsRepo'
import { createUpstreamAgent } from '../../src/gateway/upstream/client'
import { ClientAbort } from '../../src/gateway/upstream/clientAbort'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { fakeTarget } from '../support/fakeDelivery'
import { MemorySecretStore } from '../support/memorySecretStore'

/**
 * Routing against a real provider on loopback (the fake OpenAI API) through the real registry:
 * providers `a`, `b` and `c` all point at it; `a` and `b` hold its key, `wrongkey` another one,
 * and `nokey` none.
 */
let fake: FakeOpenAI
const agent = createUpstreamAgent()
let registry: ProviderRegistry

before(async () => {
  fake = await startFakeOpenAI()
  registry = new ProviderRegistry(
    new MemorySecretStore(),
    { A_API_KEY: fake.apiKey, B_API_KEY: fake.apiKey, C_API_KEY: fake.apiKey, WRONGKEY_API_KEY: 'sk-not-the-key' },
    agent,
  )
})
after(async () => {
  await agent.close()
  await fake.close()
})
beforeEach(() => {
  fake.clearScript()
  fake.received.length = 0
})

const target = (id: string): Target => fakeTarget({ id, label: id, baseUrl: fake.url, deadlines: { firstByteMs: 30_000, idleMs: 30_000 } }, 'gpt-4o-mini')
const build = () => ({ path: 'chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] } })

/** Retries a millisecond apart, so a test waits on the provider, not on backoff. */
const quick: RoutingConfig = { ...defaultRouting, baseDelayMs: 1, maxDelayMs: 1 }

function routing(config: RoutingConfig = quick) {
  const deps: RoutingDeps = { routing: config, cooldown: new Cooldown(config, Date.now), registry, clock: Date.now }
  const log: AttemptLog = { attempts: [], sent: false }
  return { deps, log }
}

/** Each attempt as `provider status`, or `provider skipped: …` for one passed over. */
const brief = (attempts: Attempt[]) => attempts.map((a) => `${a.provider} ${a.error?.startsWith('skipped: ') ? a.error : a.status}`)

/** Routes and reads the answer through, so the connection goes back to the pool. */
async function answered(
  deps: RoutingDeps,
  log: AttemptLog,
  candidates: Target[],
  opts: { skip?: (t: Target) => string | null; build?: (t: Target) => ReturnType<typeof build> } = {},
) {
  const routed = await route(deps, log, candidates, opts.build ?? build, new ClientAbort(), { skip: opts.skip })
  const body = (await routed.response.body.json()) as { object: string }
  assert.equal(body.object, 'chat.completion')
  return routed.target.provider.id
}

describe('route: which provider answers, and what is noted of each attempt', () => {
  it('retries a 5xx on the same provider, then takes its answer; its failures are forgiven', async () => {
    const { deps, log } = routing()
    fake.script({ kind: 'status', status: 503 }, { kind: 'status', status: 500 })
    assert.equal(await answered(deps, log, [target('a'), target('b')]), 'a')
    assert.deepEqual(brief(log.attempts), ['a 503', 'a 500', 'a 200'])
    assert.equal(log.sent, true)
    // Three failures in a row cool a provider down: its answer forgot the two before.
    deps.cooldown.failure('a', 'a answered 503')
    assert.equal(deps.cooldown.cooling('a'), null)
  })

  it('goes to the next candidate when a provider refuses its credential (401)', async () => {
    const { deps, log } = routing()
    assert.equal(await answered(deps, log, [target('wrongkey'), target('b')]), 'b')
    assert.deepEqual(brief(log.attempts), ['wrongkey 401', 'b 200'])
    assert.equal(fake.received.length, 2, 'a credential is not retried')
  })

  it('goes to the next candidate when a provider has no credential, without calling it', async () => {
    const { deps, log } = routing()
    assert.equal(await answered(deps, log, [target('nokey'), target('b')]), 'b')
    assert.deepEqual(brief(log.attempts), ['nokey null', 'b 200'])
    assert.match(log.attempts[0].error!, /no API key for provider nokey.*NOKEY_API_KEY/)
    assert.equal(fake.received.length, 1)
  })

  it('stops on the caller’s own mistake (400): no retry, no fallback', async () => {
    const { deps, log } = routing()
    fake.script({ kind: 'status', status: 400 })
    await assert.rejects(route(deps, log, [target('a'), target('b')], build, new ClientAbort()), (e: unknown) => e instanceof ApiError && e.status === 400)
    assert.deepEqual(brief(log.attempts), ['a 400'])
    assert.equal(fake.received.length, 1)
  })

  it('a retry-after beyond the cap goes to the next candidate instead of waiting', async () => {
    const { deps, log } = routing({ ...quick, retryAfterCapMs: 1_000 })
    fake.script({ kind: 'status', status: 429, headers: { 'retry-after': '60' } })
    assert.equal(await answered(deps, log, [target('a'), target('b')]), 'b')
    assert.deepEqual(brief(log.attempts), ['a 429', 'b 200'])
  })

  it('passes over a provider cooling down, noting why; with none left, a 503 says when to retry', async () => {
    const { deps, log } = routing({ ...quick, cooldownAfterFailures: 1 })
    deps.cooldown.failure('a', 'a answered 503')
    assert.equal(await answered(deps, log, [target('a'), target('b')]), 'b')
    assert.equal(log.attempts[0].provider, 'a')
    assert.match(log.attempts[0].error!, /^skipped: a is cooling down until .* after 1 failures \(a answered 503\)$/)
    assert.equal(log.attempts[0].status, null)
    assert.equal(fake.received.length, 1, 'nothing went to the provider cooling down')

    const alone = routing({ ...quick, cooldownAfterFailures: 1 })
    alone.deps.cooldown.failure('a', 'a answered 503')
    await assert.rejects(
      route(alone.deps, alone.log, [target('a')], build, new ClientAbort()),
      (e: unknown) => e instanceof ApiError && e.status === 503 && e.code === 'provider_unavailable' && Number(e.headers['retry-after']) >= 1,
    )
    assert.equal(alone.log.sent, false)
  })

  it('passes over a candidate the key’s policy refuses, noting the refusal', async () => {
    const { deps, log } = routing()
    const skip = (t: Target) => (t.provider.id === 'b' ? 'key policy: provider b is not allowed' : null)
    assert.equal(await answered(deps, log, [target('nokey'), target('b'), target('c')], { skip }), 'c')
    assert.deepEqual(brief(log.attempts), ['nokey null', 'b skipped: key policy: provider b is not allowed', 'c 200'])
  })

  it('a fallback its request cannot be built for is passed over; the primary’s build error is the caller’s', async () => {
    const cannot = (id: string) => (t: Target) => {
      if (t.provider.id === id) throw invalidRequest(`n > 1 is not supported by ${id}`, 'n')
      return build()
    }
    const { deps, log } = routing()
    assert.equal(await answered(deps, log, [target('nokey'), target('b'), target('c')], { build: cannot('b') }), 'c')
    assert.deepEqual(brief(log.attempts), ['nokey null', 'b skipped: the request cannot be sent to b: n > 1 is not supported by b', 'c 200'])

    const primary = routing()
    await assert.rejects(route(primary.deps, primary.log, [target('a'), target('b')], cannot('a'), new ClientAbort()), {
      message: 'n > 1 is not supported by a',
    })
    assert.deepEqual(primary.log.attempts, [], 'the fallbacks are not tried')
    assert.equal(fake.received.length, 1, 'only the fallback c above reached the provider')

    const last = routing()
    await assert.rejects(route(last.deps, last.log, [target('nokey'), target('b')], cannot('b'), new ClientAbort()), { message: 'n > 1 is not supported by b' })
  })

  it('a client that leaves during the backoff ends the routing at once: ClientAborted, and no retry is sent', { timeout: 20_000 }, async () => {
    // A minute's backoff: the test ends long before it unless the client's leaving cuts it short.
    const slow = { ...defaultRouting, baseDelayMs: 60_000, maxDelayMs: 60_000, retryAfterCapMs: 120_000 }
    const { deps } = routing(slow)
    const signal = new ClientAbort()
    let failed!: () => void
    const attempted = new Promise<void>((resolve) => (failed = resolve))
    const attempts: Attempt[] = []
    const log: AttemptLog = {
      attempts: new Proxy(attempts, {
        get: (arr, prop) => (prop === 'push' ? (...a: Attempt[]) => (arr.push(...a), failed(), arr.length) : Reflect.get(arr, prop)),
      }),
      sent: false,
    }
    fake.script({ kind: 'status', status: 503 })
    const routed = route(deps, log, [target('a'), target('b')], build, signal)
    await attempted
    // The failed attempt is noted before routing decides to wait: a turn of the event loop later it waits.
    await new Promise((resolve) => setImmediate(resolve))
    signal.abort()
    await assert.rejects(routed, (e: unknown) => e instanceof ClientAborted)
    assert.deepEqual(brief(attempts), ['a 503'])
    assert.equal(fake.received.length, 1)
  })
})
