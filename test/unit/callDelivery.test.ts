import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CallDelivery } from '../../src/gateway/core/callDelivery'
import { ApiError } from '../../src/gateway/errors'
import { NOTHING_HELD, type Admission } from '../../src/gateway/pipeline/admit'
import { newRequestId, RequestContext } from '../../src/gateway/pipeline/requestContext'
import type { Target } from '../../src/gateway/pipeline/resolveModel'
import { ZERO_USAGE } from '../../src/gateway/pricing/usage'
import { Redactor } from '../../src/gateway/secrets/redactor'
import type { KeyRow } from '../../src/gateway/store/keysRepo'
import { ClientAbort } from '../../src/gateway/upstream/clientAbort'
import { fakeTarget, RecordingSink } from '../support/fakeDelivery'
import { ledgerStore } from '../support/ledgerStore'
import { once } from 'node:events'
import { Readable } from 'node:stream'
import { ResponseCache, type CachedCall } from '../../src/gateway/routing/responseCache'
import { ResponseCacheRepo } from '../../src/gateway/store/responseCacheRepo'
import type { Sql } from '../../src/gateway/store/sql'
import type { UpstreamResponse } from '../../src/gateway/upstream/client'

/** $1 per 1M input tokens, $2 per 1M output. */
const priced: Target = { ...fakeTarget(), priced: { entry: { provider: 'p', model: 'm', kind: 'chat', input: 1, output: 2 }, source: 'test', calendar: null } }
/** 1,000 in and 500 out: 1e9 + 1e9 pico-dollars, $0.002. */
const usage = { ...ZERO_USAGE, prompt_tokens: 1_000, completion_tokens: 500, total_tokens: 1_500 }
const PICO = 2_000_000_000n

/** A call the response cache answers from the answer it kept for `requestId`, an identical request before it. */
async function replaying(sql: Sql, target: Target, requestId: string): Promise<CachedCall> {
  const cache = new ResponseCache(new ResponseCacheRepo(sql), Date.now, 1 << 20, console)
  const request = { path: '/chat/completions', body: { model: 'm', messages: [] } }
  const first = cache.call('k', 60)
  assert.equal(await first.replay(target, request), null)
  const body = Readable.from([Buffer.from('{"id":"chatcmpl-1"}')])
  first.watch({ body } as unknown as UpstreamResponse)
  await once(body, 'end')
  await first.keep(requestId)
  const again = cache.call('k', 60)
  assert.ok(await again.replay(target, request))
  return again
}

async function delivering(opts: { prepaid?: boolean; free?: boolean; target?: Target; replayOf?: string } = {}) {
  const s = await ledgerStore()
  const key = await s.key('k', opts.prepaid ? { balanceUsd: 1 } : {})
  await s.balances.loading(key)
  const ctx = new RequestContext(newRequestId(), 'chat.completions', key)
  ctx.model = 'p/m'
  const admission: Admission = opts.free ? NOTHING_HELD : { reservation: s.balances.admit(key, 1_000n), sessionHold: null }
  const out = new CallDelivery({ balances: s.balances, shared: null }, ctx, {
    target: opts.target ?? priced,
    stream: false,
    sink: new RecordingSink(),
    signal: new ClientAbort(),
    redactor: new Redactor(),
    logging: false,
    free: opts.free ?? false,
    admission,
    cache: opts.replayOf ? await replaying(s.store.sql, opts.target ?? priced, opts.replayOf) : null,
  })
  return { ...s, key: key as KeyRow, ctx, out, admission }
}

