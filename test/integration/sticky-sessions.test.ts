/**
 * Routing that keeps prompt caches warm: a session's turns under a preset go where its previous
 * turn was answered, among equal candidates and after a fallback, until that target fails or
 * cools down; a move is recorded with what it re-wrote. Two fake Anthropic providers serve the
 * same model, each playing its own prompt cache (`FakePromptCache`): a session that moves finds
 * an empty cache and writes its prefix again, as it would on a real provider.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import OpenAI from 'openai'
import { GoogleGenAI } from '@google/genai'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { usdToPico } from '../../src/contract/money'
import type { Output } from '../../src/contract'
import type { RequestRecord } from '../../src/gateway/store/requestsRepo'
import type { PresetFields } from '../../src/gateway/store/presetsRepo'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { MemorySecretStore } from '../support/memorySecretStore'
import { postgresSkipReason, sharedPostgres } from '../support/postgres'
import { ownerCookie, testStoreFor, waitForRecord } from '../support/harness'
import { tempDir } from '../support/tempDir'
import { cacheTurn, LONG_INSTRUCTIONS } from '../support/cacheTurns'

const MODEL = 'claude-sonnet-4-5'
const START = Date.parse('2026-11-20T10:00:00Z')
const COOLDOWN_MS = 60_000
/** The second provider's price, set for the test: 5-minute cache writes at $3.75 per million tokens. */
const MIRROR_ROW = { input: 3, output: 15, cached_input: 0.3, cache_write: 3.75, cache_write_1h: 6 }
const WRITE_PICO_PER_TOKEN = 3_750_000n

const preset = (name: string, equal: boolean): PresetFields => ({
  name,
  model: `anthropic/${MODEL}`,
  fallbacks: [`mirror/${MODEL}`],
  equal_candidates: equal,
  system_prompt: null,
  temperature: null,
  max_tokens: null,
  top_p: null,
  description: null,
})

interface Setup {
  anthropic: FakeAnthropic
  mirror: FakeAnthropic
  env: Record<string, string>
}

async function fakes(): Promise<Setup> {
  const anthropic = await startFakeAnthropic({ promptCache: true })
  const mirror = await startFakeAnthropic({ promptCache: true })
  return { anthropic, mirror, env: { ANTHROPIC_API_KEY: anthropic.apiKey, MIRROR_API_KEY: mirror.apiKey } }
}

async function configure(gateway: RunningGateway, s: Setup): Promise<string> {
  const store = gateway.gateway.store
  await store.providers.upsert('anthropic', 'anthropic', s.anthropic.url)
  await store.providers.upsert('mirror', 'anthropic', s.mirror.url)
  await store.prices.set({ model: `mirror/${MODEL}`, row: MIRROR_ROW, as_of: '2026-11-20', note: null })
  await store.presets.save(preset('pair', true), 'test')
  await store.presets.save(preset('ordered', false), 'test')
  const secret = (await store.keys.create('laptop')).secret
  await gateway.gateway.configChanged()
  return secret
}

/** The fake that answers as `provider`. */
const fakeOf = (s: Setup, provider: string) => (provider === 'anthropic' ? s.anthropic : s.mirror)
const other = (provider: string) => (provider === 'anthropic' ? 'mirror' : 'anthropic')

