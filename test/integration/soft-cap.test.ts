import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { GoogleGenAI } from '@google/genai'
import { gwCli, startTestGateway, type TestGateway } from '../support/harness'
import { waitUntil } from '../support/waitUntil'

/** A prompt of 48 characters as JSON: the gateway's estimate (4 characters a token) is 12 tokens. */
const twelveTokens = [{ role: 'user' as const, content: 'nineteen characters' }]
/** Requests sent at once around the threshold. */
const BURST = 8
/** What a request of `twelveTokens` reserves with `max_tokens` out, in USD, at gpt-4o's list price ($2.50 in, $10 out per 1M)… */
const onGpt4o = (maxTokens: number) => 12 * 2.5e-6 + maxTokens * 10e-6
/** …and at gpt-4o-mini's ($0.15 in, $0.60 out per 1M). */
const onMini = (maxTokens: number) => 12 * 0.15e-6 + maxTokens * 0.6e-6
const operator = { user: { id: 'operator', username: 'cli:test', role: 'admin' as const, created_at: 0 }, sessionToken: null, address: 'local', operator: true }

interface Outcome {
  status: number
  served: string | null
  reason: string | null
}

/**
 * A key's soft cap, on the store the tests run on (SQLite, or PostgreSQL with GW_TEST_STORE=postgres,
 * where admission is the database's one call): requests go to the cheaper model from the threshold
 * on, exactly as the reservations say, and the hard limit still refuses at 100 %.
 */
