import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { startFakeOpenAI, thoughtSignatureOf, type FakeOpenAI } from '../support/fake-openai'
import { tempDir } from '../support/tempDir'

// Gemini 3 through its OpenAI layer: tool calls streamed whole without index, "stop" for tool
// calls, errors as arrays, the first tool call of an answer signed, and tool parameters refused
// for JSON Schema keywords its function declarations lack.
const MODEL = 'gemini/gemini-3-pro-preview'
// Shaped as Claude Code's tools are (zod's JSON Schema output).
const weather = {
  name: 'weather',
  description: 'The weather in a city',
  input_schema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object' as const,
    additionalProperties: false,
    properties: {
      city: { type: 'string' },
      days: { type: 'integer', exclusiveMinimum: 0, maximum: 9007199254740991 },
      units: {
        anyOf: [
          { type: 'string', enum: ['metric'] },
          { type: 'string', const: 'imperial' },
        ],
      },
      tags: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} },
    },
    required: ['city'],
  },
}

describe('Gemini 3 through its OpenAI layer: tool schemas it takes, thought signatures that survive clients that cannot keep them', () => {
  let gemini: FakeOpenAI
  let gateway: RunningGateway
  let dataDir: string
  let secret: string
  /** The first tool call of each assistant turn in the last request Gemini got: its id and signature. */
  const replayed = () =>
    (gemini.received.at(-1)!.body.messages as any[])
      .filter((m) => m.role === 'assistant' && m.tool_calls)
      .map((m) => [m.tool_calls[0].id, m.tool_calls[0].extra_content?.google?.thought_signature])

  before(async () => {
    gemini = await startFakeOpenAI({
      quirks: { thoughtSignatures: true, strictToolSchemas: true, toolCallsWithoutIndex: true, stopWithToolCalls: true, errorsAsArray: true },
      models: ['gemini-3-pro-preview'],
    })
    dataDir = tempDir()
    gateway = await startGateway(
      { port: 0, dataDir, logLevel: 'silent' },
      { env: { GEMINI_API_KEY: gemini.apiKey, GOOGLE_API_KEY: gemini.apiKey }, routing: { maxRetries: 0, cooldownAfterFailures: 1_000_000 } },
    )
    // Google's OpenAI layer as the fake serves it (at /v1, not under Google's version root): declared.
    await gateway.gateway.store.providers.upsert('gemini', 'openai', gemini.url, {}, undefined, 'gemini')
    // Gemini behind another id and an address that says nothing (a proxy in front of it): declared.
    await gateway.gateway.store.providers.upsert('google', 'openai', gemini.url, {}, undefined, 'gemini')
    secret = (await gateway.gateway.store.keys.create('t')).secret
    await gateway.gateway.configChanged()
  })

  after(async () => {
    await gateway.close()
    await gemini.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('Claude Code on Messages (streamed): its tools are taken, and its second turn carries the signature Gemini put on the tool call', async () => {
    const client = new Anthropic({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 })
    gemini.script({ kind: 'reply', toolCalls: [{ id: 'call_msg', name: 'weather', arguments: '{"city":"Oslo"}' }] })
    const first = await client.messages
      .stream({ model: MODEL, max_tokens: 200, tools: [weather], messages: [{ role: 'user', content: 'Oslo?' }] })
      .finalMessage()
    const use = first.content.find((b) => b.type === 'tool_use')!
    assert.equal(use.id, 'call_msg')
    // Sent without what Gemini's declarations refuse; a const as a one-value enum.
    const sent = gemini.received.at(-1)!.body.tools[0].function.parameters
    assert.deepEqual(sent.properties.units.anyOf[1], { type: 'string', enum: ['imperial'] })
    assert.deepEqual(sent.properties.days, { type: 'integer', minimum: 0, maximum: 9007199254740991 })
    assert.ok(!/\$schema|additionalProperties|propertyNames|exclusiveMinimum|"const"/.test(JSON.stringify(sent)), JSON.stringify(sent))
    gemini.script({ kind: 'reply', content: 'Cold.' })
    const second = await client.messages
      .stream({
        model: MODEL,
        max_tokens: 200,
        tools: [weather],
        messages: [
          { role: 'user', content: 'Oslo?' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '-3 °C' }] },
        ],
      })
      .finalMessage()
    assert.equal((second.content[0] as Anthropic.TextBlock).text, 'Cold.')
    assert.deepEqual(replayed(), [['call_msg', thoughtSignatureOf('call_msg')]])
  })

  it('Codex-style Responses turns sent whole (store: false) carry it too', async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: secret, maxRetries: 0 })
    gemini.script({ kind: 'reply', toolCalls: [{ id: 'call_resp', name: 'weather', arguments: '{"city":"Rome"}' }] })
    const tools = [{ type: 'function' as const, name: 'weather', parameters: weather.input_schema, strict: false }]
    const first = await client.responses.stream({ model: MODEL, input: 'Rome?', tools, store: false }).finalResponse()
    const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall
    gemini.script({ kind: 'reply', content: 'Warm.' })
    const second = await client.responses.create({
      model: MODEL,
      store: false,
      tools,
      input: [
        { role: 'user', content: 'Rome?' },
        { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: 'function_call_output', call_id: call.call_id, output: '24 °C' },
      ],
    })
    assert.equal(second.output_text, 'Warm.')
    assert.deepEqual(replayed(), [['call_resp', thoughtSignatureOf('call_resp')]])
  })

  it('a chat client that dropped the signature gets it back; a tool call Gemini never made gets the documented sentinel', async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: secret, maxRetries: 0 })
    gemini.script({ kind: 'reply', toolCalls: [{ id: 'call_chat', name: 'weather', arguments: '{"city":"Lima"}' }] })
    const first = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Lima?' }] })
    const call = first.choices[0].message.tool_calls![0] as any
    assert.equal(call.extra_content.google.thought_signature, thoughtSignatureOf('call_chat'), 'the client sees it as Gemini sent it')
    gemini.script({ kind: 'reply', content: 'Mild.' })
    const second = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'user', content: 'Lima?' },
        // As a client rebuilding messages from its own types sends it: no extra_content.
        { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: call.function }] },
        { role: 'tool', tool_call_id: call.id, content: '18 °C' },
        // A turn another model made earlier in the conversation.
        { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_from_claude', type: 'function', function: { name: 'weather', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'toolu_from_claude', content: 'n/a' },
      ],
    })
    assert.equal(second.choices[0].message.content, 'Mild.')
    assert.deepEqual(replayed(), [
      ['call_chat', thoughtSignatureOf('call_chat')],
      ['toolu_from_claude', 'skip_thought_signature_validator'],
    ])
  })

  it('Gemini added under another id, its dialect declared: its tools are taken and a replayed call is signed, as under the id gemini', async () => {
    const client = new Anthropic({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 })
    gemini.script({ kind: 'reply', toolCalls: [{ id: 'call_google', name: 'weather', arguments: '{"city":"Bergen"}' }] })
    const model = 'google/gemini-3-pro-preview'
    const first = await client.messages.create({ model, max_tokens: 200, tools: [weather], messages: [{ role: 'user', content: 'Bergen?' }] })
    assert.ok(!/\$schema|additionalProperties|propertyNames|exclusiveMinimum|"const"/.test(JSON.stringify(gemini.received.at(-1)!.body.tools)))
    const use = first.content.find((b) => b.type === 'tool_use')!
    gemini.script({ kind: 'reply', content: 'Wet.' })
    const second = await client.messages.create({
      model,
      max_tokens: 200,
      tools: [weather],
      messages: [
        { role: 'user', content: 'Bergen?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '9 °C' }] },
      ],
    })
    assert.equal((second.content[0] as Anthropic.TextBlock).text, 'Wet.')
    assert.deepEqual(replayed(), [['call_google', thoughtSignatureOf('call_google')]])
  })
})
