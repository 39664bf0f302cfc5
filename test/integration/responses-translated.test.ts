import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import type { RunningGateway } from '../../src/gateway/server'
import { startTranslatedStack, weather, type TranslatedStack } from '../support/translatedStack'
import type { FakeAnthropic } from '../support/fake-anthropic'
import type { FakeOpenAI } from '../support/fake-openai'
import { newRecords, recordCount } from '../support/agentRecords'
import { waitForRecord } from '../support/harness'

// gpt-4o in USD per million tokens: input 2.5, cached input 1.25, output 10; output limit 16,384.
const MODEL = 'openai/gpt-4o'
// claude-sonnet-4-5: input 3, cache reads 0.3, 5-minute cache writes 3.75, output 15.
const CLAUDE = 'anthropic/claude-sonnet-4-5'
const near = (a: number | null | undefined, b: number) => assert.ok(a !== null && a !== undefined && Math.abs(a - b) < 1e-12, `${a} ≠ ${b}`)

/** A gateway stream as its events: `event:` name and parsed data, in order. */
const events = (text: string) => [...text.matchAll(/^event: (\S+)\ndata: (.*)$/gm)].map((m) => [m[1], JSON.parse(m[2])] as [string, any])

// A namespace holding a function and a custom (free-text) tool, as Codex sends its agent tools.
const crm = {
  type: 'namespace',
  name: 'crm',
  description: 'The CRM',
  tools: [
    { type: 'function', name: 'lookup_account', description: 'Find an account', parameters: { type: 'object', properties: { id: { type: 'string' } } } },
    { type: 'custom', name: 'note', description: 'Write a note', format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' } },
  ],
}

describe('POST /v1/responses translated to chat completions for providers that do not serve Responses, through the official openai SDK', () => {
  let openai: FakeOpenAI
  let native: FakeOpenAI
  let anthropic: FakeAnthropic
  let gateway: RunningGateway
  let client: OpenAI
  let secret: string
  const sent = () => openai.received.at(-1)!
  const record = (id: string | null | undefined) => waitForRecord(gateway.gateway, id)
  const raw = (body: object, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })

  let stack: TranslatedStack

  before(async () => {
    stack = await startTranslatedStack()
    ;({ openai, native, anthropic, gateway } = stack)
    secret = (await gateway.gateway.store.keys.create('t')).secret
    await gateway.gateway.configChanged()
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: secret, maxRetries: 0 })
  })

  after(() => stack.close())

  it('answers text: a chat body sent (instructions and developer messages as system, items in order), a Responses object back, cost exact with cached tokens', async () => {
    openai.script({ kind: 'reply', content: 'Bonjour.', usage: { prompt_tokens: 1000, cached_tokens: 400, completion_tokens: 200, reasoning_tokens: 50 } })
    const { data, response } = await client.responses
      .create({
        model: MODEL,
        instructions: 'Answer in French.',
        input: [
          { role: 'developer', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'input_text', text: 'Hello' }] },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Salut.', annotations: [] }] },
          { role: 'user', content: 'Again' },
        ],
        temperature: 0.5,
        top_p: 0.9,
        max_output_tokens: 100,
        safety_identifier: 'user-7',
        store: false,
        // The SDK's types want an id and status on an assistant message sent back; the API does not.
      } as OpenAI.Responses.ResponseCreateParamsNonStreaming)
      .withResponse()
    assert.match(data.id, /^resp_/)
    assert.equal(data.object, 'response')
    assert.equal(data.status, 'completed')
    assert.equal(data.model, MODEL)
    assert.equal(data.output_text, 'Bonjour.')
    assert.equal(data.output.length, 1)
    const [item] = data.output as any[]
    assert.equal(item.type, 'message')
    assert.equal(item.role, 'assistant')
    assert.deepEqual(item.content, [{ type: 'output_text', text: 'Bonjour.', annotations: [], logprobs: [] }])
    assert.deepEqual(data.usage, {
      input_tokens: 1000,
      input_tokens_details: { cached_tokens: 400 },
      output_tokens: 200,
      output_tokens_details: { reasoning_tokens: 50 },
      total_tokens: 1200,
    })
    assert.equal(sent().path, '/v1/chat/completions')
    assert.deepEqual(sent().body, {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Answer in French.' },
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Salut.' },
        { role: 'user', content: 'Again' },
      ],
      // OpenAI's own API: the limit every one of its models takes.
      max_completion_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      user: 'user-7',
    })
    // 600 × 2.5 + 400 × 1.25 + 200 × 10 = 1500 + 500 + 2000 = 4000 per million
    near(Number(response.headers.get('x-gw-cost-usd')), 0.004)
    const gw = (data as any).gw
    near(gw.cost.final_usd, 0.004)
    assert.equal(gw.routing.provider, 'openai')
    const rec = await record(response.headers.get('x-gw-request-id'))
    assert.equal(rec.endpoint, 'responses')
    assert.equal(rec.provider, 'openai')
    assert.equal(rec.upstream_model, 'gpt-4o')
    assert.equal(rec.status, 200)
    assert.equal(rec.usage!.cached_tokens, 400)
    assert.equal(rec.usage!.reasoning_tokens, 50)
    near(rec.cost!.final_usd, 0.004)
    assert.equal(rec.cost!.estimated, false)
    assert.deepEqual(rec.ignored, [])
  })

  it('streams text through the SDK stream helper: the Responses events in order with consecutive sequence numbers, usage asked upstream, gw on response.completed', async () => {
    openai.script({ kind: 'reply', content: 'Streamed answer, in several pieces.', usage: { prompt_tokens: 1000, cached_tokens: 400, completion_tokens: 200 } })
    const deltas: string[] = []
    const stream = client.responses.stream({ model: MODEL, input: 'Hello' }).on('response.output_text.delta', (e) => deltas.push(e.delta))
    const final = await stream.finalResponse()
    assert.equal(final.output_text, 'Streamed answer, in several pieces.')
    assert.ok(deltas.length >= 3, 'the text arrives in pieces')
    assert.equal(deltas.join(''), 'Streamed answer, in several pieces.')
    assert.equal(final.status, 'completed')
    assert.equal(final.usage!.input_tokens_details.cached_tokens, 400)
    near((final as any).gw.cost.final_usd, 0.004)
    assert.equal(sent().body.stream, true)
    assert.deepEqual(sent().body.stream_options, { include_usage: true })
    const rec = await record((final as any).gw.request_id)
    assert.equal(rec.stream, true)
    assert.equal(rec.endpoint, 'responses')
    near(rec.cost!.final_usd, 0.004)
    assert.equal(rec.cost!.estimated, false)

    openai.script({ kind: 'reply', content: 'One two three.' })
    const res = await raw({ model: MODEL, input: 'Hello', stream: true })
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/)
    const evs = events(await res.text())
    assert.deepEqual(
      evs.map(([name]) => name),
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.delta',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ],
    )
    for (const [name, data] of evs) assert.equal(data.type, name)
    assert.deepEqual(
      evs.map(([, data]) => data.sequence_number),
      evs.map((_, i) => i),
    )
    const completed = evs.at(-1)![1].response
    assert.equal(completed.id, evs[0][1].response.id)
    assert.equal(completed.status, 'completed')
    assert.equal(completed.output[0].content[0].text, 'One two three.')
    // The fake's default usage, 12 input and 5 output tokens: 12 × 2.5 + 5 × 10 = 80 per million.
    assert.deepEqual(completed.usage, {
      input_tokens: 12,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 17,
    })
    near(completed.gw.cost.final_usd, 0.00008)
  })

  it('function, custom and namespace tools: flattened to valid function names, calls mapped back (streamed arguments assembled by the SDK), and the round trip sent in order', async () => {
    const tools = [weather, crm] as any
    openai.script({
      kind: 'reply',
      toolCalls: [
        { id: 'call_1', name: 'crm__lookup_account', arguments: '{"id":"42"}' },
        { id: 'call_2', name: 'crm__note', arguments: '{"input":"Called about the invoice."}' },
      ],
    })
    const made = await client.responses.create({
      model: MODEL,
      input: 'Look up account 42',
      tools,
      tool_choice: { type: 'function', name: 'weather' },
      parallel_tool_calls: false,
    })
    assert.deepEqual(sent().body.tools, [
      { type: 'function', function: { name: 'weather', description: 'The weather in a city', parameters: weather.parameters } },
      { type: 'function', function: { name: 'crm__lookup_account', description: 'Find an account', parameters: crm.tools[0].parameters } },
      {
        type: 'function',
        function: {
          name: 'crm__note',
          description: 'Write a note\n\nThe input must follow this lark grammar:\nstart: /.+/',
          parameters: {
            type: 'object',
            properties: { input: { type: 'string', description: 'The whole input of the tool, as free text.' } },
            required: ['input'],
            additionalProperties: false,
          },
        },
      },
    ])
    assert.deepEqual(sent().body.tool_choice, { type: 'function', function: { name: 'weather' } })
    assert.equal(sent().body.parallel_tool_calls, false)
    const [call, custom] = made.output as any[]
    assert.equal(call.type, 'function_call')
    assert.match(call.id, /^fc_/)
    assert.deepEqual(
      { call_id: call.call_id, name: call.name, namespace: call.namespace, arguments: call.arguments },
      { call_id: 'call_1', name: 'lookup_account', namespace: 'crm', arguments: '{"id":"42"}' },
    )
    assert.equal(custom.type, 'custom_tool_call')
    assert.deepEqual(
      { call_id: custom.call_id, name: custom.name, namespace: custom.namespace, input: custom.input },
      { call_id: 'call_2', name: 'note', namespace: 'crm', input: 'Called about the invoice.' },
    )

    // Streamed: the arguments arrive as deltas, assembled by the SDK.
    openai.script({ kind: 'reply', content: 'Checking.', toolCalls: [{ id: 'call_3', name: 'weather', arguments: '{"city":"Paris, France"}' }] })
    const argDeltas: string[] = []
    const stream = client.responses
      .stream({ model: MODEL, input: 'Weather in Paris?', tools })
      .on('response.function_call_arguments.delta', (e) => argDeltas.push(e.delta))
    const final = await stream.finalResponse()
    assert.ok(argDeltas.length >= 2, 'the arguments arrive in pieces')
    assert.equal(final.output_text, 'Checking.')
    const streamedCall = final.output[1] as any
    assert.deepEqual(
      { type: streamedCall.type, call_id: streamedCall.call_id, name: streamedCall.name, arguments: streamedCall.arguments },
      { type: 'function_call', call_id: 'call_3', name: 'weather', arguments: '{"city":"Paris, France"}' },
    )
    assert.deepEqual(JSON.parse(streamedCall.arguments), { city: 'Paris, France' })

    // The round trip: the calls and their outputs as the client sends them back.
    openai.script({ kind: 'reply', content: 'Account 42 is Acme.' })
    const next = await client.responses.create({
      model: MODEL,
      tools,
      input: [
        { role: 'user', content: 'Look up account 42' },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA-secret-reasoning' },
        { type: 'function_call', call_id: 'call_1', name: 'lookup_account', namespace: 'crm', arguments: '{"id":"42"}' } as any,
        { type: 'custom_tool_call', call_id: 'call_2', name: 'note', namespace: 'crm', input: 'Called.' } as any,
        { type: 'function_call_output', call_id: 'call_1', output: '{"name":"Acme"}' },
        { type: 'custom_tool_call_output', call_id: 'call_2', output: 'saved' },
      ],
    })
    assert.equal(next.output_text, 'Account 42 is Acme.')
    assert.deepEqual(sent().body.messages, [
      { role: 'user', content: 'Look up account 42' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'crm__lookup_account', arguments: '{"id":"42"}' } },
          { id: 'call_2', type: 'function', function: { name: 'crm__note', arguments: '{"input":"Called."}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"name":"Acme"}' },
      { role: 'tool', tool_call_id: 'call_2', content: 'saved' },
    ])
    assert.doesNotMatch(JSON.stringify(sent().body), /secret-reasoning/, 'encrypted reasoning never reaches a provider that did not make it')
    const rec = await record((next as any).gw.request_id)
    assert.deepEqual(
      rec.ignored.map((i) => i.name),
      ['reasoning items'],
    )
  })

  it('structured output: text.format json_schema as response_format, the JSON answer parsed by the SDK', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }
    openai.script({ kind: 'reply', content: '{"city":"Paris"}' })
    const res = await client.responses.create({
      model: MODEL,
      input: 'Capital of France?',
      text: { format: { type: 'json_schema', name: 'capital', schema, strict: true }, verbosity: 'low' },
    })
    assert.deepEqual(JSON.parse(res.output_text), { city: 'Paris' })
    assert.deepEqual(sent().body.response_format, { type: 'json_schema', json_schema: { name: 'capital', schema, strict: true } })
    assert.deepEqual(res.text?.format, { type: 'json_schema', name: 'capital', schema, strict: true })
    const rec = await record((res as any).gw.request_id)
    assert.deepEqual(
      rec.ignored.map((i) => i.name),
      ['text.verbosity'],
    )
  })

  it('an answer cut by the token limit is incomplete, with the reason: status on the JSON answer, response.incomplete ending the stream', async () => {
    openai.script({ kind: 'reply', content: 'Cut sh', finishReason: 'length' })
    const cut = await client.responses.create({ model: MODEL, input: 'Tell me everything', max_output_tokens: 16 })
    assert.equal(cut.status, 'incomplete')
    assert.deepEqual(cut.incomplete_details, { reason: 'max_output_tokens' })
    assert.equal((cut.output[0] as any).status, 'incomplete')
    assert.equal(cut.output_text, 'Cut sh')

    openai.script({ kind: 'reply', content: 'Cut sh', finishReason: 'length' })
    const res = await raw({ model: MODEL, input: 'Tell me everything', max_output_tokens: 16, stream: true })
    const evs = events(await res.text())
    const [name, last] = evs.at(-1)!
    assert.equal(name, 'response.incomplete')
    assert.equal(last.response.status, 'incomplete')
    assert.deepEqual(last.response.incomplete_details, { reason: 'max_output_tokens' })
    assert.equal(last.response.output[0].status, 'incomplete')
    assert.ok(last.response.gw.cost.final_usd > 0)
  })

  it("what only OpenAI's API does is dropped and named in the record (hosted tools, reasoning, include, store); max_output_tokens lowered to the model's limit", async () => {
    openai.script({ kind: 'reply', content: 'Fine.' })
    const res = await client.responses.create({
      model: MODEL,
      input: 'Hi',
      tools: [{ type: 'web_search' }, weather],
      reasoning: { effort: 'high', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      store: true,
      prompt_cache_key: 'session-1',
      max_output_tokens: 50_000,
    })
    assert.equal(res.output_text, 'Fine.')
    const body = sent().body
    assert.equal(body.max_completion_tokens, 16_384)
    assert.deepEqual(
      body.tools.map((t: any) => t.function.name),
      ['weather'],
    )
    for (const field of ['reasoning', 'include', 'store', 'reasoning_effort']) assert.equal(body[field], undefined, field)
    // OpenAI's chat completions read the caller's cache key too: it is carried.
    assert.equal(body.prompt_cache_key, 'session-1')
    const rec = await record((res as any).gw.request_id)
    assert.deepEqual(rec.ignored.map((i) => i.name).sort(), ['include', 'max_output_tokens', 'reasoning', 'tools: web_search'])
    assert.match(rec.ignored.find((i) => i.name === 'max_output_tokens')!.reason, /16384/)
  })

  it('refuses with a 400 naming the field what would change the answer (an uploaded file) or is missing; nothing reaches the provider, every request recorded', async () => {
    const seen = openai.received.length
    const cases: Array<[object, string, RegExp]> = [
      [{ input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file_1' }] }] }, 'input[0].content[0].type', /file input/],
      [{ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_2' }] }] }, 'input[0].content[0].image_url', /uploaded file id/],
      [{ input: [{ type: 'function_call_output', output: 'done' }] }, 'input[0].call_id', /Missing required parameter: 'input\[0\]\.call_id'/],
      [{ input: 'Hi', tools: [{ type: 'namespace', name: 'crm', tools: [{ type: 'function' }] }] }, 'tools[0].tools[0].name', /Missing required parameter/],
    ]
    for (const [body, param, message] of cases) {
      const count = await recordCount(gateway.gateway)
      const err: any = await client.responses.create({ model: MODEL, ...body } as any).catch((e) => e)
      assert.equal(err.status, 400, param)
      assert.equal(err.error.type, 'invalid_request_error')
      assert.equal(err.error.param, param)
      assert.match(err.error.message, message)
      const [rec] = await newRecords(gateway.gateway, count)
      assert.equal(rec.status, 400)
      assert.equal(rec.endpoint, 'responses')
    }
    assert.equal(openai.received.length, seen, 'nothing reached the provider')
  })

  it("a provider's error before the stream is the client's in OpenAI's shape; one during the stream ends it with response.failed, priced on what was sent", async () => {
    openai.script({
      kind: 'status',
      status: 400,
      body: { error: { message: 'This model does not take that.', type: 'invalid_request_error', param: 'messages', code: null } },
    })
    const before: any = await client.responses.create({ model: MODEL, input: 'Hi' }).catch((e) => e)
    assert.equal(before.status, 400)
    assert.match(before.error.message, /This model does not take that/)

    openai.script({ kind: 'status', status: 500 })
    const streamedBefore: any = await client.responses
      .stream({ model: MODEL, input: 'Hi' })
      .finalResponse()
      .catch((e) => e)
    assert.ok(streamedBefore instanceof OpenAI.APIError, String(streamedBefore))
    // A provider's server error is the gateway's bad gateway, as on chat completions.
    assert.equal(streamedBefore.status, 502)
    assert.equal(streamedBefore.error.type, 'server_error')

    openai.script({ kind: 'fail-mid-stream', afterChunks: 3, mode: 'error-event' })
    const count = await recordCount(gateway.gateway)
    const res = await raw({ model: MODEL, input: 'Hi', stream: true })
    assert.equal(res.status, 200)
    const evs = events(await res.text())
    assert.deepEqual(
      evs.slice(0, 4).map(([n]) => n),
      ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added'],
    )
    // Ended as the API ends a failed response.
    assert.equal(evs.at(-1)![0], 'response.failed')
    const failed = evs.at(-1)![1]
    assert.equal(failed.response.status, 'failed')
    assert.match(failed.response.error.message, /openai: The server had an error/)
    assert.ok(failed.response.output[0].content[0].text.length > 0, 'with the text sent so far')
    assert.ok(!evs.some(([n]) => n === 'response.completed'))
    const [rec] = await newRecords(gateway.gateway, count)
    assert.equal(rec.outcome, 'error')
    assert.equal(rec.cost!.estimated, true)
    assert.ok(rec.cost!.final_usd! > 0, 'a broken stream is not free')

    openai.script({ kind: 'fail-mid-stream', afterChunks: 3, mode: 'error-event' })
    // The SDK's stream helper returns the failed response, as for OpenAI's own.
    const sdk = await client.responses.stream({ model: MODEL, input: 'Hi' }).finalResponse()
    assert.equal(sdk.status, 'failed')
    assert.match(sdk.error!.message, /openai: The server had an error/)
  })

  it('Anthropic through its adapter: text and tools, streamed and not, cache reads and writes priced exactly', async () => {
    const usage = { input_tokens: 100, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200, output_tokens: 50 }
    // 100 × 3 + 1000 × 0.3 + 200 × 3.75 + 50 × 15 = 300 + 300 + 750 + 750 = 2100 per million
    const cost = 0.0021
    anthropic.script({ kind: 'reply', text: 'Hello from Claude.', usage })
    const { data, response } = await client.responses.create({ model: CLAUDE, instructions: 'Be kind.', input: 'Hi', max_output_tokens: 200 }).withResponse()
    assert.equal(data.output_text, 'Hello from Claude.')
    assert.equal(data.model, CLAUDE)
    assert.deepEqual(data.usage, {
      input_tokens: 1300,
      input_tokens_details: { cached_tokens: 1000, cache_write_tokens: 200 } as any,
      output_tokens: 50,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 1350,
    })
    const sentAnthropic = anthropic.received.at(-1)!
    assert.equal(sentAnthropic.path, '/v1/messages')
    assert.equal(sentAnthropic.body.model, 'claude-sonnet-4-5')
    assert.equal(sentAnthropic.body.max_tokens, 200)
    assert.deepEqual(sentAnthropic.body.messages, [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }])
    assert.match(JSON.stringify(sentAnthropic.body.system), /Be kind\./)
    near(Number(response.headers.get('x-gw-cost-usd')), cost)
    const rec = await record(response.headers.get('x-gw-request-id'))
    assert.equal(rec.endpoint, 'responses')
    assert.equal(rec.provider, 'anthropic')
    near(rec.cost!.final_usd, cost)

    anthropic.script({
      kind: 'reply',
      text: 'Let me look.',
      toolUses: [{ id: 'toolu_1', name: 'crm__lookup_account', input: { id: '42' } }],
      stopReason: 'tool_use',
      usage,
    })
    const final = await client.responses.stream({ model: CLAUDE, input: 'Account 42?', tools: [crm] as any }).finalResponse()
    assert.equal(final.output_text, 'Let me look.')
    const call = final.output[1] as any
    assert.deepEqual(
      { type: call.type, call_id: call.call_id, name: call.name, namespace: call.namespace },
      { type: 'function_call', call_id: 'toolu_1', name: 'lookup_account', namespace: 'crm' },
    )
    assert.deepEqual(JSON.parse(call.arguments), { id: '42' })
    assert.deepEqual(
      anthropic.received.at(-1)!.body.tools.map((t: any) => t.name),
      ['crm__lookup_account', 'crm__note'],
    )
    near((final as any).gw.cost.final_usd, cost)
    const streamed = await record((final as any).gw.request_id)
    near(streamed.cost!.final_usd, cost)
    assert.equal(streamed.stream, true)
  })

  it('falls back from a provider that serves Responses to a chat-only one on the same request: the native body and headers to the first, the translation without them to the second', async () => {
    const gw = gateway.gateway
    await gw.store.presets.save(
      {
        name: 'mixed',
        model: 'groq/gpt-oss-120b',
        system_prompt: null,
        temperature: null,
        top_p: null,
        max_tokens: null,
        fallbacks: [MODEL],
        description: null,
      },
      'test',
    )
    await gw.configChanged()
    native.scriptResponses({ kind: 'status', status: 503 })
    openai.script({ kind: 'reply', content: 'From the fallback.' })
    const headers = { originator: 'codex_exec', 'session-id': '0199-session', 'x-codex-window-id': 'w1' }
    const res = await raw(
      { model: '@preset/mixed', input: 'Hi', stream: true, store: false, include: ['reasoning.encrypted_content'], reasoning: { effort: 'low' } },
      headers,
    )
    assert.equal(res.status, 200)
    const evs = events(await res.text())
    assert.equal(evs.at(-1)![0], 'response.completed')
    assert.equal(evs.at(-1)![1].response.output[0].content[0].text, 'From the fallback.')
    const first = native.received.at(-1)!
    assert.equal(first.path, '/v1/responses')
    assert.deepEqual(first.body.reasoning, { effort: 'low' })
    assert.equal(first.headers.originator, 'codex_exec')
    assert.equal(first.headers['x-codex-window-id'], 'w1')
    assert.equal(sent().path, '/v1/chat/completions')
    for (const h of Object.keys(headers)) assert.equal(sent().headers[h], undefined, h)
    assert.equal(sent().body.reasoning, undefined)
    const rec = await record(evs.at(-1)![1].response.gw.request_id)
    assert.equal(rec.provider, 'openai')
    assert.equal(rec.fallback_used, true)
    assert.deepEqual(
      rec.attempts.map((a) => [a.provider, a.status]),
      [
        ['groq', 503],
        ['openai', 200],
      ],
    )
    assert.deepEqual(rec.ignored.map((i) => i.name).sort(), ['include', 'reasoning'])
  })
})