describe('sticky sessions: a session stays where its prompt cache is', () => {
  let s: Setup
  let gateway: RunningGateway
  let dataDir: string
  let secret: string
  let now = START
  /** Asks so far, per session: each turn adds one, as a conversation grows. */
  const asked = new Map<string, string[]>()

  async function turn(session: string, model = 'policy/pair', key = secret): Promise<{ record: RequestRecord; gw: any }> {
    const asks = [...(asked.get(session) ?? []), `step ${(asked.get(session)?.length ?? 0) + 1} of ${session}`]
    asked.set(session, asks)
    const { id, answer } = await cacheTurn(gateway.url, key, session, { asks }, model)
    now += 10_000
    return { record: await waitForRecord(gateway.gateway, id), gw: answer.gw }
  }

  before(async () => {
    s = await fakes()
    dataDir = tempDir()
    gateway = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', ...(await testStoreFor(dataDir)) },
      { env: s.env, routing: { maxRetries: 0, cooldownAfterFailures: 1, cooldownMs: COOLDOWN_MS }, clock: () => now },
    )
    secret = await configure(gateway, s)
  })

  after(async () => {
    await gateway?.close()
    await s?.anthropic.close()
    await s?.mirror.close()
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('holds each session on one of two equal providers, moves it when that one fails or cools down, and records what the move re-wrote', async () => {
    // Sessions take a stable spot among the equals: find two on one provider and one on the other.
    const first = new Map<string, string>()
    for (let i = 0; i < 12; i++) first.set(`sess-${i}`, (await turn(`sess-${i}`)).record.provider!)
    const [a, c] = [...first].filter(([, p]) => p === first.get('sess-0')).map(([id]) => id)
    const b = [...first].find(([, p]) => p !== first.get('sess-0'))?.[0]
    assert.ok(a && c && b, `sessions on both providers: ${JSON.stringify([...first])}`)
    const held = first.get(a)!
    const moveTo = other(held)

    // Its turns stay there, reading the cache they wrote; none is marked moved.
    for (let i = 0; i < 2; i++) {
      const { record, gw } = await turn(a)
      assert.equal(record.provider, held)
      assert.equal(record.moved, undefined)
      assert.equal(gw.routing.moved, null)
      assert.ok(record.usage!.cached_tokens > 0, 'the held provider reads the cache')
    }
    assert.equal((await turn(b)).record.provider, moveTo)

    // The held provider fails: the turn moves, and its record says from where, why and what it re-wrote.
    fakeOf(s, held).script({ kind: 'status', status: 500 })
    const moved = await turn(a)
    assert.equal(moved.record.provider, moveTo)
    const write = moved.record.usage!.cache_write_tokens
    assert.ok(write > 0, 'the new provider writes the prefix again')
    assert.deepEqual(moved.record.moved, {
      from: `${held}/${MODEL}`,
      to: `${moveTo}/${MODEL}`,
      reason: 'failed',
      cache_write_tokens: write,
      cache_write_usd: moved.record.cost!.cache_write_usd,
    })
    assert.deepEqual(moved.gw.routing.moved, moved.record.moved)
    if (moveTo === 'mirror') assert.equal(usdToPico(moved.record.moved!.cache_write_usd!), BigInt(write) * WRITE_PICO_PER_TOKEN)
    assert.equal(moved.record.fallback_used, true, 'the candidate tried first did not serve')
    // The prompt-cache doctor names the move as the reason the turn missed.
    const res = await fetch(`${gateway.url}/api/sessions.get`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: await ownerCookie(gateway.url) },
      body: JSON.stringify({ id: a }),
    })
    const { cache } = (await res.json()) as Output<'sessions.get'>
    const cause = cache!.turns.find((t) => t.request_id === moved.record.id)!.cause
    assert.equal(cause?.kind, 'moved')
    assert.match(
      cause!.text,
      new RegExp(
        `^moved from ${held}/${MODEL} to ${moveTo}/${MODEL} \\(because it failed\\) at turn 4: ${write.toLocaleString('en-US')} tokens re-written, \\$`,
      ),
    )

    // The failure cooled the held provider down: the other session held there moves too, saying why.
    const cooled = await turn(c)
    assert.equal(cooled.record.provider, moveTo)
    assert.equal(cooled.record.moved?.reason, 'cooled_down')

    // Once it has recovered, the moved sessions stay where their caches now are.
    now += COOLDOWN_MS
    const calls = fakeOf(s, held).received.length
    for (const session of [a, c]) {
      const { record } = await turn(session)
      assert.equal(record.provider, moveTo)
      assert.equal(record.moved, undefined)
      assert.ok(record.usage!.cached_tokens > 0)
    }
    assert.equal(fakeOf(s, held).received.length, calls, 'no turn went back to the recovered provider')
  })

  it('after a fallback served, the session stays on it once the primary recovers; a request without a session goes back to the primary', async () => {
    const start = await turn('fb-1', 'policy/ordered')
    assert.equal(start.record.provider, 'anthropic', JSON.stringify(start.record.attempts))
    s.anthropic.script({ kind: 'status', status: 503 })
    const moved = await turn('fb-1', 'policy/ordered')
    assert.equal(moved.record.provider, 'mirror')
    assert.equal(moved.record.fallback_used, true)
    assert.equal(moved.record.moved?.reason, 'failed')
    assert.equal(moved.record.moved?.from, `anthropic/${MODEL}`)

    now += COOLDOWN_MS
    const kept = await turn('fb-1', 'policy/ordered')
    assert.equal(kept.record.provider, 'mirror')
    assert.equal(kept.record.moved, undefined)
    assert.ok(kept.record.usage!.cached_tokens > 0, 'it reads the cache it wrote on the fallback')

    const { answer } = await cacheTurn(gateway.url, secret, null, { asks: ['no session'] }, 'policy/ordered')
    assert.equal(answer.gw.routing.provider, 'anthropic')
  })

  it("a key's policy that comes to refuse the provider holding a session moves it, saying so", async () => {
    const { secret: key, info } = await gateway.gateway.store.keys.create('policy-bound')
    await gateway.gateway.configChanged()
    // A session whose spot is the second provider (the preset's model passed the policy at admission).
    let session = ''
    for (let i = 0; i < 12 && !session; i++) if ((await turn(`pol-${i}`, 'policy/pair', key)).record.provider === 'mirror') session = `pol-${i}`
    assert.ok(session, 'a session held on mirror')
    await gateway.gateway.store.keys.update(info.id, { policy: { allowed_providers: ['anthropic'] } })
    await gateway.gateway.configChanged()
    const moved = await turn(session, 'policy/pair', key)
    assert.equal(moved.record.provider, 'anthropic')
    assert.equal(moved.record.moved?.reason, 'policy')
    assert.match(moved.record.attempts[0].error ?? '', /^skipped: /)
  })

  it('requests without a session take equal providers in turn', async () => {
    const served: string[] = []
    for (let i = 0; i < 4; i++) served.push((await cacheTurn(gateway.url, secret, null, { asks: [`plain ${i}`] }, 'policy/pair')).answer.gw.routing.provider)
    assert.deepEqual(new Set(served), new Set(['anthropic', 'mirror']))
    assert.notEqual(served[0], served[1])
  })
})

