/**
 * The prompt-cache doctor: each request of a session keeps a fingerprint of its prompt (digests of
 * the system prompt, each tool and each message, never the text), and a session's page says how
 * its cache did: hit rate, what reads saved, what writes never read cost, and for each turn that
 * missed, the first block that differs from the previous turn's. The provider is the fake
 * Anthropic playing the prompt cache (`FakePromptCache`): it reports reads only for an unchanged
 * prefix, so the misses below are the ones a real provider would report.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import Anthropic from '@anthropic-ai/sdk'
import type { RunningGateway } from '../../src/gateway/server'
import type { Output } from '../../src/contract'
import { usdToPico } from '../../src/contract/money'
import type { RequestRecord } from '../../src/gateway/store/requestsRepo'
import { startCachingGateway, type CachingGateway } from '../support/cachingGateway'
import OpenAI from 'openai'
import { gwCli, ownerCookie, waitForRecord } from '../support/harness'
import { AGENT_TOOLS, LONG_INSTRUCTIONS, sendCacheTurn, type CacheTurn } from '../support/cacheTurns'

const MODEL = 'anthropic/claude-sonnet-4-5'
const START = Date.parse('2026-11-20T10:00:00Z')
const TOOLS = AGENT_TOOLS

describe('the prompt-cache doctor: per-request cache facts and fingerprints, a session diagnosed turn by turn', () => {
  let stack: CachingGateway
  let gateway: RunningGateway
  let dataDir: string
  let secret: string
  let cookie: string
  let now = START

  /** One turn as Claude Code lays it out, its record; the clock moves 30 s on. */
  async function turn(session: string, t: CacheTurn): Promise<RequestRecord> {
    const record = await waitForRecord(gateway.gateway, await sendCacheTurn(gateway.url, secret, session, t))
    now += 30_000
    return record
  }

  async function sessionOf(id: string): Promise<Output<'sessions.get'>> {
    const res = await fetch(`${gateway.url}/api/sessions.get`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ id }),
    })
    assert.equal(res.status, 200)
    return (await res.json()) as Output<'sessions.get'>
  }

  /** The exact sum of a cost field over records, as the doctor must give it. */
  const sum = (records: RequestRecord[], field: 'cache_savings_usd' | 'cache_write_usd') =>
    Number(records.reduce((s, r) => s + usdToPico(r.cost?.[field] ?? 0), 0n)) / 1e12

  before(async () => {
    stack = await startCachingGateway(() => now)
    gateway = stack.gateway
    dataDir = stack.dataDir
    secret = (await gateway.gateway.store.keys.create('laptop')).secret
    await gateway.gateway.configChanged()
    cookie = await ownerCookie(gateway.url)
  })

  after(async () => {
    await stack?.close()
  })

  it('a steady session: the second turn reads what the first wrote, the doctor says healthy, and its figures agree with the records', async () => {
    const records = [
      await turn('steady', { asks: ['Read the README'] }),
      await turn('steady', { asks: ['Read the README', 'Now fix the typo'] }),
      await turn('steady', { asks: ['Read the README', 'Now fix the typo', 'Run the tests'] }),
    ]
    const [first, second] = records
    assert.equal(first.usage!.cached_tokens, 0)
    assert.ok(first.usage!.cache_write_tokens > 0, 'the first turn writes the prefix')
    assert.equal(second.usage!.cached_tokens, first.usage!.cache_write_tokens, 'the second reads all of it')
    // The fingerprint: digests of the system prompt, each tool and each message, and the markers sent; never the text.
    assert.equal(second.prompt!.tools.length, 3)
    assert.equal(second.prompt!.messages.length, 3)
    assert.equal(second.prompt!.markers, 2)
    assert.deepEqual(second.prompt!.messages.slice(0, 1), first.prompt!.messages)
    assert.doesNotMatch(JSON.stringify(second.prompt), /README|careful/)

    const { cache } = await sessionOf('steady')
    assert.equal(cache.verdict, 'healthy')
    assert.equal(cache.misses, 0)
    assert.deepEqual(
      cache.turns.map((t) => t.state),
      ['write', 'read', 'read'],
    )
    assert.equal(
      cache.cached_tokens,
      records.reduce((s, r) => s + r.usage!.cached_tokens, 0),
    )
    assert.equal(
      cache.cache_write_tokens,
      records.reduce((s, r) => s + r.usage!.cache_write_tokens, 0),
    )
    assert.equal(
      cache.prompt_tokens,
      records.reduce((s, r) => s + r.usage!.prompt_tokens, 0),
    )
    assert.equal(cache.hit_rate, cache.cached_tokens / cache.prompt_tokens)
    assert.ok(cache.saved_usd > 0)
    assert.equal(cache.saved_usd, sum(records, 'cache_savings_usd'))
    assert.equal(cache.written_usd, sum(records, 'cache_write_usd'))
    // Every write but the last was read; the last is within its TTL still, so nothing is wasted yet.
    assert.equal(cache.wasted_usd, 0)
  })

  it('a system prompt that changes every turn: each miss is diagnosed at the system prompt, and its writes, never read, are wasted', async () => {
    const stamp = (i: number) => `${LONG_INSTRUCTIONS}Current time: 10:0${i}:00.`
    const records = [
      await turn('clock', { system: stamp(1), asks: ['Read the README'] }),
      await turn('clock', { system: stamp(2), asks: ['Read the README', 'Now fix the typo'] }),
      await turn('clock', { system: stamp(3), asks: ['Read the README', 'Now fix the typo', 'Run the tests'] }),
    ]
    for (const r of records) assert.equal(r.usage!.cached_tokens, 0, 'the fake reads nothing of a changed prefix')
    now += 10 * 60_000 // every write is past its 5-minute TTL
    const { cache } = await sessionOf('clock')
    assert.equal(cache.verdict, 'missing')
    assert.equal(cache.misses, 2)
    const [, second, third] = cache.turns
    for (const t of [second, third]) {
      assert.equal(t.state, 'miss')
      assert.equal(t.cause!.kind, 'system')
      assert.equal(t.cause!.text, `the system prompt changed at turn ${t.turn}: ${t.cache_write_tokens.toLocaleString('en-US')} tokens re-written`)
    }
    assert.equal(second.cause!.previous_id, records[0].id)
    // Writes cost more than plain input: with nothing read, the cache cost money.
    assert.ok(cache.saved_usd < 0)
    assert.equal(cache.saved_usd, sum(records, 'cache_savings_usd'))
    assert.equal(cache.wasted_tokens, cache.cache_write_tokens)
    assert.ok(cache.wasted_usd > 0)
    assert.equal(cache.wasted_usd, sum(records, 'cache_write_usd'))
    assert.deepEqual(
      cache.turns.map((t) => t.unread_write),
      [true, true, true],
    )
  })

  it('the first block that differs: a timestamp in message 1, reordered tools, a changed tool; an unchanged prefix read', async () => {
    const records = [
      await turn('blocks', { asks: ['[10:00] Read the README'] }),
      await turn('blocks', { asks: ['[10:01] Read the README', 'Now fix the typo'] }),
      await turn('blocks', { tools: [TOOLS[1], TOOLS[0], TOOLS[2]], asks: ['[10:01] Read the README', 'Now fix the typo', 'Run it'] }),
      await turn('blocks', {
        tools: [TOOLS[1], { ...TOOLS[0], description: 'Bash, changed' }, TOOLS[2]],
        asks: ['[10:01] Read the README', 'Now fix the typo', 'Run it'],
      }),
    ]
    assert.ok(records[1].usage!.cached_tokens > 0, 'the tools and system prompt before the message were read')
    const { cache } = await sessionOf('blocks')
    const causes = cache.turns.map((t) => t.cause && { kind: t.cause.kind, index: t.cause.index, text: t.cause.text.replace(/: .*/, '') })
    assert.deepEqual(causes, [
      null,
      { kind: 'message', index: 0, text: 'message 1 changed at turn 2' },
      { kind: 'tools_reordered', index: 0, text: 'the tools were reordered at turn 3' },
      { kind: 'tools', index: 1, text: 'tool 2 changed at turn 4' },
    ])
  })

  it('requests outside a session keep no fingerprint; a session is shown by `gw sessions show` with its cache', async () => {
    const client = new Anthropic({ apiKey: secret, baseURL: gateway.url, maxRetries: 0 })
    const { response } = await client.messages.create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }).withResponse()
    const record = await waitForRecord(gateway.gateway, response.headers.get('x-request-id'))
    assert.equal(record.prompt, undefined)

    const { stdout } = await gwCli(['sessions', 'show', 'clock'], { dataDir })
    assert.match(stdout, /cache +missing: 0% of/)
    assert.match(stdout, /the system prompt changed at turn 2/)
    assert.match(stdout, /saved -\$0\.\d+ \(net of what writes cost above input\); wasted \$0\.\d+ on writes never read \(\d+ tokens\)/)
  })

  it('translated paths: chat completions to Anthropic carries the markers (the second turn reads); Messages to a chat provider drops them, named', async () => {
    const client = new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, defaultHeaders: { 'x-gw-session-id': 'chat-to-anthropic' }, maxRetries: 0 })
    const marked = (text: string) => [{ type: 'text' as const, text, cache_control: { type: 'ephemeral' } }]
    const ids: string[] = []
    for (const asks of [['Read the README'], ['Read the README', 'Now fix the typo']]) {
      const { response } = await client.chat.completions
        .create({
          model: MODEL,
          messages: [
            { role: 'system', content: marked(LONG_INSTRUCTIONS) as never },
            ...asks.flatMap((ask, i) =>
              i === asks.length - 1
                ? [{ role: 'user' as const, content: marked(ask) as never }]
                : [
                    { role: 'user' as const, content: ask },
                    { role: 'assistant' as const, content: `Done: ${ask}` },
                  ],
            ),
          ],
        })
        .withResponse()
      ids.push(response.headers.get('x-request-id')!)
    }
    const [first, second] = await Promise.all(ids.map((id) => waitForRecord(gateway.gateway, id)))
    assert.equal(second.prompt!.markers, 2)
    assert.ok(!second.ignored.some((i) => i.name === 'cache_control'), 'the markers reached Anthropic')
    assert.equal(second.usage!.cached_tokens, first.usage!.cache_write_tokens, 'and the second turn read what the first wrote')
    assert.equal((await sessionOf('chat-to-anthropic')).cache.verdict, 'healthy')

    const messages = await waitForRecord(
      gateway.gateway,
      await sendCacheTurn(gateway.url, secret, 'messages-to-openai', { asks: ['Read the README'] }, 'openai/gpt-4o-mini'),
    )
    const dropped = messages.ignored.find((i) => i.name === 'cache_control')
    assert.ok(dropped, 'the translation names the markers it dropped')
    const { cache } = await sessionOf('messages-to-openai')
    assert.equal(cache.turns[0].markers, 2)
    assert.equal(cache.turns[0].markers_dropped, dropped.reason)
  })

  it('the Responses and Gemini wires keep the same fingerprint: instructions or systemInstruction as the system prompt, input items or contents as the messages', async () => {
    const headers = { 'x-gw-session-id': 'other-wires' }
    const client = new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, defaultHeaders: headers, maxRetries: 0 })
    const { response } = await client.responses
      .create({ model: MODEL, instructions: LONG_INSTRUCTIONS, input: [{ role: 'user', content: 'Read the README' }], store: false })
      .withResponse()
    const responses = await waitForRecord(gateway.gateway, response.headers.get('x-request-id'))
    const gemini = await fetch(`${gateway.url}/v1beta/models/${encodeURIComponent(MODEL)}:generateContent`, {
      method: 'POST',
      headers: { ...headers, 'x-goog-api-key': secret, 'content-type': 'application/json' },
      body: JSON.stringify({
        systemInstruction: { parts: [{ text: LONG_INSTRUCTIONS }] },
        contents: [{ role: 'user', parts: [{ text: 'Read the README' }] }],
      }),
    })
    assert.equal(gemini.status, 200, await gemini.clone().text())
    const google = await waitForRecord(gateway.gateway, gemini.headers.get('x-request-id'))
    for (const r of [responses, google]) {
      assert.match(r.prompt!.system ?? '', /^[\w-]{8}$/, r.endpoint)
      assert.equal(r.prompt!.messages.length, 1, r.endpoint)
      assert.equal(r.prompt!.markers, 0, r.endpoint)
    }
  })
})
