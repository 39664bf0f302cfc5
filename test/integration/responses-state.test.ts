import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, jsonSchema, stepCountIs, streamText, tool, type ModelMessage } from 'ai'
import type { RunningGateway } from '../../src/gateway/server'
import { startTranslatedStack, weather, type TranslatedStack } from '../support/translatedStack'
import type { FakeAnthropic } from '../support/fake-anthropic'
import type { FakeOpenAI } from '../support/fake-openai'
import { newRecords, recordCount } from '../support/agentRecords'
import { withStoreSql } from '../support/storeFile'

// Behind a chat-only provider (OpenAI's marked as serving chat completions only) and Anthropic:
// both translated paths, where the gateway keeps the Responses state itself.
const CHAT_ONLY = 'openai/gpt-4o'
const CLAUDE = 'anthropic/claude-sonnet-4-5'
// A provider that serves the Responses API and keeps its own state.
const NATIVE = 'groq/gpt-oss-120b'
const DAY = 86_400_000

describe('Responses API state on translated paths: previous_response_id, item_reference, GET/DELETE /v1/responses/{id}, input_items', () => {
  let openai: FakeOpenAI
  let native: FakeOpenAI
  let anthropic: FakeAnthropic
  let gateway: RunningGateway
  let client: OpenAI
  let other: OpenAI
  let secret: string
  let otherSecret: string
  let now = Date.UTC(2026, 10, 25, 12)

  /** What the chat-only provider was last sent: its messages as role and text (tool calls as `name(args)`, tool results as `id: text`). */
  const chatTurns = () =>
    (openai.received.at(-1)!.body.messages as any[]).map((m) =>
      m.tool_calls
        ? `${m.role}: ${m.tool_calls.map((c: any) => `${c.function.name}(${c.function.arguments})#${c.id}`).join(' ')}`
        : m.role === 'tool'
          ? `tool ${m.tool_call_id}: ${m.content}`
          : `${m.role}: ${m.content}`,
    )
  /** The same for Anthropic: system first, then each message's blocks. */
  const claudeTurns = () => {
    const body = anthropic.received.at(-1)!.body
    const blocks = (content: any) =>
      (typeof content === 'string' ? [{ type: 'text', text: content }] : content).map((b: any) =>
        b.type === 'text'
          ? b.text
          : b.type === 'tool_use'
            ? `${b.name}(${JSON.stringify(b.input)})#${b.id}`
            : `result ${b.tool_use_id}: ${typeof b.content === 'string' ? b.content : b.content.map((c: any) => c.text).join('')}`,
      )
    const system = body.system === undefined ? [] : [`system: ${typeof body.system === 'string' ? body.system : body.system.map((b: any) => b.text).join('')}`]
    return [...system, ...body.messages.map((m: any) => `${m.role}: ${blocks(m.content).join(' | ')}`)]
  }
  const rows = async () => (await withStoreSql(stack.dataDir, (sql) => sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM responses`)))?.n
  const as =
    (key: string) =>
    (path: string, init: RequestInit = {}) =>
      fetch(`${gateway.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } })

  let stack: TranslatedStack

  before(async () => {
    stack = await startTranslatedStack({ clock: () => now })
    ;({ openai, native, anthropic, gateway } = stack)
    const gw = gateway.gateway
    secret = (await gw.store.keys.create('alice')).secret
    otherSecret = (await gw.store.keys.create('bob')).secret
    await gw.configChanged()
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: secret, maxRetries: 0 })
    other = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: otherSecret, maxRetries: 0 })
  })

  after(() => stack.close())

  it('the openai SDK runs three turns with a tool call through a chat-only provider on previous_response_id: each turn sends the whole conversation, instructions are not inherited', async () => {
    openai.script({ kind: 'reply', toolCalls: [{ id: 'call_paris', name: 'weather', arguments: '{"city":"Paris"}' }] })
    const first = await client.responses.create({ model: CHAT_ONLY, instructions: 'Be brief.', input: 'Weather in Paris?', tools: [weather] })
    assert.equal((first as any).store, true)
    assert.equal(first.previous_response_id, null)
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall
    assert.equal(call.type, 'function_call')
    assert.equal(call.call_id, 'call_paris')
    assert.deepEqual(chatTurns(), ['system: Be brief.', 'user: Weather in Paris?'])

    openai.script({ kind: 'reply', content: 'It is 18 °C and sunny.' })
    const second = await client.responses.create({
      model: CHAT_ONLY,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_paris', output: '18 °C, sunny' }],
      tools: [weather],
    })
    assert.equal(second.previous_response_id, first.id)
    assert.equal(second.output_text, 'It is 18 °C and sunny.')
    // The first turn's instructions stay with it, as on OpenAI's API.
    assert.deepEqual(chatTurns(), ['user: Weather in Paris?', 'assistant: weather({"city":"Paris"})#call_paris', 'tool call_paris: 18 °C, sunny'])

    openai.script({ kind: 'reply', content: 'Demain, 20 °C.' })
    const third = await client.responses.create({
      model: CHAT_ONLY,
      previous_response_id: second.id,
      instructions: 'Answer in French.',
      input: 'And tomorrow?',
    })
    assert.equal(third.output_text, 'Demain, 20 °C.')
    assert.deepEqual(chatTurns(), [
      'system: Answer in French.',
      'user: Weather in Paris?',
      'assistant: weather({"city":"Paris"})#call_paris',
      'tool call_paris: 18 °C, sunny',
      'assistant: It is 18 °C and sunny.',
      'user: And tomorrow?',
    ])

    // Each turn is kept as it was delivered, and lists the input it answered.
    const fetched = await client.responses.retrieve(second.id)
    assert.deepEqual(fetched.output, second.output)
    assert.equal(fetched.id, second.id)
    assert.equal(fetched.status, 'completed')
    assert.deepEqual(fetched.usage, second.usage)
    const asc = await client.responses.inputItems.list(third.id, { order: 'asc' })
    assert.deepEqual(
      asc.data.map((i: any) => i.type + (i.role ? `:${i.role}` : '')),
      ['message:user', 'function_call', 'function_call_output', 'message:assistant', 'message:user'],
    )
    assert.ok(asc.data.every((i: any) => typeof i.id === 'string' && i.id.length > 4))
    assert.deepEqual((asc.data[4] as any).content, [{ type: 'input_text', text: 'And tomorrow?' }])
    // Newest first by default, paged with `after`, as OpenAI lists them.
    const desc = await client.responses.inputItems.list(third.id, { limit: 2 })
    assert.deepEqual(
      desc.data.map((i) => i.id),
      [asc.data[4].id, asc.data[3].id],
    )
    assert.equal(desc.has_more, true)
    const next = await client.responses.inputItems.list(third.id, { limit: 2, after: asc.data[3].id })
    assert.deepEqual(
      next.data.map((i) => i.id),
      [asc.data[2].id, asc.data[1].id],
    )
  })

  it('the openai SDK runs the same conversation streamed through Anthropic: the Messages request carries every earlier turn', async () => {
    anthropic.script({ kind: 'reply', toolUses: [{ id: 'toolu_paris', name: 'weather', input: { city: 'Paris' } }] })
    const first = await client.responses.stream({ model: CLAUDE, instructions: 'Be brief.', input: 'Weather in Paris?', tools: [weather] }).finalResponse()
    const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall
    assert.equal(call.call_id, 'toolu_paris')

    anthropic.script({ kind: 'reply', text: 'It is 18 °C and sunny.' })
    const second = await client.responses
      .stream({
        model: CLAUDE,
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: 'toolu_paris', output: '18 °C, sunny' }],
        tools: [weather],
      })
      .finalResponse()
    assert.equal(second.output_text, 'It is 18 °C and sunny.')
    assert.deepEqual(claudeTurns(), ['user: Weather in Paris?', 'assistant: weather({"city":"Paris"})#toolu_paris', 'user: result toolu_paris: 18 °C, sunny'])

    anthropic.script({ kind: 'reply', text: 'Tomorrow: 20 °C.' })
    const third = await client.responses.stream({ model: CLAUDE, previous_response_id: second.id, input: 'And tomorrow?' }).finalResponse()
    assert.equal(third.output_text, 'Tomorrow: 20 °C.')
    assert.deepEqual(claudeTurns(), [
      'user: Weather in Paris?',
      'assistant: weather({"city":"Paris"})#toolu_paris',
      'user: result toolu_paris: 18 °C, sunny',
      'assistant: It is 18 °C and sunny.',
      'user: And tomorrow?',
    ])
    // A stream's response is kept as its response.completed carried it.
    const fetched = await client.responses.retrieve(third.id)
    assert.equal(fetched.output_text, 'Tomorrow: 20 °C.')
    assert.deepEqual(
      fetched.output.map((o) => o.id),
      third.output.map((o) => o.id),
    )
  })

  /**
   * The Vercel AI SDK's default OpenAI provider speaks the Responses API and, with `store` on (its
   * default), sends an earlier assistant reply back as an `item_reference` holding its id alone.
   * Turn one calls the tool and the SDK runs it (two requests), turn three continues.
   */
  async function aiSdkConversation(model: string, streamed: boolean) {
    // What the SDK sends the gateway, to see the reference it makes.
    const bodies: any[] = []
    const provider = createOpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: secret,
      fetch: (url, init) => (bodies.push(JSON.parse(String(init?.body))), fetch(url, init)),
    })
    const tools = {
      weather: tool({
        description: 'The weather in a city',
        inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
        execute: async ({ city }) => `${city}: 18 °C, sunny`,
      }),
    }
    const run = async (messages: ModelMessage[]) => {
      const options = { model: provider(model), system: 'Be brief.', messages, tools, stopWhen: stepCountIs(2), maxRetries: 0 }
      // The response's messages are every step's: the tool call, its result, the reply.
      if (!streamed) {
        const result = await generateText(options)
        return { text: result.text, messages: result.response.messages }
      }
      const result = streamText({ ...options, onError: () => {} })
      return { text: await result.text, messages: (await result.response).messages }
    }
    const start: ModelMessage[] = [{ role: 'user', content: 'Weather in Paris?' }]
    const first = await run(start)
    const conversation: ModelMessage[] = [...start, ...first.messages, { role: 'user', content: 'And tomorrow?' }]
    const second = await run(conversation)
    assert.equal(bodies.length, 3)
    const references = bodies[2].input.filter((i: any) => i.type === 'item_reference')
    assert.equal(references.length, 1, 'the earlier reply went as a reference')
    assert.ok(!JSON.stringify(bodies[2]).includes('It is 18 °C and sunny.'), 'and its text did not')
    return { first, second }
  }

  it('the AI SDK runs three turns with a tool call through a chat-only provider, continuing with item_reference', async () => {
    openai.script(
      { kind: 'reply', toolCalls: [{ id: 'call_ai', name: 'weather', arguments: '{"city":"Paris"}' }] },
      { kind: 'reply', content: 'It is 18 °C and sunny.' },
      { kind: 'reply', content: 'Tomorrow: 20 °C.' },
    )
    const from = openai.received.length
    const { first, second } = await aiSdkConversation(CHAT_ONLY, false)
    assert.equal(first.text, 'It is 18 °C and sunny.')
    assert.equal(second.text, 'Tomorrow: 20 °C.')
    const sent = openai.received.slice(from)
    assert.equal(sent.length, 3)
    assert.deepEqual(chatTurns(), [
      'system: Be brief.',
      'user: Weather in Paris?',
      'assistant: weather({"city":"Paris"})#call_ai',
      'tool call_ai: Paris: 18 °C, sunny',
      'assistant: It is 18 °C and sunny.',
      'user: And tomorrow?',
    ])
  })

  it('the AI SDK streams the same three turns through Anthropic, the earlier reply resolved from its item_reference', async () => {
    anthropic.script(
      { kind: 'reply', toolUses: [{ id: 'toolu_ai', name: 'weather', input: { city: 'Paris' } }] },
      { kind: 'reply', text: 'It is 18 °C and sunny.' },
      { kind: 'reply', text: 'Tomorrow: 20 °C.' },
    )
    const { first, second } = await aiSdkConversation(CLAUDE, true)
    assert.equal(first.text, 'It is 18 °C and sunny.')
    assert.equal(second.text, 'Tomorrow: 20 °C.')
    assert.deepEqual(claudeTurns(), [
      'system: Be brief.',
      'user: Weather in Paris?',
      'assistant: weather({"city":"Paris"})#toolu_ai',
      'user: result toolu_ai: Paris: 18 °C, sunny',
      'assistant: It is 18 °C and sunny.',
      'user: And tomorrow?',
    ])
  })

  it('a continuation may change provider: the conversation is the gateway’s, so a turn on Anthropic continues one made on the chat-only provider', async () => {
    openai.script({ kind: 'reply', content: 'Paris is the capital of France.' })
    const first = await client.responses.create({ model: CHAT_ONLY, input: 'Capital of France?' })
    anthropic.script({ kind: 'reply', text: 'About 2.1 million people.' })
    const second = await client.responses.create({ model: CLAUDE, previous_response_id: first.id, input: 'Population?' })
    assert.equal(second.output_text, 'About 2.1 million people.')
    assert.deepEqual(claudeTurns(), ['user: Capital of France?', 'assistant: Paris is the capital of France.', 'user: Population?'])
  })

  it('a preset falling back to another provider mid-conversation continues it there', async () => {
    const gw = gateway.gateway
    await gw.store.presets.save(
      {
        name: 'chat-then-claude',
        model: CHAT_ONLY,
        system_prompt: null,
        temperature: null,
        top_p: null,
        max_tokens: null,
        fallbacks: [CLAUDE],
        description: null,
      },
      'test',
    )
    await gw.configChanged()
    openai.script({ kind: 'reply', content: 'Blue.' })
    const first = await client.responses.create({ model: '@preset/chat-then-claude', input: 'Colour of the sky?' })
    openai.script({ kind: 'status', status: 503 })
    anthropic.script({ kind: 'reply', text: 'Orange at sunset.' })
    const second = await client.responses.create({ model: '@preset/chat-then-claude', previous_response_id: first.id, input: 'And at sunset?' })
    assert.equal(second.output_text, 'Orange at sunset.')
    assert.deepEqual(claudeTurns(), ['user: Colour of the sky?', 'assistant: Blue.', 'user: And at sunset?'])
  })

  it('a continuation cut short is priced on the whole conversation it sent, estimated, not on its last message alone', async () => {
    const long = 'The history of the tides. '.repeat(400)
    openai.script({ kind: 'reply', content: long })
    const first = await client.responses.create({ model: CHAT_ONLY, input: 'Tell me about the tides.' })
    openai.script({ kind: 'fail-mid-stream', afterChunks: 3, mode: 'drop' })
    const count = await recordCount(gateway.gateway)
    const failed = await client.responses.stream({ model: CHAT_ONLY, previous_response_id: first.id, input: 'Shorter?' }).finalResponse()
    assert.equal(failed.status, 'failed')
    const [rec] = await newRecords(gateway.gateway, count)
    assert.equal(rec.cost!.estimated, true)
    // The earlier answer alone is 10,400 characters: well over 2,000 tokens at any estimate.
    assert.ok(rec.usage!.prompt_tokens > 2000, `prompt_tokens ${rec.usage!.prompt_tokens}`)
  })

  it('item_reference resolves to the kept item, on any translated path; one nobody keeps is a 404 naming it', async () => {
    openai.script({ kind: 'reply', content: 'Seven.' })
    const first = await client.responses.create({ model: CHAT_ONLY, input: 'Three plus four?' })
    const msg = first.output[0] as OpenAI.Responses.ResponseOutputMessage
    anthropic.script({ kind: 'reply', text: 'Nine.' })
    const second = await client.responses.create({
      model: CLAUDE,
      input: [{ role: 'user', content: 'Three plus four?' }, { type: 'item_reference', id: msg.id } as any, { role: 'user', content: 'Plus two?' }],
    })
    assert.equal(second.output_text, 'Nine.')
    assert.deepEqual(claudeTurns(), ['user: Three plus four?', 'assistant: Seven.', 'user: Plus two?'])

    const seen = openai.received.length
    const err: any = await client.responses.create({ model: CHAT_ONLY, input: [{ type: 'item_reference', id: 'msg_nowhere' } as any] }).catch((e) => e)
    assert.equal(err.status, 404)
    assert.equal(err.error.param, 'input[0].id')
    assert.match(err.error.message, /Item with id 'msg_nowhere' not found/)
    assert.equal(openai.received.length, seen)
  })

  it("another key's responses are not found, by any route, and never reach the provider", async () => {
    openai.script({ kind: 'reply', content: 'Secret plans.' })
    const mine = await client.responses.create({ model: CHAT_ONLY, input: 'Tell me the plan.' })
    const item = (mine.output[0] as OpenAI.Responses.ResponseOutputMessage).id
    const seen = openai.received.length
    const count = await recordCount(gateway.gateway)

    const cont: any = await other.responses.create({ model: CHAT_ONLY, previous_response_id: mine.id, input: 'Go on' }).catch((e) => e)
    assert.equal(cont.status, 400)
    assert.equal(cont.error.code, 'previous_response_not_found')
    assert.equal(cont.error.param, 'previous_response_id')
    assert.match(cont.error.message, new RegExp(`Previous response with id '${mine.id}' not found`))
    const ref: any = await other.responses.create({ model: CHAT_ONLY, input: [{ type: 'item_reference', id: item } as any] }).catch((e) => e)
    assert.equal(ref.status, 404)
    assert.equal(ref.error.param, 'input[0].id')
    // The refusals are recorded, as every request that reached the pipeline.
    assert.deepEqual(
      (await newRecords(gateway.gateway, count)).map((r) => r.status),
      [400, 404],
    )

    for (const [method, path] of [
      ['GET', `/v1/responses/${mine.id}`],
      ['DELETE', `/v1/responses/${mine.id}`],
      ['GET', `/v1/responses/${mine.id}/input_items`],
    ]) {
      const res = await as(otherSecret)(path, { method })
      assert.equal(res.status, 404, `${method} ${path}`)
      const body: any = await res.json()
      assert.equal(body.error.type, 'invalid_request_error')
      assert.match(body.error.message, new RegExp(`Response with id '${mine.id}' not found`))
      assert.doesNotMatch(JSON.stringify(body), /Secret plans/)
    }
    assert.equal(openai.received.length, seen, 'nothing reached the provider')
    // Still the owner's.
    assert.equal((await client.responses.retrieve(mine.id)).output_text, 'Secret plans.')
  })

  it('store: false keeps nothing, and a later reference says so', async () => {
    const before = await rows()
    openai.script({ kind: 'reply', content: 'Not kept.' })
    const unkept = await client.responses.create({ model: CHAT_ONLY, input: 'Hi', store: false })
    assert.equal((unkept as any).store, false)
    assert.equal(await rows(), before)
    const got = await as(secret)(`/v1/responses/${unkept.id}`)
    assert.equal(got.status, 404)
    const err: any = await client.responses.create({ model: CHAT_ONLY, previous_response_id: unkept.id, input: 'Go on' }).catch((e) => e)
    assert.equal(err.status, 400)
    assert.match(err.error.message, /store: false/)
  })

  it('deleting a response: gone from GET and continuation, while a later turn that continued it keeps the whole conversation', async () => {
    openai.script({ kind: 'reply', content: 'One.' }, { kind: 'reply', content: 'Two.' }, { kind: 'reply', content: 'Three.' })
    const first = await client.responses.create({ model: CHAT_ONLY, input: 'Count: start' })
    const second = await client.responses.create({ model: CHAT_ONLY, previous_response_id: first.id, input: 'next' })
    const deleted = await client.responses.delete(second.id)
    assert.deepEqual(deleted, { id: second.id, object: 'response.deleted', deleted: true })
    assert.equal((await as(secret)(`/v1/responses/${second.id}`)).status, 404)
    assert.equal((await as(secret)(`/v1/responses/${second.id}`, { method: 'DELETE' })).status, 404)
    const err: any = await client.responses.create({ model: CHAT_ONLY, previous_response_id: second.id, input: 'next' }).catch((e) => e)
    assert.equal(err.error.code, 'previous_response_not_found')

    // The first turn still continues, and deleting it leaves its continuation whole.
    const third = await client.responses.create({ model: CHAT_ONLY, previous_response_id: first.id, input: 'again' })
    await client.responses.delete(first.id)
    openai.script({ kind: 'reply', content: 'Four.' })
    await client.responses.create({ model: CHAT_ONLY, previous_response_id: third.id, input: 'last' })
    assert.deepEqual(chatTurns(), ['user: Count: start', 'assistant: One.', 'user: again', 'assistant: Three.', 'user: last'])
  })

  it('expiry: a response past the retention is not found, and pruning deletes it with its items; retention 0 keeps none', async () => {
    const gw = gateway.gateway
    openai.script({ kind: 'reply', content: 'Old news.' })
    const old = await client.responses.create({ model: CHAT_ONLY, input: 'News?' })
    now += 30 * DAY - 1
    assert.equal((await client.responses.retrieve(old.id)).output_text, 'Old news.')
    now += 1
    assert.equal((await as(secret)(`/v1/responses/${old.id}`)).status, 404)
    const err: any = await client.responses.create({ model: CHAT_ONLY, previous_response_id: old.id, input: 'More?' }).catch((e) => e)
    assert.equal(err.error.code, 'previous_response_not_found')
    assert.ok(await withStoreSql(stack.dataDir, (sql) => sql.get(`SELECT 1 FROM response_items WHERE response_id = ?`, [old.id])))
    await gw.pruneRecords()
    assert.equal(await withStoreSql(stack.dataDir, (sql) => sql.get(`SELECT 1 FROM responses WHERE id = ?`, [old.id])), undefined)
    assert.equal(await withStoreSql(stack.dataDir, (sql) => sql.get(`SELECT 1 FROM response_items WHERE response_id = ?`, [old.id])), undefined)

    await gw.store.settings.write({ response_retention_days: 0 })
    await gw.configChanged()
    try {
      const before = await rows()
      const unkept = await client.responses.create({ model: CHAT_ONLY, input: 'Hi' })
      assert.equal((unkept as any).store, false, 'the response says it was not kept')
      assert.equal(await rows(), before)
    } finally {
      await gw.store.settings.write({ response_retention_days: 30 })
      await gw.configChanged()
    }
  })

  it("a provider's own stored response continues on a route to that provider as sent; on another route it is refused with a 400 naming the provider", async () => {
    native.scriptResponses({ kind: 'reply', content: 'Native answer.' })
    const first = await client.responses.create({ model: NATIVE, input: 'Hi' })
    // Fetched the moment it arrives, before its record has left the queue.
    assert.equal((await client.responses.retrieve(first.id)).output_text, 'Native answer.')
    native.scriptResponses({ kind: 'reply', content: 'Native again.' })
    const second = await client.responses.create({ model: NATIVE, previous_response_id: first.id, input: 'Go on' })
    assert.equal(second.output_text, 'Native again.')
    assert.equal(native.received.at(-1)!.body.previous_response_id, first.id)

    const seen = openai.received.length
    const err: any = await client.responses.create({ model: CHAT_ONLY, previous_response_id: first.id, input: 'Go on' }).catch((e) => e)
    assert.equal(err.status, 400)
    assert.equal(err.error.param, 'previous_response_id')
    assert.match(err.error.message, /groq keeps; it can be continued only on a route to groq/)
    assert.equal(openai.received.length, seen)
    // Another key cannot continue it either, even on its own route.
    const stolen: any = await other.responses.create({ model: NATIVE, previous_response_id: first.id, input: 'Go on' }).catch((e) => e)
    assert.equal(stolen.error.code, 'previous_response_not_found')
  })

  it('a conversation the gateway keeps continues on a provider that serves Responses: the earlier turns go as input, without previous_response_id or the gateway’s ids', async () => {
    openai.script({ kind: 'reply', content: 'Kept by the gateway.' })
    const first = await client.responses.create({ model: CHAT_ONLY, input: 'Remember this.' })
    native.scriptResponses({ kind: 'reply', content: 'Continued natively.' })
    const second = await client.responses.create({ model: NATIVE, previous_response_id: first.id, input: 'What did I say?' })
    assert.equal(second.output_text, 'Continued natively.')
    const body = native.received.at(-1)!.body
    assert.equal(body.previous_response_id, undefined)
    assert.deepEqual(
      body.input.map((i: any) => [i.type, i.role, i.id]),
      [
        ['message', 'user', undefined],
        ['message', 'assistant', undefined],
        ['message', 'user', undefined],
      ],
    )
    assert.equal(body.input[1].content[0].text, 'Kept by the gateway.')
  })
})