describe('the soft cap: a cheaper model near a spend limit', () => {
  let t: TestGateway
  let n = 0
  const admin = async (name: string, input: unknown) => (await t.running.admin.invoke(name, input, operator)).result
  const keyWith = async (input: Record<string, unknown>) => {
    const result = await admin('keys.create', { name: `soft-${++n}`, ...input })
    assert.ok(result.ok, JSON.stringify(result))
    const { secret, key } = result.value as { secret: string; key: { id: string } }
    return { secret, id: key.id }
  }
  const openai = (secret: string, sessionId?: string) =>
    new OpenAI({ baseURL: t.baseURL, apiKey: secret, maxRetries: 0, defaultHeaders: sessionId ? { 'x-gw-session-id': sessionId } : {} })

  /** BURST chat requests for gpt-4o at once, each held upstream until all are in flight. */
  const burst = async (secret: string, maxTokens: number): Promise<Outcome[]> => {
    t.fake.script(...Array.from({ length: BURST }, () => ({ kind: 'delay' as const, ms: 400 })))
    try {
      return await Promise.all(
        Array.from({ length: BURST }, async () => {
          try {
            const res = await openai(secret).chat.completions.create({ model: 'openai/gpt-4o', max_tokens: maxTokens, messages: twelveTokens })
            const routing = (res as unknown as { gw: { routing: { upstream_model: string; soft_cap: { reason: string } | null } } }).gw.routing
            return { status: 200, served: routing.upstream_model, reason: routing.soft_cap?.reason ?? null }
          } catch (err) {
            return { status: (err as { status: number }).status, served: null, reason: (err as Error).message }
          }
        }),
      )
    } finally {
      t.fake.clearScript()
    }
  }
  /** The key's records, once there are `n` (a record is queued after its answer went out). */
  const recordsOf = async (keyId: string, n: number) => {
    let mine: Awaited<ReturnType<TestGateway['records']>> = []
    await waitUntil(async () => (mine = (await t.records()).filter((r) => r.key_id === keyId)).length >= n, { what: `${n} records of the key` })
    return mine
  }
  const count = (outcomes: Outcome[], f: (o: Outcome) => boolean) => outcomes.filter(f).length

  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it('8 requests at once around the threshold: those admitted while spend and reservations are under 80 % go to gpt-4o, the rest to gpt-4o-mini', async () => {
    // 80 % of $0.005 is $0.004; each request reserves $0.00103 on gpt-4o: the 4th is admitted at
    // $0.00309 held, the 5th finds $0.00412 and goes to gpt-4o-mini ($0.0000618 each), as do the
    // rest: $0.0043 held at most, under the limit.
    assert.ok(3 * onGpt4o(100) < 0.004 && 4 * onGpt4o(100) >= 0.004 && 4 * onGpt4o(100) + 4 * onMini(100) < 0.005)
    const { secret, id } = await keyWith({ daily_limit_usd: 0.005, policy: { soft_cap: { model: 'openai/gpt-4o-mini', at_percent: 80 } } })
    const sent = t.fake.received.length
    const outcomes = await burst(secret, 100)
    assert.deepEqual(
      outcomes.map((o) => o.status),
      Array(BURST).fill(200),
    )
    assert.equal(
      count(outcomes, (o) => o.served === 'gpt-4o'),
      4,
    )
    assert.equal(
      count(outcomes, (o) => o.served === 'gpt-4o-mini'),
      4,
    )
    for (const o of outcomes.filter((o) => o.served === 'gpt-4o-mini')) {
      assert.equal(
        o.reason,
        "soft cap: the key's daily spend limit of $0.005 is near (spend and reservations reached 80 % of it); served by openai/gpt-4o-mini instead of openai/gpt-4o",
      )
    }
    for (const o of outcomes.filter((o) => o.served === 'gpt-4o')) assert.equal(o.reason, null)
    // The provider was asked for the model each request was served by.
    const models = t.fake.received.slice(sent).map((r) => r.body.model)
    assert.deepEqual(models.sort(), ['gpt-4o', 'gpt-4o', 'gpt-4o', 'gpt-4o', 'gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o-mini'])
    // The records keep what was asked, what served and why.
    const records = await recordsOf(id, BURST)
    assert.equal(records.length, BURST)
    const switched = records.filter((r) => r.soft_cap)
    assert.equal(switched.length, 4)
    for (const r of switched) {
      assert.equal(r.model, 'openai/gpt-4o')
      assert.equal(r.upstream_model, 'gpt-4o-mini')
      assert.equal(r.fallback_used, false)
      assert.deepEqual({ ...r.soft_cap, reason: undefined }, { limit: 'daily', at_percent: 80, instead_of: 'openai/gpt-4o', reason: undefined })
    }
    for (const r of records.filter((r) => !r.soft_cap)) assert.equal(r.upstream_model, 'gpt-4o')
  })

  it('the hard limit still refuses at 100 %, the cheaper model’s requests included', async () => {
    // 80 % of $0.032 is $0.0256: 3 requests on gpt-4o ($0.01003 each) hold $0.03009; then
    // gpt-4o-mini's ($0.0006018 each) are admitted while the held spend is under $0.032: 4 of them;
    // the 8th finds $0.0324972 held and is refused.
    assert.ok(2 * onGpt4o(1000) < 0.0256 && 3 * onGpt4o(1000) + 3 * onMini(1000) < 0.032 && 3 * onGpt4o(1000) + 4 * onMini(1000) >= 0.032)
    const { secret } = await keyWith({ daily_limit_usd: 0.032, policy: { soft_cap: { model: 'openai/gpt-4o-mini', at_percent: 80 } } })
    const outcomes = await burst(secret, 1000)
    assert.equal(
      count(outcomes, (o) => o.served === 'gpt-4o'),
      3,
    )
    assert.equal(
      count(outcomes, (o) => o.served === 'gpt-4o-mini'),
      4,
    )
    const refused = outcomes.filter((o) => o.status !== 200)
    assert.equal(refused.length, 1)
    assert.equal(refused[0].status, 402)
    assert.match(refused[0].reason!, /reached its daily spend limit of \$0\.032 /)
  })

  it('a session: a request that could pass the session’s limit on the model it asked for goes to the cheaper one instead of being refused', async () => {
    // gpt-4o would reserve $0.01003, past the session's $0.005; gpt-4o-mini's $0.0006018 fits.
    const { secret, id } = await keyWith({ policy: { max_session_usd: 0.005, soft_cap: { model: 'openai/gpt-4o-mini', at_percent: 90 } } })
    const res = await openai(secret, 'sess-soft').chat.completions.create({ model: 'openai/gpt-4o', max_tokens: 1000, messages: twelveTokens })
    const routing = (res as unknown as { gw: { routing: { upstream_model: string; soft_cap: Record<string, unknown> } } }).gw.routing
    assert.equal(routing.upstream_model, 'gpt-4o-mini')
    assert.equal(routing.soft_cap.limit, 'session')
    // Without a session id nothing is near: the session limit does not hold it.
    const free = await openai(secret).chat.completions.create({ model: 'openai/gpt-4o', max_tokens: 1000, messages: twelveTokens })
    assert.equal((free as unknown as { gw: { routing: { upstream_model: string } } }).gw.routing.upstream_model, 'gpt-4o')
    const records = await recordsOf(id, 2)
    assert.deepEqual(records.map((r) => r.soft_cap?.limit ?? 'none').sort(), ['none', 'session'])
    // The session's timeline and the Requests list have it as a column, which the dashboard marks.
    const session = await admin('sessions.get', { id: 'sess-soft' })
    assert.ok(session.ok)
    const steps = (session.value as { requests: Array<{ soft_cap: string | null; model: string; upstream_model: string }> }).requests
    assert.deepEqual(
      steps.map((r) => [r.model, r.upstream_model, r.soft_cap]),
      [['openai/gpt-4o', 'gpt-4o-mini', 'session']],
    )
    const listed = await admin('requests.list', { filter: { key_id: id }, sort: 'created_at', order: 'asc' })
    assert.ok(listed.ok)
    assert.deepEqual(
      (listed.value as { items: Array<{ soft_cap: string | null }> }).items.map((r) => r.soft_cap),
      ['session', null],
    )
  })

  it('on every wire: past the threshold, Messages, Responses, Google’s API and a chat stream are served by the cheaper model, translated where its provider needs it', async () => {
    const { secret, id } = await keyWith({ daily_limit_usd: 1, policy: { soft_cap: { model: 'openai/gpt-4o-mini', at_percent: 1 } } })
    // One answer of 2,000 output tokens on gpt-4o costs $0.02: past 1 % of $1.
    t.fake.script({ kind: 'reply', usage: { prompt_tokens: 10, completion_tokens: 2000 } })
    const first = await openai(secret).chat.completions.create({ model: 'openai/gpt-4o', messages: twelveTokens })
    assert.equal((first as unknown as { gw: { routing: { soft_cap: unknown } } }).gw.routing.soft_cap, null)
    await recordsOf(id, 1)
    const lastModel = () => t.fake.received.at(-1)!.body.model

    const stream = await openai(secret).chat.completions.create({ model: 'openai/gpt-4o', messages: twelveTokens, stream: true })
    let gw: { routing: { upstream_model: string; soft_cap: { limit: string } | null } } | undefined
    for await (const chunk of stream) gw = (chunk as unknown as { gw?: typeof gw }).gw ?? gw
    assert.equal(lastModel(), 'gpt-4o-mini')
    assert.equal(gw?.routing.soft_cap?.limit, 'daily')

    const anthropic = new Anthropic({ baseURL: t.url, apiKey: secret, maxRetries: 0 })
    const message = await anthropic.messages.create({ model: 'openai/gpt-4o', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
    assert.equal(message.type, 'message')
    assert.equal(lastModel(), 'gpt-4o-mini')

    const response = await openai(secret).responses.create({ model: 'openai/gpt-4o', input: 'hi' })
    assert.equal(response.status, 'completed')
    assert.equal(lastModel(), 'gpt-4o-mini')

    const google = new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: t.url } })
    await google.models.generateContent({ model: 'openai/gpt-4o', contents: 'hi' })
    assert.equal(lastModel(), 'gpt-4o-mini')

    const records = await recordsOf(id, 5)
    const byEndpoint = Object.fromEntries(records.filter((r) => r.soft_cap).map((r) => [r.endpoint, `${r.model} -> ${r.provider}/${r.upstream_model}`]))
    assert.deepEqual(byEndpoint, {
      'chat.completions': 'openai/gpt-4o -> openai/gpt-4o-mini',
      messages: 'openai/gpt-4o -> openai/gpt-4o-mini',
      responses: 'openai/gpt-4o -> openai/gpt-4o-mini',
      generateContent: 'openai/gpt-4o -> openai/gpt-4o-mini',
    })
  })

  it('a preset’s soft cap holds the preset’s requests against the key’s limits; a key’s own soft cap wins', async () => {
    const saved = await admin('presets.save', {
      name: 'coding',
      model: 'openai/gpt-4o',
      soft_cap: { model: 'openai/gpt-4o-mini', at_percent: 1 },
    })
    assert.ok(saved.ok, JSON.stringify(saved))
    assert.deepEqual((saved.value as { soft_cap: unknown }).soft_cap, { model: 'openai/gpt-4o-mini', at_percent: 1 })
    const served = async (secret: string, model: string) => {
      const res = await openai(secret).chat.completions.create({ model, messages: twelveTokens })
      return (res as unknown as { gw: { routing: { upstream_model: string; soft_cap: { reason: string } | null } } }).gw.routing
    }
    // A key with a daily limit and no soft cap of its own: past 1 % of $1, the preset's requests
    // go to gpt-4o-mini; the same model asked for without the preset does not.
    const { secret, id } = await keyWith({ daily_limit_usd: 1 })
    t.fake.script({ kind: 'reply', usage: { prompt_tokens: 10, completion_tokens: 2000 } })
    assert.equal((await served(secret, 'policy/coding')).upstream_model, 'gpt-4o')
    await recordsOf(id, 1)
    const switched = await served(secret, 'policy/coding')
    assert.equal(switched.upstream_model, 'gpt-4o-mini')
    assert.match(switched.soft_cap!.reason, /served by openai\/gpt-4o-mini instead of openai\/gpt-4o$/)
    assert.equal((await served(secret, 'openai/gpt-4o')).upstream_model, 'gpt-4o')
    const records = await recordsOf(id, 3)
    assert.deepEqual(
      records.filter((r) => r.soft_cap).map((r) => [r.preset, r.model, r.upstream_model]),
      [['coding', 'policy/coding', 'gpt-4o-mini']],
    )
    // A key with a soft cap of its own: its model serves the preset's requests too.
    const own = await keyWith({ daily_limit_usd: 1, policy: { soft_cap: { model: 'openai/gpt-4.1-mini', at_percent: 1 } } })
    t.fake.script({ kind: 'reply', usage: { prompt_tokens: 10, completion_tokens: 2000 } })
    await served(own.secret, 'openai/gpt-4o')
    await recordsOf(own.id, 1)
    assert.equal((await served(own.secret, 'policy/coding')).upstream_model, 'gpt-4.1-mini')
    // A key whose policy does not allow the preset's cheaper model keeps the model it asked for.
    const strict = await keyWith({ daily_limit_usd: 1, policy: { allowed_models: ['openai/gpt-4o'] } })
    t.fake.script({ kind: 'reply', usage: { prompt_tokens: 10, completion_tokens: 2000 } })
    await served(strict.secret, 'policy/coding')
    await recordsOf(strict.id, 1)
    const kept = await served(strict.secret, 'policy/coding')
    assert.equal(kept.upstream_model, 'gpt-4o')
    assert.equal(kept.soft_cap, null)
    // Saved only with a priced chat model.
    const refused = await admin('presets.save', { name: 'bad-cap', model: 'openai/gpt-4o', soft_cap: { model: 'openai/gpt-unpriced-9', at_percent: 50 } })
    assert.ok(!refused.ok)
    assert.match((refused as { error: { message: string } }).error.message, /soft_cap\.model: openai\/gpt-unpriced-9 has no known price/)
  })

  it('is refused on save unless its model is a priced chat model the key’s policy allows, and there is a limit to be near', async () => {
    const refusal = async (input: Record<string, unknown>) => {
      const result = await admin('keys.create', { name: `refused-${++n}`, ...input })
      assert.ok(!result.ok, 'refused')
      return (result as { error: { message: string } }).error.message
    }
    const cap = (model: string) => ({ soft_cap: { model, at_percent: 80 } })
    assert.equal(
      await refusal({ policy: cap('openai/gpt-4o-mini') }),
      'policy.soft_cap: needs a spend limit to be near: set daily_limit_usd, monthly_limit_usd or policy.max_session_usd',
    )
    assert.match(await refusal({ daily_limit_usd: 1, policy: cap('nowhere/model') }), /^policy\.soft_cap\.model: unknown model "nowhere\/model"/)
    assert.match(
      await refusal({ daily_limit_usd: 1, policy: cap('openai/gpt-unpriced-9') }),
      /^policy\.soft_cap\.model: openai\/gpt-unpriced-9 has no known price/,
    )
    assert.match(await refusal({ daily_limit_usd: 1, policy: cap('openai/text-embedding-3-small') }), /is an embedding model/)
    assert.equal(
      await refusal({ daily_limit_usd: 1, policy: { allowed_models: ['gpt-4o'], ...cap('openai/gpt-4o-mini') } }),
      "policy.soft_cap.model: the key's policy does not allow openai/gpt-4o-mini (allowed_models)",
    )
    assert.match(await refusal({ daily_limit_usd: 1, policy: { soft_cap: { model: 'openai/gpt-4o-mini', at_percent: 100 } } }), /must be between 1 and 99/)
    // Clearing the last limit of a key with a soft cap is refused too.
    const { id } = await keyWith({ daily_limit_usd: 1, policy: cap('openai/gpt-4o-mini') })
    const cleared = await admin('keys.update', { id, daily_limit_usd: null })
    assert.ok(!cleared.ok)
    assert.match((cleared as { error: { message: string } }).error.message, /^policy\.soft_cap: needs a spend limit/)
  })

  it('the CLI sets, shows and clears it', async () => {
    const cli = (...args: string[]) => gwCli(args, { dataDir: t.dataDir })
    await cli('keys', 'create', '--name', 'cli-soft', '--daily-limit', '5', '--soft-cap-model', 'openai/gpt-4o-mini', '--soft-cap-at', '80')
    const shown = async () =>
      (JSON.parse((await cli('keys', 'list', '--json')).stdout) as Array<{ name: string; policy: Record<string, unknown> }>).find((k) => k.name === 'cli-soft')!
    assert.deepEqual((await shown()).policy.soft_cap, { model: 'openai/gpt-4o-mini', at_percent: 80 })
    await cli('keys', 'update', 'cli-soft', '--soft-cap-at', '90')
    assert.deepEqual((await shown()).policy.soft_cap, { model: 'openai/gpt-4o-mini', at_percent: 90 })
    await cli('keys', 'update', 'cli-soft', '--soft-cap-model', 'none')
    assert.equal((await shown()).policy.soft_cap, undefined)
    await assert.rejects(cli('keys', 'update', 'cli-soft', '--soft-cap-at', '50'), /--soft-cap-at needs --soft-cap-model MODEL/)
    await cli('presets', 'set', 'cli-preset', '--model', 'openai/gpt-4o', '--soft-cap-model', 'openai/gpt-4o-mini', '--soft-cap-at', '75')
    const preset = JSON.parse((await cli('presets', 'list', '--json')).stdout) as Array<{ name: string; soft_cap: unknown }>
    assert.deepEqual(preset.find((p) => p.name === 'cli-preset')!.soft_cap, { model: 'openai/gpt-4o-mini', at_percent: 75 })
  })
})
