import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { KeyPolicy } from '../../src/contract/keys'
import { ApiError } from '../../src/gateway/errors'
import { admit, NOTHING_HELD, type AdmitDeps, type AdmitOptions } from '../../src/gateway/pipeline/admit'
import { RateLimiter } from '../../src/gateway/pipeline/rateLimiter'
import { newRequestId, RequestContext } from '../../src/gateway/pipeline/requestContext'
import type { Target } from '../../src/gateway/pipeline/resolveModel'
import { SessionSpend } from '../../src/gateway/pipeline/sessionSpend'
import type { Key } from '../../src/gateway/pipeline/keyRules'
import { fakeTarget } from '../support/fakeDelivery'
import { ledgerStore, nothingQueued } from '../support/ledgerStore'

/** $1 per 1M input tokens, $2 per 1M output: 1,000,000 and 2,000,000 pico-dollars a token. */
const priced: Target = { ...fakeTarget(), priced: { entry: { provider: 'p', model: 'm', kind: 'chat', input: 1, output: 2 }, source: 'test', calendar: null } }
const unpriced = fakeTarget()

/** 400 characters of prompt: 100 tokens at the typical 4 a token; with max_tokens 10, $0.00012 expected. */
const chat = (max_tokens = 10): { body: Record<string, unknown>; opts: AdmitOptions } => ({
  body: { max_tokens },
  opts: { chat: true, prompt: 'x'.repeat(400) },
})
const EXPECTED_PICO = 100n * 1_000_000n + 10n * 2_000_000n

/** Admission's state as the gateway holds it: a rate limiter, balances over a real ledger, sessions (each read from a store that holds none yet). */
async function admission() {
  const ledger = await ledgerStore()
  const sessionReads: string[] = []
  const deps: AdmitDeps = {
    rateLimiter: new RateLimiter(Date.now),
    balances: ledger.balances,
    sessions: new SessionSpend(async (_keyId, sessionId) => (sessionReads.push(sessionId), { pico: 0n, requests: 0 }), nothingQueued, {
      threshold: () => null,
      raise: () => assert.fail('no alert without a threshold'),
    }),
    shared: null,
  }
  const request = (key: Key, session: string | null = null) => {
    const ctx = new RequestContext(newRequestId(), 'chat.completions', key)
    ctx.attribution.attribution.session_id = session
    return ctx
  }
  return { ...ledger, deps, sessionReads, request }
}

const policy = (p: KeyPolicy) => ({ policy: p })

describe('admit: what a request holds before it goes upstream', () => {
  it('a free call (token counting) holds nothing, takes no place in the rate limit and needs no balance', async () => {
    const { deps, key, request } = await admission()
    const counted = await key('counter', { ...policy({ rpm: 1 }), balanceUsd: 0 })
    const free = { chat: false, prompt: 'hi', free: true }
    assert.equal(await admit(deps, request(counted), unpriced, {}, free), NOTHING_HELD)
    assert.equal(await admit(deps, request(counted), unpriced, {}, free), NOTHING_HELD)
    // The key's one request a minute is still there for a paid call (refused here for the empty balance, not the rate).
    const paid = await admit(deps, request(counted), priced, chat().body, chat().opts)
    assert.equal((paid.refused as ApiError).code, 'insufficient_balance')
  })

  it('a free call still keeps to the key’s model rules', async () => {
    const { deps, key, request } = await admission()
    const narrow = await key('narrow', policy({ allowed_models: ['other-*'] }))
    await assert.rejects(
      async () => admit(deps, request(narrow), unpriced, {}, { chat: false, prompt: 'hi', free: true }),
      (e: unknown) => e instanceof ApiError && e.code === 'policy_violation',
    )
  })

  it('a prepaid key reserves the expected cost against its balance, read from the ledger first', async () => {
    const { deps, key, request, balances } = await admission()
    const prepaid = await key('prepaid', { balanceUsd: 1 })
    const { body, opts } = chat()
    const reading = admit(deps, request(prepaid), priced, body, opts)
    assert.ok(reading instanceof Promise, 'the balance is read from the ledger first')
    const held = await reading
    assert.deepEqual(held, { reservation: { keyId: prepaid.id, prepaid: true, pico: EXPECTED_PICO, debit: 'due' }, sessionHold: null })
    assert.equal(balances.balanceOf(prepaid.id), 1_000_000_000_000n)
    // With the balance in memory, a request is admitted in the same turn: no promise.
    const next = admit(deps, request(prepaid), priced, body, opts)
    assert.ok(!(next instanceof Promise))
    assert.equal(next.reservation?.pico, EXPECTED_PICO)
  })

  it('a prepaid key refuses a model with no known price', async () => {
    const { deps, key, request } = await admission()
    const prepaid = await key('prepaid', { balanceUsd: 1 })
    await assert.rejects(async () => admit(deps, request(prepaid), unpriced, chat().body, chat().opts), /has no known price/)
  })

  it('a balance refusal after the session hold returns the hold with the refusal, for the record to release', async () => {
    const { deps, key, request, sessionReads } = await admission()
    const empty = await key('empty', { ...policy({ max_session_requests: 1 }), balanceUsd: 0 })
    const { body, opts } = chat()
    const first = await admit(deps, request(empty, 's1'), priced, body, opts)
    assert.equal(first.reservation, null)
    assert.equal((first.refused as ApiError).code, 'insufficient_balance')
    assert.equal((first.refused as ApiError).status, 402)
    assert.ok(first.sessionHold, 'the session’s place is held')
    assert.equal(first.sessionHold.pico, EXPECTED_PICO)
    assert.deepEqual(sessionReads, ['s1'], 'the session was read before it was admitted')
    // Until it is released, that place is taken: the session's one request is in flight.
    await assert.rejects(async () => admit(deps, request(empty, 's1'), priced, body, opts), /limit of 1 requests .*\(0 made, 1 in flight\)/)
    deps.sessions.recorded(first.sessionHold, null)
    const again = await admit(deps, request(empty, 's1'), priced, body, opts)
    assert.equal((again.refused as ApiError).code, 'insufficient_balance')
    assert.deepEqual(sessionReads, ['s1'], 'read once')
  })

  it('a key over its requests per minute is refused with 429 and when to retry', async () => {
    const { deps, key, request } = await admission()
    const limited = await key('limited', policy({ rpm: 1 }))
    const { body, opts } = chat()
    const first = await admit(deps, request(limited), unpriced, body, opts)
    assert.equal(first.refused, undefined)
    assert.deepEqual(first.reservation, { keyId: limited.id, prepaid: false, pico: 0n, debit: 'due' }, 'an unlimited key reserves nothing')
    await assert.rejects(
      async () => admit(deps, request(limited), unpriced, body, opts),
      (e: unknown) => e instanceof ApiError && e.status === 429 && e.code === 'rate_limit_exceeded' && Number(e.headers['retry-after']) > 0,
    )
  })
})