describe('sticky sessions across two gateways on one PostgreSQL', { skip: postgresSkipReason() ?? false }, () => {
  let s: Setup
  let gateways: RunningGateway[]
  const dataDirs: string[] = []
  let secret: string

  before(async () => {
    s = await fakes()
    const databaseUrl = await (await sharedPostgres()).createDatabase()
    const start = () => {
      const dataDir = tempDir()
      dataDirs.push(dataDir)
      return startGateway(
        { host: '127.0.0.1', port: 0, dataDir, databaseUrl, logLevel: 'silent' },
        { env: s.env, secrets: new MemorySecretStore(), routing: { maxRetries: 0 } },
      )
    }
    gateways = [await start(), await start()]
    secret = await configure(gateways[0], s)
    await gateways[1].gateway.configChanged()
  })

  after(async () => {
    await Promise.all((gateways ?? []).map((g) => g.close()))
    await s?.anthropic.close()
    await s?.mirror.close()
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true })
  })

  it("a session's next turn on the other gateway stays on the provider its last turn moved to", async () => {
    const [one, two] = gateways
    const send = async (g: RunningGateway, asks: string[]) => {
      const { id } = await cacheTurn(g.url, secret, 'team-session', { asks }, 'policy/pair')
      return waitForRecord(g.gateway, id)
    }
    const first = await send(one, ['one'])
    // Moved away from its stable spot on the first gateway, which the second knows nothing of.
    fakeOf(s, first.provider!).script({ kind: 'status', status: 500 })
    const second = await send(one, ['one', 'two'])
    assert.equal(second.provider, other(first.provider!))
    assert.equal(second.moved?.reason, 'failed')
    const third = await send(two, ['one', 'two', 'three'])
    assert.equal(third.instance, two.gateway.instance)
    assert.equal(third.provider, second.provider, 'the second gateway read where the session is from the store')
    assert.equal(third.moved, undefined)
    assert.ok(third.usage!.cached_tokens > 0)
  })
})

