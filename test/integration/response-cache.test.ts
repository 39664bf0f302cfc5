import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import { gwCli, startTestGateway, type TestGateway } from '../support/harness'

/** The `gw` block of a whole answer, or of the stream chunk that carries it. */
const gwOf = (x: unknown): any => (x as { gw?: unknown }).gw

/** Streams a completion through the SDK: the text, the chunk ids, and the `gw` block. */
async function streamed(client: OpenAI, body: OpenAI.ChatCompletionCreateParamsNonStreaming, headers: Record<string, string> = {}) {
  const stream = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, { headers })
  let text = ''
  const ids = new Set<string>()
  let gw: any = null
  for await (const chunk of stream) {
    ids.add(chunk.id)
    text += chunk.choices[0]?.delta?.content ?? ''
    gw = gwOf(chunk) ?? gw
  }
  return { text, ids: [...ids], gw }
}

const ASK = { 'X-Gw-Cache': '1h' }
const question = (content: string) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content }] })

describe('the response cache, through the official openai SDK', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it('answers a repeat of a request that asked for it from the cache: same answer, no provider call, $0 and the saving, recorded as a hit of the first', async () => {
    t.fake.script({ kind: 'reply', content: 'Cached words.', usage: { prompt_tokens: 1000, completion_tokens: 500, cached_tokens: 0 } })
    const calls = t.fake.received.length
    const first = await t.client.chat.completions.create(question('json once'), { headers: ASK })
    assert.deepEqual(gwOf(first).cache, { hit: false })
    assert.equal(t.fake.received.length, calls + 1)
    const paid = gwOf(first).cost.final_usd
    assert.ok(paid > 0)

    const again = await t.client.chat.completions.create(question('json once'), { headers: ASK })
    assert.equal(t.fake.received.length, calls + 1, 'the provider is not called again')
    assert.equal(again.id, first.id, "the provider's own answer, replayed")
    assert.equal(again.choices[0].message.content, 'Cached words.')
    const gw = gwOf(again)
    assert.notEqual(gw.request_id, gwOf(first).request_id)
    assert.deepEqual(gw.cache, { hit: true, request_id: gwOf(first).request_id, saved_usd: paid })
    assert.equal(gw.cost.final_usd, 0)
    assert.equal(gw.cost.price_source, 'response cache')
    assert.equal(gw.routing.provider, 'openai')

    const record = await t.record(gw.request_id)
    assert.equal(record.outcome, 'ok')
    assert.deepEqual(record.response_cache, { hit: true, request_id: gwOf(first).request_id, saved_usd: paid })
    assert.equal(record.cost?.final_usd, 0)
    assert.equal(record.usage?.prompt_tokens, 1000)
    assert.deepEqual((await t.record(gwOf(first).request_id)).response_cache, { hit: false })
  })

  it('replays a stream as the same events, with the hit on the chunk that carries gw', async () => {
    t.fake.script({ kind: 'reply', content: 'Streamed and kept.', usage: { prompt_tokens: 40, completion_tokens: 8, cached_tokens: 0 } })
    const calls = t.fake.received.length
    const first = await streamed(t.client, question('stream once'), ASK)
    assert.equal(first.text, 'Streamed and kept.')
    assert.deepEqual(first.gw.cache, { hit: false })
    const again = await streamed(t.client, question('stream once'), ASK)
    assert.equal(t.fake.received.length, calls + 1)
    assert.equal(again.text, 'Streamed and kept.')
    assert.deepEqual(again.ids, first.ids)
    assert.equal(again.gw.cache.hit, true)
    assert.equal(again.gw.cache.request_id, first.gw.request_id)
    assert.equal(again.gw.cache.saved_usd, first.gw.cost.final_usd)
    assert.equal(again.gw.cost.final_usd, 0)
    // A whole answer and a stream are different requests upstream: neither answers the other.
    await t.client.chat.completions.create(question('stream once'), { headers: ASK })
    assert.equal(t.fake.received.length, calls + 2)
  })

  it('matches exactly: another message, model parameter or body field is another request; who asks is not', async () => {
    const calls = t.fake.received.length
    await t.client.chat.completions.create(question('exact'), { headers: ASK })
    await t.client.chat.completions.create({ ...question('exact'), max_tokens: 20 }, { headers: ASK })
    await t.client.chat.completions.create(question('exact!'), { headers: ASK })
    assert.equal(t.fake.received.length, calls + 3)
    await t.client.chat.completions.create({ ...question('exact'), max_tokens: 20 }, { headers: ASK })
    assert.equal(t.fake.received.length, calls + 3)
    // Who asks shapes no answer: the caller's id and attribution make no other request.
    const named = await t.client.chat.completions.create({ ...question('exact'), max_tokens: 20, user: 'someone-else', gw: { user_id: 'u2' } } as any, {
      headers: { ...ASK, 'X-Gw-Trace-Id': 't2' },
    })
    assert.equal(t.fake.received.length, calls + 3)
    assert.equal(gwOf(named).cache.hit, true)
  })

  it('never answers one key with what another key was answered', async () => {
    const other = new OpenAI({ baseURL: t.baseURL, apiKey: (await t.running.gateway.store.keys.create('other')).secret, maxRetries: 0 })
    await t.running.gateway.configChanged()
    const calls = t.fake.received.length
    const mine = await t.client.chat.completions.create(question('per key'), { headers: ASK })
    const theirs = await other.chat.completions.create(question('per key'), { headers: ASK })
    assert.equal(t.fake.received.length, calls + 2)
    assert.deepEqual(gwOf(theirs).cache, { hit: false })
    assert.notEqual(theirs.id, mine.id)
    const theirsAgain = await other.chat.completions.create(question('per key'), { headers: ASK })
    assert.equal(theirsAgain.id, theirs.id)
    assert.equal(t.fake.received.length, calls + 2)
  })

  it('keeps no error, refusal or cut-short stream', async () => {
    const calls = t.fake.received.length
    t.fake.script({ kind: 'status', status: 500 })
    await assert.rejects(t.client.chat.completions.create(question('failing'), { headers: ASK }), (e: any) => e.status === 502 || e.status === 500)
    await t.client.chat.completions.create(question('failing'), { headers: ASK })
    assert.equal(t.fake.received.length, calls + 2, 'the error was not kept')

    t.fake.script({ kind: 'reply', content: '', finishReason: 'content_filter' })
    await t.client.chat.completions.create(question('filtered'), { headers: ASK })
    await t.client.chat.completions.create(question('filtered'), { headers: ASK })
    assert.equal(t.fake.received.length, calls + 4, 'the refusal was not kept')

    t.fake.script({ kind: 'fail-mid-stream', afterChunks: 2, mode: 'drop' })
    await assert.rejects(streamed(t.client, question('cut short'), ASK))
    await streamed(t.client, question('cut short'), ASK)
    assert.equal(t.fake.received.length, calls + 6, 'the stream cut short was not kept')
  })

  it('caches a key’s deterministic requests when the key has a TTL, and lets a request stay out', async () => {
    const gw = t.running.gateway
    const { secret, info } = await gw.store.keys.create('cached', { response_cache_ttl_s: 600 })
    await gw.configChanged()
    const client = new OpenAI({ baseURL: t.baseURL, apiKey: secret, maxRetries: 0 })
    const calls = t.fake.received.length
    const cold = { ...question('by the key'), temperature: 0 }
    const first = await client.chat.completions.create(cold)
    const second = await client.chat.completions.create(cold)
    assert.equal(t.fake.received.length, calls + 1)
    assert.equal(gwOf(second).cache.hit, true)
    assert.equal(second.id, first.id)

    const warm = { ...question('by the key'), temperature: 0.7 }
    await client.chat.completions.create(warm)
    await client.chat.completions.create(warm)
    assert.equal(t.fake.received.length, calls + 3, 'a sampled request is never cached by the key alone')
    const several = { ...cold, n: 2 }
    await client.chat.completions.create(several)
    await client.chat.completions.create(several)
    assert.equal(t.fake.received.length, calls + 5, 'n > 1 is never cached by the key alone')

    const out = await client.chat.completions.create(cold, { headers: { 'X-Gw-Cache': 'off' } })
    assert.equal(t.fake.received.length, calls + 6)
    assert.equal(gwOf(out).cache, undefined)

    // Turned off on the key, the same request reaches the provider.
    await gw.store.keys.update(info.id, { response_cache_ttl_s: null })
    await gw.configChanged()
    await client.chat.completions.create(cold)
    assert.equal(t.fake.received.length, calls + 7)
  })

  it("caches a preset's deterministic requests per key, or shared between keys when the preset says so", async () => {
    const gw = t.running.gateway
    const keyClient = async (name: string) => new OpenAI({ baseURL: t.baseURL, apiKey: (await gw.store.keys.create(name)).secret, maxRetries: 0 })
    const [a, b] = [await keyClient('preset-a'), await keyClient('preset-b')]
    await gwCli(['presets', 'set', 'own-evals', '--model', 'openai/gpt-4o-mini', '--temperature', '0', '--cache-ttl', '1h'], { dataDir: t.dataDir })
    await gwCli(['presets', 'set', 'team-evals', '--model', 'openai/gpt-4o-mini', '--temperature', '0', '--cache-ttl', '1h', '--cache-shared'], {
      dataDir: t.dataDir,
    })
    await gw.configChanged()
    const listed = (await gwCli(['presets', 'list'], { dataDir: t.dataDir })).stdout
    assert.match(listed, /own-evals .* 1h /)
    assert.match(listed, /team-evals .* 1h shared /)
    const ask = (client: OpenAI, preset: string) =>
      client.chat.completions.create({ model: `@preset/${preset}`, messages: [{ role: 'user', content: 'preset' }] })

    let calls = t.fake.received.length
    await ask(a, 'own-evals')
    assert.equal(gwOf(await ask(a, 'own-evals')).cache.hit, true, 'the preset turns the cache on')
    assert.equal(gwOf(await ask(b, 'own-evals')).cache.hit, false, 'but each key has its own answers')
    assert.equal(t.fake.received.length, calls + 2)

    calls = t.fake.received.length
    const first = await ask(a, 'team-evals')
    const shared = await ask(b, 'team-evals')
    assert.equal(t.fake.received.length, calls + 1, 'a shared preset answers another key from the cache')
    assert.deepEqual(gwOf(shared).cache, { hit: true, request_id: gwOf(first).request_id, saved_usd: gwOf(first).cost.final_usd })
  })

  it('takes the TTL from gw.cache in the body, refuses a bad one naming the field, and expires answers', async () => {
    const calls = t.fake.received.length
    const body = { ...question('short-lived'), gw: { cache: '1s' } } as any
    await t.client.chat.completions.create(body)
    await t.client.chat.completions.create(body)
    assert.equal(t.fake.received.length, calls + 1)
    await new Promise((r) => setTimeout(r, 1100))
    await t.client.chat.completions.create(body)
    assert.equal(t.fake.received.length, calls + 2, 'an expired answer is not used')

    await assert.rejects(t.client.chat.completions.create({ ...question('bad'), gw: { cache: 'forever' } } as any), (e: any) => {
      assert.equal(e.status, 400)
      assert.equal(e.param, 'gw.cache')
      return true
    })
  })

  it('gw cache stats agrees with the records to the token, and gw cache clear empties the cache', async () => {
    const gw = t.running.gateway
    await gw.records.flushed()
    const records = await gw.store.requests.list(1000)
    const hits = records.filter((r) => r.response_cache?.hit)
    const savedPico = hits.reduce((sum, r) => sum + BigInt(Math.round((r.response_cache as { saved_usd: number }).saved_usd * 1e12)), 0n)
    const { stdout } = await gwCli(['cache', 'stats', '--json'], { dataDir: t.dataDir })
    const stats = JSON.parse(stdout)
    assert.equal(stats.hits, hits.length)
    assert.ok(stats.hits >= 8)
    assert.equal(BigInt(Math.round(stats.saved_usd * 1e12)), savedPico)
    assert.ok(stats.entries > 0 && stats.bytes > 0)

    const cleared = await gwCli(['cache', 'clear'], { dataDir: t.dataDir })
    // The CLI's own gateway prunes expired answers as it opens the store: those are not counted.
    assert.match(cleared.stdout.trim(), /^deleted \d+ cached answers$/)
    assert.ok(Number(cleared.stdout.match(/\d+/)![0]) >= stats.entries - 1)
    assert.deepEqual(await gw.store.responseCache.footprint(), { entries: 0, bytes: 0 })
    const calls = t.fake.received.length
    await t.client.chat.completions.create(question('json once'), { headers: ASK })
    assert.equal(t.fake.received.length, calls + 1, 'a cleared answer is asked again')
  })
})