describe('CallDelivery: the core’s side of one delivery', () => {
  it('close prices the answer once, at the target’s rates, and returns the gw block its end carries', async () => {
    const { out, ctx } = await delivering()
    assert.deepEqual(out.headers(), { 'x-gw-request-id': ctx.id }, 'no cost before the answer is priced')
    const gw = out.close(usage)
    assert.equal(gw.request_id, ctx.id)
    assert.equal(gw.routing.provider, 'p')
    assert.equal(gw.routing.upstream_model, 'm')
    assert.equal(gw.routing.requested_model, 'p/m')
    assert.equal(gw.cost?.final_usd, 0.002)
    assert.equal(out.priced?.pico, PICO)
    assert.deepEqual(out.priced?.usage, usage)
    assert.deepEqual(out.headers(), { 'x-gw-request-id': ctx.id, 'x-gw-cost-usd': '0.002' })
  })

  it('an answer the response cache replays costs $0 and charges nothing; what it saved is noted, and gw.cache names the answer it replayed', async () => {
    const { out, ctx } = await delivering({ prepaid: true, replayOf: 'req_first' })
    const gw = out.close(usage)
    assert.equal(gw.cost?.final_usd, 0)
    assert.equal(gw.cost?.priced, true)
    assert.equal(gw.cost?.price_source, 'response cache')
    assert.equal(gw.cost?.prompt_tokens, 1_000)
    assert.equal(out.priced?.pico, 0n)
    assert.deepEqual(gw.cache, { hit: true, request_id: 'req_first', saved_usd: 0.002 })
    assert.deepEqual(ctx.responseCache, { hit: true, request_id: 'req_first', saved_usd: 0.002 })
    assert.equal(out.headers()['x-gw-cost-usd'], '0')
  })

  it('an unknown price stays visibly unpriced, never $0', async () => {
    const { out } = await delivering({ target: fakeTarget() })
    const gw = out.close(usage)
    assert.equal(gw.cost?.priced, false)
    assert.equal(gw.cost?.final_usd, null)
    assert.match(gw.cost!.unpriced_reason!, /no price known for p\/m/)
    assert.equal('x-gw-cost-usd' in out.headers(), false)
  })

  it('a call no provider bills costs nothing, said so even before it is closed', async () => {
    const { out } = await delivering({ free: true })
    assert.equal(out.headers()['x-gw-cost-usd'], '0')
    assert.equal(out.close(usage).cost?.final_usd, 0)
    assert.equal(out.priced?.pico, 0n)
    assert.equal(out.ready(), null)
  })

  it('a request with nothing to store before its end does not wait', async () => {
    const { out } = await delivering()
    out.close(usage)
    assert.equal(out.ready(), null)
  })

  it('the end waits for held writes; one that fails withholds it (store_unavailable)', async () => {
    const { out } = await delivering()
    let store!: () => void
    out.hold(new Promise<void>((resolve) => (store = resolve)))
    const ready = out.ready()
    assert.ok(ready, 'a held write is waited for')
    const turn = new Promise((resolve) => setImmediate(resolve, 'pending'))
    assert.equal(await Promise.race([ready.then(() => 'ready'), turn]), 'pending', 'not ready while the write is pending')
    store()
    await ready

    const failing = (await delivering()).out
    failing.hold(Promise.reject(new Error('disk I/O error')))
    await assert.rejects(
      failing.ready()!,
      (e: unknown) => e instanceof ApiError && e.status === 503 && e.code === 'store_unavailable' && /disk I\/O error/.test(e.message),
    )
  })

  it('a prepaid answer’s charge is in the ledger before its end goes out, at the price it closed with', async () => {
    const { out, ledger, key, admission, ctx } = await delivering({ prepaid: true })
    out.close(usage)
    await out.ready()
    assert.equal(admission.reservation?.debit, 'written')
    const [debit] = (await ledger.entries(key.id)).filter((e) => e.kind === 'usage')
    assert.equal(debit.request_id, ctx.id)
    assert.equal(debit.amount_usd, -0.002)
    assert.equal(debit.created_at, ctx.startedAt.getTime())
  })

  it('held writes come first: when they fail, nothing is charged', async () => {
    const { out, ledger, key, admission } = await delivering({ prepaid: true })
    out.close(usage)
    out.hold(Promise.reject(new Error('disk I/O error')))
    await assert.rejects(out.ready()!, { code: 'store_unavailable' })
    assert.equal(admission.reservation?.debit, 'due')
    assert.deepEqual(
      (await ledger.entries(key.id)).map((e) => e.kind),
      ['top_up'],
    )
  })

  it('a charge the store refuses withholds the end (ledger_unavailable)', async () => {
    const { out, refuseDebits, admission } = await delivering({ prepaid: true })
    await refuseDebits()
    out.close(usage)
    await assert.rejects(out.ready()!, { code: 'ledger_unavailable' })
    assert.equal(admission.reservation?.debit, 'waived')
  })

  it('notes the first byte once, and each ignored field once', async () => {
    const { out, ctx } = await delivering()
    assert.equal(ctx.ttfbMs, null)
    out.firstByte()
    const first = ctx.ttfbMs
    assert.equal(typeof first, 'number')
    out.firstByte()
    assert.equal(ctx.ttfbMs, first)
    out.ignore({ name: 'logit_bias', reason: 'not supported by p' })
    out.ignore({ name: 'logit_bias', reason: 'said again' })
    out.ignore({ name: 'seed', reason: 'not supported by p' })
    assert.deepEqual(ctx.attribution.ignored, [
      { name: 'logit_bias', reason: 'not supported by p' },
      { name: 'seed', reason: 'not supported by p' },
    ])
  })
})
