/**
 * The Overview's cache figures for a period: what prompt-cache reads saved, what writes no later
 * request read cost, the hit rate, and the response cache's hits and savings. Each is computed
 * here again from the records themselves (and, for sessions, from the session pages' prompt-cache
 * doctor), and must agree to the token and the pico-dollar. The provider is the fake Anthropic
 * playing the prompt cache; the response cache is hit by the official `openai` SDK.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import type { RunningGateway } from '../../src/gateway/server'
import type { Input, Output } from '../../src/contract'
import { picoToUsdNumber, usdToPico } from '../../src/contract/money'
import type { RequestRecord } from '../../src/gateway/store/requestsRepo'
import { startCachingGateway, type CachingGateway } from '../support/cachingGateway'
import { gwCli, ownerCookie, waitForRecord } from '../support/harness'
import { LONG_INSTRUCTIONS, sendCacheTurn, type CacheTurn } from '../support/cacheTurns'

const START = Date.parse('2026-11-20T10:00:00Z')
const MIN = 60_000
const TTL = { '5m': 5 * MIN, '1h': 60 * MIN }

const pico = (usd: number | null | undefined) => (usd ? usdToPico(usd) : 0n)
const sumUsd = <T>(xs: T[], f: (x: T) => number | null | undefined) => picoToUsdNumber(xs.reduce((s, x) => s + pico(f(x)), 0n))

/** A record as the cache doctor counts it: a provider answered with usage, and it was no response-cache replay. */
const cacheTurn = (r: RequestRecord) => r.usage !== null && r.provider !== null && r.upstream_model !== null && !r.response_cache?.hit

/**
 * The unread writes among `writes`, as of `now`, found from the records alone: a write was read
 * when a later record of the same key, without a session, on the same provider and upstream model
 * read more of the cache than it did within its TTL.
 */
function unreadSessionless(records: RequestRecord[], now: number): RequestRecord[] {
  const turns = records.filter((r) => r.attribution.session_id === null && cacheTurn(r))
  return turns.filter((w, i) => {
    if (!(w.usage!.cache_write_tokens > 0)) return false
    const until = Date.parse(w.created_at) + (w.usage!.cache_write_1h_tokens > 0 ? TTL['1h'] : TTL['5m'])
    if (until >= now) return false
    return !turns
      .slice(i + 1)
      .some(
        (k) =>
          Date.parse(k.created_at) <= until &&
          k.key_id === w.key_id &&
          k.provider === w.provider &&
          k.upstream_model === w.upstream_model &&
          k.usage!.cached_tokens > w.usage!.cached_tokens,
      )
  })
}