describe('translated paths carry what the target reads for caching', () => {
  let openai: FakeOpenAI
  let anthropic: FakeAnthropic
  let gateway: RunningGateway
  let dataDir: string
  let secret: string

  before(async () => {
    openai = await startFakeOpenAI()
    anthropic = await startFakeAnthropic({ promptCache: true })
    dataDir = tempDir()
    gateway = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', ...(await testStoreFor(dataDir)) },
      { env: { OPENAI_API_KEY: openai.apiKey, AZURE_API_KEY: openai.apiKey, COMPAT_API_KEY: openai.apiKey, ANTHROPIC_API_KEY: anthropic.apiKey } },
    )
    const store = gateway.gateway.store
    // OpenAI's API under its own id, behind an address of another name (chat completions only), and a compatible server.
    await store.providers.upsert('openai', 'openai', openai.url)
    await store.providers.upsert('azure', 'openai', openai.url, {}, 'chat', 'openai')
    await store.providers.upsert('compat', 'openai', openai.url, {}, 'chat', 'generic')
    await store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    secret = (await store.keys.create('laptop')).secret
    await gateway.gateway.configChanged()
  })

  after(async () => {
    await gateway?.close()
    await openai?.close()
    await anthropic?.close()
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  })

  const lastOpenAI = () => openai.received.at(-1)!.body
  const responses = (session: string | null) =>
    new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0, defaultHeaders: session === null ? {} : { 'x-gw-session-id': session } })
      .responses

  it('Messages and Gemini requests of a session reach OpenAI with the session id as prompt_cache_key; none without a session', async () => {
    await cacheTurn(gateway.url, secret, 'claude-session-1', { asks: ['hello'] }, 'openai/gpt-4o-mini')
    assert.equal(lastOpenAI().prompt_cache_key, 'claude-session-1')
    await cacheTurn(gateway.url, secret, null, { asks: ['hello'] }, 'openai/gpt-4o-mini')
    assert.equal(lastOpenAI().prompt_cache_key, undefined)

    const ai = new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: gateway.url, headers: { 'X-Gw-Session-Id': 'gemini-session' } } })
    await ai.models.generateContent({ model: 'openai/gpt-4o-mini', contents: 'Hi' })
    assert.equal(lastOpenAI().prompt_cache_key, 'gemini-session')

    // A session id longer than OpenAI takes goes as its SHA-256.
    const long = 's'.repeat(100)
    await cacheTurn(gateway.url, secret, long, { asks: ['hello'] }, 'openai/gpt-4o-mini')
    assert.equal(lastOpenAI().prompt_cache_key, createHash('sha256').update(long).digest('hex'))
  })

  it("a Responses request translated to OpenAI's chat completions keeps the caller's prompt_cache_key, else gets the session's; a compatible server gets none, and the record says so", async () => {
    const own = await responses('resp-session').create({ model: 'azure/gpt-4o-mini', input: 'hi', prompt_cache_key: 'callers-own' })
    assert.equal(lastOpenAI().prompt_cache_key, 'callers-own')
    const ownRecord = await waitForRecord(gateway.gateway, (own as any).gw.request_id)
    assert.equal(
      ownRecord.ignored.some((i) => i.name === 'prompt_cache_key'),
      false,
    )
    await responses('resp-session').create({ model: 'azure/gpt-4o-mini', input: 'hi' })
    assert.equal(lastOpenAI().prompt_cache_key, 'resp-session')

    const compat: any = await responses('resp-session').create({ model: 'compat/gpt-4o-mini', input: 'hi', prompt_cache_key: 'callers-own' })
    assert.equal(lastOpenAI().prompt_cache_key, undefined)
    const record = await waitForRecord(gateway.gateway, compat.gw.request_id)
    assert.match(record.ignored.find((i) => i.name === 'prompt_cache_key')?.reason ?? '', /OpenAI's API only/)
  })

  it('chat completions with cache breakpoints reach an Anthropic provider with them', async () => {
    const chat = new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-session-id': 'chat-session' } })
    const system = { type: 'text', text: LONG_INSTRUCTIONS, cache_control: { type: 'ephemeral' } }
    await chat.chat.completions.create({
      model: `anthropic/${MODEL}`,
      messages: [
        { role: 'system', content: [system] as any },
        { role: 'user', content: 'hi' },
      ],
    })
    assert.deepEqual(anthropic.received.at(-1)!.body.system.at(-1).cache_control, { type: 'ephemeral' })
  })
})