describe('the Overview: cache saved, wasted, hit rate and response-cache hits agree with the records', () => {
  let stack: CachingGateway
  let gateway: RunningGateway
  let dataDir: string
  let cookie: string
  let laptop: { secret: string; info: { id: string } }
  let ci: { secret: string; info: { id: string } }
  let now = START

  async function api<N extends 'analytics.overview' | 'sessions.get' | 'requests.list'>(name: N, input: Input<N>): Promise<Output<N>> {
    const res = await fetch(`${gateway.url}/api/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify(input),
    })
    assert.equal(res.status, 200, await res.clone().text())
    return (await res.json()) as Output<N>
  }

  /** One turn as Claude Code lays it out; the clock then moves `gap` on. */
  async function turn(key: string, session: string | null, t: CacheTurn, gap = 30_000): Promise<RequestRecord> {
    const record = await waitForRecord(gateway.gateway, await sendCacheTurn(gateway.url, key, session, t))
    now += gap
    return record
  }

  /** Every record of the period, oldest first, as the store keeps them. */
  async function records(): Promise<RequestRecord[]> {
    await gateway.gateway.records.flushed()
    return (await gateway.gateway.store.requests.list(1000)).reverse()
  }

  before(async () => {
    stack = await startCachingGateway(() => now)
    gateway = stack.gateway
    dataDir = stack.dataDir
    laptop = await gateway.gateway.store.keys.create('laptop')
    ci = await gateway.gateway.store.keys.create('ci')
    await gateway.gateway.configChanged()
    cookie = await ownerCookie(gateway.url)

    // A steady session: each turn reads what the one before wrote.
    await turn(laptop.secret, 'steady', { asks: ['Read the README'] })
    await turn(laptop.secret, 'steady', { asks: ['Read the README', 'Now fix the typo'] })
    await turn(laptop.secret, 'steady', { asks: ['Read the README', 'Now fix the typo', 'Run the tests'] })
    // A session whose system prompt changes every turn, on two keys: every write is left unread.
    const stamp = (i: number) => `${LONG_INSTRUCTIONS}Current time: 10:0${i}:00.`
    await turn(laptop.secret, 'clock', { system: stamp(1), asks: ['Plan the change'] })
    await turn(ci.secret, 'clock', { system: stamp(2), asks: ['Plan the change', 'Write it'] })
    // Without a session: the laptop's second request reads the first's write within its TTL and
    // writes more, which nothing reads: the third comes 10 minutes later with a new prefix, and
    // its own write stays unread too.
    const loose = `${LONG_INSTRUCTIONS}No session here.`
    await turn(laptop.secret, null, { system: loose, asks: ['Summarise the diff'] })
    await turn(laptop.secret, null, { system: loose, asks: ['Summarise the diff', 'Shorter'] }, 10 * MIN)
    await turn(laptop.secret, null, { system: `${loose} Again.`, asks: ['Summarise the diff'] })
    // The same prefix on the other key, later: a write of its own, which the laptop's reads never count for.
    await turn(ci.secret, null, { system: `${loose} On CI.`, asks: ['Summarise the diff'] })

    // The response cache: deterministic chat requests asked to be kept, repeated through the openai SDK.
    stack.openai.script({ kind: 'reply', usage: { prompt_tokens: 2048, completion_tokens: 7, cached_tokens: 1024 } }, { kind: 'reply' })
    const client = new OpenAI({ apiKey: ci.secret, baseURL: `${gateway.url}/v1`, maxRetries: 0 })
    const ask = (content: string) =>
      client.chat.completions.create(
        { model: 'openai/gpt-4o-mini', temperature: 0, messages: [{ role: 'user', content }] },
        { headers: { 'X-Gw-Cache': '1h' } },
      )
    for (const content of ['first question', 'first question', 'second question', 'first question', 'second question']) {
      const { response } = await ask(content).withResponse()
      await waitForRecord(gateway.gateway, response.headers.get('x-request-id'))
      now += 1_000
    }
    now += 2 * 60 * MIN // every write's TTL has ended
  })

  after(async () => {
    await stack?.close()
  })

  it('the period: saved, hit rate and response-cache hits are the records summed; wasted is the session pages’ plus the unread writes without a session', async () => {
    const all = await records()
    const { cache, totals } = await api('analytics.overview', { from: START, to: now, bucket: 'hour' })
    assert.equal(totals.requests, all.length)

    const turns = all.filter(cacheTurn)
    const hits = all.filter((r) => r.response_cache?.hit)
    assert.equal(hits.length, 3, 'three repeats were answered from the response cache')
    assert.ok(hits.every((r) => r.usage!.cached_tokens === 1024 || r.usage!.cached_tokens === 0))
    assert.ok(
      hits.some((r) => r.usage!.cached_tokens > 0),
      "a replay carries its first answer's cache reads, which the hit rate leaves out",
    )
    assert.equal(
      cache.prompt.prompt_tokens,
      turns.reduce((s, r) => s + r.usage!.prompt_tokens, 0),
    )
    assert.equal(
      cache.prompt.cached_tokens,
      turns.reduce((s, r) => s + r.usage!.cached_tokens, 0),
    )
    assert.equal(cache.prompt.hit_rate, cache.prompt.cached_tokens / cache.prompt.prompt_tokens)
    assert.equal(
      cache.prompt.saved_usd,
      sumUsd(all, (r) => r.cost?.cache_savings_usd),
    )
    assert.ok(cache.prompt.saved_usd !== 0)
    assert.equal(cache.response.hits, hits.length)
    assert.equal(
      cache.response.saved_usd,
      sumUsd(hits, (r) => (r.response_cache?.hit ? r.response_cache.saved_usd : 0)),
    )
    assert.ok(cache.response.saved_usd > 0)

    // Wasted: the doctor's figure for each session, and the same rule over each key's requests without one.
    const sessions = await Promise.all(['steady', 'clock'].map((id) => api('sessions.get', { id })))
    assert.deepEqual(
      sessions.map((x) => x.cache.turns.map((t) => t.unread_write)),
      [
        [false, false, true],
        [true, true],
      ],
      "the steady session's last write is past its TTL, unread; none of the clock session's was read",
    )
    const loose = unreadSessionless(all, now)
    assert.equal(loose.length, 3, "the laptop's second and third writes, and the other key's")
    const wasted = sessions.reduce((s, x) => s + usdToPico(x.cache.wasted_usd), 0n) + loose.reduce((s, r) => s + pico(r.cost?.cache_write_usd), 0n)
    assert.ok(wasted > 0n)
    assert.equal(cache.prompt.wasted_usd, picoToUsdNumber(wasted))
    assert.equal(
      cache.prompt.wasted_tokens,
      sessions.reduce((s, x) => s + x.cache.wasted_tokens, 0) + loose.reduce((s, r) => s + r.usage!.cache_write_tokens, 0),
    )
    assert.equal(cache.prompt.unread_writes, sessions.reduce((s, x) => s + x.cache.turns.filter((t) => t.unread_write).length, 0) + loose.length)
  })

  it("filtered to a session, the Overview's figures are its page's; to a key, its records'", async () => {
    for (const id of ['steady', 'clock']) {
      const { cache } = await api('sessions.get', { id })
      const o = (await api('analytics.overview', { from: START, to: now, filter: { session_id: id } })).cache.prompt
      assert.deepEqual(
        { prompt_tokens: o.prompt_tokens, cached_tokens: o.cached_tokens, saved_usd: o.saved_usd, wasted_usd: o.wasted_usd, wasted_tokens: o.wasted_tokens },
        {
          prompt_tokens: cache.prompt_tokens,
          cached_tokens: cache.cached_tokens,
          saved_usd: cache.saved_usd,
          wasted_usd: cache.wasted_usd,
          wasted_tokens: cache.wasted_tokens,
        },
      )
    }
    // A key's writes, unread as the whole sequence tells it: the clock session's second turn, on
    // the other key, read nothing of the laptop's first.
    const all = await records()
    const unread = new Set([
      ...(await Promise.all(['steady', 'clock'].map((id) => api('sessions.get', { id })))).flatMap((x) =>
        x.cache.turns.filter((t) => t.unread_write).map((t) => t.request_id),
      ),
      ...unreadSessionless(all, now).map((r) => r.id),
    ])
    for (const key of [laptop, ci]) {
      const mine = all.filter((r) => r.key_id === key.info.id)
      const o = (await api('analytics.overview', { from: START, to: now, filter: { key_id: key.info.id } })).cache
      assert.equal(
        o.prompt.saved_usd,
        sumUsd(mine, (r) => r.cost?.cache_savings_usd),
      )
      assert.equal(
        o.prompt.cached_tokens,
        mine.filter(cacheTurn).reduce((s, r) => s + r.usage!.cached_tokens, 0),
      )
      assert.equal(
        o.prompt.wasted_usd,
        sumUsd(
          mine.filter((r) => unread.has(r.id)),
          (r) => r.cost?.cache_write_usd,
        ),
      )
      assert.equal(o.response.hits, mine.filter((r) => r.response_cache?.hit).length)
    }
  })

  it('a write whose TTL has not ended is not wasted yet; a period before any request has no hit rate', async () => {
    const last = await turn(laptop.secret, null, { system: `${LONG_INSTRUCTIONS}Fresh.`, asks: ['One more'] }, 0)
    assert.ok(last.usage!.cache_write_tokens > 0)
    const before = (await api('analytics.overview', { from: START, to: now + 1 })).cache.prompt
    now += 4 * MIN
    assert.equal((await api('analytics.overview', { from: START, to: now })).cache.prompt.wasted_usd, before.wasted_usd)
    now += 2 * MIN
    const after = (await api('analytics.overview', { from: START, to: now })).cache.prompt
    assert.equal(after.wasted_usd, picoToUsdNumber(usdToPico(before.wasted_usd) + pico(last.cost?.cache_write_usd)))
    assert.equal(after.unread_writes, before.unread_writes + 1)

    const empty = (await api('analytics.overview', { from: START - 60 * MIN, to: START })).cache
    assert.deepEqual(empty, {
      prompt: { prompt_tokens: 0, cached_tokens: 0, hit_rate: null, saved_usd: 0, wasted_usd: 0, wasted_tokens: 0, unread_writes: 0 },
      response: { hits: 0, saved_usd: 0 },
    })
  })

  it('`gw cache stats --since` prints the same figures', async () => {
    const { cache } = await api('analytics.overview', { from: START, to: Date.now() + 1, bucket: 'day' })
    const { stdout } = await gwCli(['cache', 'stats', '--since', new Date(START).toISOString(), '--json'], { dataDir })
    assert.deepEqual(JSON.parse(stdout).period, { from: START, ...cache })
    const text = (await gwCli(['cache', 'stats', '--since', new Date(START).toISOString()], { dataDir })).stdout
    assert.match(
      text,
      new RegExp(`wasted \\$${cache.prompt.wasted_usd} on ${cache.prompt.unread_writes} writes never read \\(${cache.prompt.wasted_tokens} tokens\\)`),
    )
    assert.match(text, new RegExp(`response cache  ${cache.response.hits} requests answered, \\$${cache.response.saved_usd} saved`))
  })
})
