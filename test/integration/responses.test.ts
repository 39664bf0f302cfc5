import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import { gwCli, startTestGateway, type TestGateway } from '../support/harness'
import { waitUntil } from '../support/waitUntil'

const MODEL = 'openai/gpt-5.1'
/** gpt-5.1: $1.25 input, $0.125 cached input, $10 output per 1M tokens. */
const USAGE = { input_tokens: 1000, cached_tokens: 400, output_tokens: 200, reasoning_tokens: 50 }
// 600 × 1.25 + 400 × 0.125 + 200 × 10, per million.
const COST = { input_usd: 0.00075, cached_input_usd: 0.00005, output_usd: 0.002, final_usd: 0.0028 }

/** A gateway stream as its events: `event:` name and parsed data, in order. */
function events(text: string): Array<{ event: string | null; data: any }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? null
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n')
      return { event, data: data === '[DONE]' ? data : JSON.parse(data) }
    })
}

describe('POST /v1/responses through the official openai SDK, natively to a provider that serves Responses', () => {
  let t: TestGateway
  const last = () => t.fake.received.at(-1)!
  const raw = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${t.baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })

  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it('answers text: body untouched but for the model, gw on the response and in the headers, cost exact with cached tokens, record endpoint responses', async () => {
    t.fake.scriptResponses({ kind: 'reply', content: 'Bonjour.', usage: USAGE })
    const body = { model: MODEL, input: 'Say hello in French.', instructions: 'Be brief.', metadata: { ticket: 'T-1' }, temperature: 0.3 }
    const { data, response } = await t.client.responses.create(body).withResponse()
    assert.equal(data.output_text, 'Bonjour.')
    assert.deepEqual(last().body, { ...body, model: 'gpt-5.1' })
    const gw = (data as any).gw
    assert.equal(gw.routing.provider, 'openai')
    assert.equal(gw.routing.upstream_model, 'gpt-5.1')
    assert.equal(gw.cost.cached_tokens, 400)
    assert.deepEqual(
      { ...COST },
      { input_usd: gw.cost.input_usd, cached_input_usd: gw.cost.cached_input_usd, output_usd: gw.cost.output_usd, final_usd: gw.cost.final_usd },
    )
    assert.equal(response.headers.get('x-gw-cost-usd'), '0.0028')
    const id = response.headers.get('x-gw-request-id')
    const record = await t.record(id)
    assert.equal(record.endpoint, 'responses')
    assert.equal(record.status, 200)
    assert.equal(record.outcome, 'ok')
    assert.equal(record.usage!.prompt_tokens, 1000)
    assert.equal(record.usage!.cached_tokens, 400)
    assert.equal(record.usage!.completion_tokens, 200)
    assert.equal(record.usage!.reasoning_tokens, 50)
    assert.equal(record.cost!.final_usd, 0.0028)
  })

  it('streams with responses.stream(): text deltas and finalResponse() as the SDK assembles them, gw on the final response, cost exact in the record', async () => {
    const content = 'The quick brown fox jumps over the lazy dog.'
    t.fake.scriptResponses({ kind: 'reply', content, usage: USAGE })
    const stream = t.client.responses.stream({ model: MODEL, input: 'A pangram, please.' })
    const deltas: string[] = []
    stream.on('response.output_text.delta', (e) => deltas.push(e.delta))
    const final = await stream.finalResponse()
    assert.equal(final.output_text, content)
    assert.ok(deltas.length > 3)
    assert.equal(deltas.join(''), content)
    assert.equal(last().body.stream, true)
    const gw = (final as any).gw
    assert.equal(gw.cost.final_usd, 0.0028)
    const record = await t.record(gw.request_id)
    assert.equal(record.endpoint, 'responses')
    assert.equal(record.stream, true)
    assert.equal(record.cost!.final_usd, 0.0028)
    assert.equal(record.usage!.reasoning_tokens, 50)
  })

  it('relays the stream event by event as OpenAI frames it: named events, contiguous sequence numbers, response.completed last, no [DONE]', async () => {
    t.fake.scriptResponses({ kind: 'reply', content: 'One two three.' })
    const res = await raw({ model: MODEL, input: 'Count.', stream: true })
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type')!, /^text\/event-stream/)
    const text = await res.text()
    assert.doesNotMatch(text, /\[DONE\]/)
    const evs = events(text)
    for (const e of evs) assert.equal(e.event, e.data.type)
    assert.deepEqual(
      evs.map((e) => e.data.sequence_number),
      evs.map((_, i) => i),
    )
    assert.deepEqual(
      evs.slice(0, 5).map((e) => e.event),
      ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.delta'],
    )
    const done = evs.at(-1)!
    assert.equal(done.event, 'response.completed')
    assert.equal(done.data.response.usage.input_tokens, 30)
    assert.equal(done.data.response.gw.routing.provider, 'openai')
    assert.equal(typeof done.data.response.gw.cost.final_usd, 'number')
  })

  it('ends a stream cut by max_output_tokens with response.incomplete, gw on it, recorded as answered and priced', async () => {
    t.fake.scriptResponses({ kind: 'reply', status: 'incomplete', usage: USAGE })
    const final = await t.client.responses.stream({ model: MODEL, input: 'A long story.', max_output_tokens: 200 }).finalResponse()
    assert.equal(final.status, 'incomplete')
    assert.equal(final.incomplete_details?.reason, 'max_output_tokens')
    const record = await t.record((final as any).gw.request_id)
    assert.equal(record.outcome, 'ok')
    assert.equal(record.cost!.final_usd, 0.0028)
  })

  it('streams function calls: arguments arrive in deltas and the SDK assembles them', async () => {
    const args = '{"city": "Paris", "unit": "celsius"}'
    t.fake.scriptResponses({ kind: 'reply', toolCalls: [{ name: 'get_weather', arguments: args }] })
    const tools = [
      {
        type: 'function' as const,
        name: 'get_weather',
        description: 'Weather in a city',
        strict: true,
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' }, unit: { type: 'string' } },
          required: ['city', 'unit'],
          additionalProperties: false,
        },
      },
    ]
    const stream = t.client.responses.stream({ model: MODEL, input: 'Weather in Paris?', tools, tool_choice: 'auto' })
    let snapshots = 0
    stream.on('response.function_call_arguments.delta', () => snapshots++)
    const final = await stream.finalResponse()
    const call = final.output.find((o) => o.type === 'function_call')
    assert.ok(call && call.type === 'function_call')
    assert.equal(call.name, 'get_weather')
    assert.equal(call.arguments, args)
    assert.ok(snapshots > 1)
    assert.deepEqual(last().body.tools, tools)
  })

  it('passes structured output (text.format json_schema) through', async () => {
    t.fake.scriptResponses({ kind: 'reply', content: '{"answer":42}' })
    const text = {
      format: {
        type: 'json_schema' as const,
        name: 'answer',
        strict: true,
        schema: { type: 'object', properties: { answer: { type: 'integer' } }, required: ['answer'], additionalProperties: false },
      },
      verbosity: 'low' as const,
    }
    const res = await t.client.responses.create({ model: MODEL, input: 'The answer?', text })
    assert.deepEqual(JSON.parse(res.output_text), { answer: 42 })
    assert.deepEqual(last().body.text, text)
  })

  it('round-trips reasoning items: encrypted_content from one turn reaches the provider untouched in the next', async () => {
    const first = await t.client.responses.create({
      model: MODEL,
      input: 'Think, then answer.',
      reasoning: { effort: 'low' },
      include: ['reasoning.encrypted_content'],
      store: false,
    })
    const reasoning = first.output.find((o) => o.type === 'reasoning')
    assert.ok(reasoning && reasoning.type === 'reasoning' && reasoning.encrypted_content)
    const second = await t.client.responses.create({
      model: MODEL,
      input: [...(first.output as any[]), { role: 'user', content: 'And again?' }],
      reasoning: { effort: 'low' },
      include: ['reasoning.encrypted_content'],
      store: false,
    })
    assert.equal(second.status, 'completed')
    assert.equal(last().body.input[0].encrypted_content, reasoning.encrypted_content)
  })

  it("takes Codex's exact body and headers: all but the model and the gw envelope reach the provider, X-Gw-* headers do not", async () => {
    t.fake.scriptResponses({ kind: 'reply', content: 'Done.', usage: USAGE })
    const codex = {
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are Codex, a coding agent.' }] },
        {
          type: 'additional_tools',
          tools: [
            {
              type: 'namespace',
              name: 'codex',
              tools: [
                {
                  type: 'function',
                  name: 'shell',
                  description: 'Runs a command',
                  parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } } },
                  strict: false,
                },
                { type: 'custom', name: 'apply_patch', description: 'Applies a patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' } },
              ],
            },
          ],
        },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the failing test.' }] },
      ],
      tools: [{ type: 'web_search' }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning: { effort: 'medium', context: 'auto' },
      store: false,
      stream: true,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: '0199a2b3-thread',
      text: { verbosity: 'low' },
      service_tier: 'priority',
      client_metadata: { 'x-codex-installation-id': 'install-1' },
    }
    const codexHeaders = {
      accept: 'text/event-stream',
      originator: 'codex_exec',
      'session-id': '0199a2b3-session',
      'thread-id': '0199a2b3-thread',
      'x-client-request-id': '0199a2b3-request',
      'x-codex-turn-metadata': '{"turn":1,"cwd":"/repo"}',
      'x-codex-window-id': 'w-7',
      'x-codex-beta-features': 'unified_exec',
      'x-gw-session-id': 'gw-session-9',
    }
    const res = await raw({ model: MODEL, ...codex, gw: { user_id: 'alice', tags: ['codex'] } }, codexHeaders)
    assert.equal(res.status, 200)
    const evs = events(await res.text())
    assert.equal(evs.at(-1)!.event, 'response.completed')
    const got = last()
    assert.deepEqual(got.body, { model: 'gpt-5.1', ...codex })
    for (const name of [
      'originator',
      'session-id',
      'thread-id',
      'x-client-request-id',
      'x-codex-turn-metadata',
      'x-codex-window-id',
      'x-codex-beta-features',
    ]) {
      assert.equal(got.headers[name], codexHeaders[name as keyof typeof codexHeaders], name)
    }
    assert.equal(got.headers['x-gw-session-id'], undefined)
    const record = await t.record(evs.at(-1)!.data.response.gw.request_id)
    assert.equal(record.attribution.user_id, 'alice')
    assert.equal(record.attribution.session_id, 'gw-session-9')
    assert.deepEqual(record.attribution.tags, ['codex'])
    // Codex asked for service_tier "priority" and the answer says it was served so: every rate ×2 on gpt-5.1,
    // (600 × 1.25 + 400 × 0.125 + 200 × 10) × 2 per million = 0.0056.
    assert.equal(record.cost!.final_usd, 0.0056)
    assert.deepEqual(record.tier, { requested: 'priority', served: 'priority', inference_geo: null })
  })

  it('applies a preset: its system prompt before instructions, its parameters winning on max_output_tokens and temperature', async () => {
    await t.running.gateway.store.presets.save(
      { name: 'pirate', model: MODEL, system_prompt: 'Talk like a pirate.', temperature: 0.2, top_p: null, max_tokens: 300, fallbacks: [], description: null },
      'test',
    )
    await t.running.gateway.configChanged()
    const res = await t.client.responses.create({ model: '@preset/pirate', input: 'Hi', instructions: 'Be brief.', temperature: 1.5, max_output_tokens: 1000 })
    const body = last().body
    assert.equal(body.model, 'gpt-5.1')
    assert.equal(body.instructions, 'Talk like a pirate.\n\nBe brief.')
    assert.equal(body.temperature, 0.2)
    assert.equal(body.max_output_tokens, 300)
    assert.equal((res as any).gw.routing.preset.name, 'pirate')
    const record = await t.record((res as any).gw.request_id)
    assert.equal(record.preset, 'pirate')
  })

  it("caps max_output_tokens with a key's max_tokens policy: fills it in when unset, refuses more naming the field", async () => {
    const { secret } = await t.running.gateway.store.keys.create('capped', { policy: { max_tokens: 100 } })
    await t.running.gateway.configChanged()
    const capped = new OpenAI({ baseURL: t.baseURL, apiKey: secret, maxRetries: 0 })
    await capped.responses.create({ model: MODEL, input: 'Hi' })
    assert.equal(last().body.max_output_tokens, 100)
    assert.equal(last().body.max_tokens, undefined)
    const err: any = await capped.responses.create({ model: MODEL, input: 'Hi', max_output_tokens: 500 }).catch((e) => e)
    assert.equal(err.status, 403)
    assert.equal(err.error.param, 'max_output_tokens')
  })

  it("POST /v1/responses/input_tokens counts at the provider, with a preset's instructions but not its sampling parameters, recorded at $0", async () => {
    const res = await t.client.responses.inputTokens.count({ model: '@preset/pirate', input: 'one two three', instructions: 'four' })
    // 'Talk like a pirate. four' and 'one two three', in words.
    assert.equal(res.input_tokens, 8)
    assert.equal(last().path, '/v1/responses/input_tokens')
    assert.deepEqual(last().body, { model: 'gpt-5.1', input: 'one two three', instructions: 'Talk like a pirate.\n\nfour' })
    const gw = (res as any).gw
    assert.equal(gw.cost.final_usd, 0)
    const record = await t.record(gw.request_id)
    assert.equal(record.endpoint, 'responses.input_tokens')
    assert.equal(record.cost!.final_usd, 0)
  })

  it("relays a provider's error before the first byte in OpenAI's shape, and records it", async () => {
    // The real API's minimum is 16; the gateway leaves that to the provider.
    const err: any = await t.client.responses.create({ model: MODEL, input: 'Hi', max_output_tokens: 8 }).catch((e) => e)
    assert.equal(err.status, 400)
    assert.match(err.error.message, /max_output_tokens/)
    const records = await t.records()
    assert.equal(records[0].endpoint, 'responses')
    assert.equal(records[0].status, 400)
    assert.equal(records[0].outcome, 'error')

    t.fake.scriptResponses({ kind: 'status', status: 503 })
    const down: any = await t.client.responses.create({ model: MODEL, input: 'Hi', stream: true }).catch((e) => e)
    assert.ok(down.status >= 500, String(down.status))
    assert.equal(down.error.type, 'server_error')
  })

  it("refuses the gateway's own bad input in OpenAI's shape, naming the field", async () => {
    const res = await raw({ model: MODEL, input: 42 })
    assert.equal(res.status, 400)
    const body: any = await res.json()
    assert.equal(body.error.param, 'input')
    assert.equal(body.error.type, 'invalid_request_error')
  })

  it('ends a stream that fails mid-way with an error event (provider error event, dropped connection) and records the error, priced on an estimate', async () => {
    for (const mode of ['error-event', 'drop'] as const) {
      t.fake.scriptResponses({ kind: 'fail-mid-stream', afterDeltas: 2, mode })
      const res = await raw({ model: MODEL, input: 'Hi', stream: true })
      assert.equal(res.status, 200)
      const evs = events(await res.text())
      const end = evs.at(-1)!
      assert.equal(end.event, 'error', mode)
      assert.equal(end.data.type, 'error')
      assert.match(end.data.message, /openai/)
      assert.equal(evs.filter((e) => e.event === 'response.output_text.delta').length, 2)
      const records = await t.records()
      assert.equal(records[0].outcome, 'error', mode)
      assert.equal(records[0].endpoint, 'responses')
      // No usage came: the prompt ('Hi') and the 16 characters sent are estimated at 4 per token, never $0.
      assert.equal(records[0].usage!.prompt_tokens, 1)
      assert.equal(records[0].usage!.completion_tokens, 4)
      assert.equal(records[0].cost!.estimated, true)
      assert.equal(records[0].cost!.priced, true)
      assert.ok(records[0].cost!.final_usd! > 0)
    }
    t.fake.scriptResponses({ kind: 'fail-mid-stream', afterDeltas: 2, mode: 'drop' })
    await assert.rejects(t.client.responses.stream({ model: MODEL, input: 'Hi' }).finalResponse())
  })

  it('relays response.failed as it came, with gw, and records the failure priced on its usage', async () => {
    t.fake.scriptResponses({ kind: 'fail-mid-stream', afterDeltas: 3, mode: 'response-failed' })
    const res = await raw({ model: MODEL, input: 'Hi', stream: true })
    const evs = events(await res.text())
    const end = evs.at(-1)!
    assert.equal(end.event, 'response.failed')
    assert.equal(end.data.response.error.code, 'server_error')
    const record = await t.record(end.data.response.gw.request_id)
    assert.equal(record.outcome, 'error')
    assert.match(record.error!.message, /server_error/)
    assert.equal(record.usage!.completion_tokens, 3)
    assert.equal(typeof record.cost!.final_usd, 'number')
  })

  it('relays response.failed with any echo of the provider key in its error redacted, for the client and the record', async () => {
    t.fake.scriptResponses({ kind: 'fail-mid-stream', afterDeltas: 1, mode: 'response-failed', message: `Key ${t.fake.apiKey} was revoked.` })
    const res = await raw({ model: MODEL, input: 'Hi', stream: true })
    const text = await res.text()
    assert.ok(!text.includes(t.fake.apiKey.slice(-16)), 'the key left the gateway')
    const end = events(text).at(-1)!
    assert.equal(end.data.response.error.message, 'Key [redacted] was revoked.')
    const record = await t.record(end.data.response.gw.request_id)
    assert.match(record.error!.message, /Key \[redacted\] was revoked/)
  })

  it('GET /v1/responses/{id} fetches a stored response from the provider that made it, for the key that made it only', async () => {
    t.fake.scriptResponses({ kind: 'reply', content: 'Kept.' }, { kind: 'reply', content: 'Streamed and kept.' }, { kind: 'reply', content: 'Not kept.' })
    const made = await t.client.responses.create({ model: MODEL, input: 'Keep this.' })
    assert.equal((await t.record((made as any).gw.request_id)).upstream_id, made.id)
    const got = await t.client.responses.retrieve(made.id)
    assert.equal(got.output_text, 'Kept.')
    assert.equal(last().method, 'GET')
    assert.equal(last().path, `/v1/responses/${made.id}`)

    const streamed = await t.client.responses.stream({ model: MODEL, input: 'Keep this too.' }).finalResponse()
    await t.record((streamed as any).gw.request_id)
    assert.equal((await t.client.responses.retrieve(streamed.id)).output_text, 'Streamed and kept.')

    const unstored = await t.client.responses.create({ model: MODEL, input: 'Forget this.', store: false })
    assert.equal((await t.record((unstored as any).gw.request_id)).upstream_id, undefined)
    const gone: any = await t.client.responses.retrieve(unstored.id).catch((e) => e)
    assert.equal(gone.status, 404)

    const other = new OpenAI({ baseURL: t.baseURL, apiKey: (await t.running.gateway.store.keys.create('other')).secret, maxRetries: 0 })
    await t.running.gateway.configChanged()
    const refused: any = await other.responses.retrieve(made.id).catch((e) => e)
    assert.equal(refused.status, 404)
    assert.equal(refused.error.type, 'invalid_request_error')
    const notTheirs: any = await other.responses.delete(made.id).catch((e) => e)
    assert.equal(notTheirs.status, 404)

    // Its input and its deletion are the provider's too, for the same key.
    const items = await t.client.responses.inputItems.list(made.id)
    assert.deepEqual(
      items.data.map((i: any) => i.content[0].text),
      ['Keep this.'],
    )
    assert.equal(last().path, `/v1/responses/${made.id}/input_items`)
    assert.deepEqual(await t.client.responses.delete(made.id), { id: made.id, object: 'response.deleted', deleted: true })
    assert.equal(last().method, 'DELETE')
    const deleted: any = await t.client.responses.retrieve(made.id).catch((e) => e)
    assert.equal(deleted.status, 404)
  })

  it("a client that leaves during GET of a stored response ends the provider's call", async () => {
    t.fake.scriptResponses({ kind: 'reply', content: 'Kept.' })
    const made = await t.client.responses.create({ model: MODEL, input: 'Keep this.' })
    await t.record((made as any).gw.request_id)
    t.fake.scriptRetrievals({ kind: 'delay', ms: 60_000 })
    const seen = t.fake.received.length
    const leaving = new AbortController()
    const asked = t.client.responses.retrieve(made.id, {}, { signal: leaving.signal }).catch((e) => e)
    await waitUntil(() => t.fake.received.length > seen, { what: 'the provider is asked for the response' })
    assert.equal(last().method, 'GET')
    leaving.abort()
    // The provider holds its answer for a minute: only the gateway ending the call closes it now.
    await t.fake.waitForClientClose()
    assert.ok((await asked) instanceof OpenAI.APIUserAbortError)
  })

  it("a provider failing a GET of a stored response is reported in the Responses wire's error shape", async () => {
    t.fake.scriptResponses({ kind: 'reply', content: 'Kept.' })
    const made = await t.client.responses.create({ model: MODEL, input: 'Keep this.' })
    await t.record((made as any).gw.request_id)
    t.fake.scriptRetrievals({ kind: 'status', status: 500 }, { kind: 'status', status: 429, headers: { 'retry-after': '7' } })
    const res = await fetch(`${t.baseURL}/responses/${made.id}`, { headers: { authorization: `Bearer ${t.key}` } })
    assert.equal(res.status, 502)
    const body = (await res.json()) as any
    assert.deepEqual(Object.keys(body), ['error'])
    assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'param', 'type'])
    assert.equal(body.error.type, 'server_error')
    assert.equal(body.error.code, 'upstream_error')
    assert.match(body.error.message, /^openai answered 500: /)
    const limited: any = await t.client.responses.retrieve(made.id).catch((e) => e)
    assert.ok(limited instanceof OpenAI.RateLimitError)
    assert.equal(limited.headers.get('retry-after'), '7')
    // Nothing was kept from the failures: the next GET answers.
    assert.equal((await t.client.responses.retrieve(made.id)).output_text, 'Kept.')
  })

  it('input_tokens on a provider that does not serve Responses: a 400 naming the provider and the model field, never a 404 (Responses themselves are translated there)', async () => {
    const gw = t.running.gateway
    await gw.store.providers.upsert('mybox', 'openai', t.fake.url)
    await gw.configChanged()
    const seen = t.fake.received.length
    const err: any = await t.client.responses.inputTokens.count({ model: 'mybox/gpt-5.1', input: 'Hi' }).catch((e) => e)
    assert.equal(err.status, 400)
    assert.equal(err.error.param, 'model')
    assert.match(err.error.message, /counted only by providers that serve the Responses API; mybox \(kind openai, wire chat\)/)
    assert.match(err.error.message, /--wire both/)
    const anthropic: any = await t.client.responses.inputTokens.count({ model: 'anthropic/claude-sonnet-4-5', input: 'Hi' }).catch((e) => e)
    assert.equal(anthropic.status, 400)
    assert.match(anthropic.error.message, /anthropic \(kind anthropic\)/)
    assert.equal(t.fake.received.length, seen, 'nothing reached a provider')
    const records = await t.records()
    assert.equal(records[0].status, 400)
    assert.equal(records[0].endpoint, 'responses.input_tokens')
  })

  it('gw providers set --wire: a provider marked as serving Responses takes them, and chat completions no more when it serves Responses alone', async () => {
    const cli = (...args: string[]) => gwCli(args, { dataDir: t.dataDir })
    await cli('providers', 'set', 'rbox', '--kind', 'openai', '--base-url', t.fake.url, '--wire', 'responses')
    const listed = JSON.parse((await cli('providers', 'list', '--json')).stdout)
    assert.equal(listed.find((p: any) => p.id === 'rbox').wire, 'responses')
    assert.equal(listed.find((p: any) => p.id === 'openai').wire, 'both')
    assert.equal(listed.find((p: any) => p.id === 'deepseek').wire, 'chat')
    assert.equal(listed.find((p: any) => p.id === 'anthropic').wire, null)
    await assert.rejects(cli('providers', 'set', 'openai', '--wire', 'sometimes'), (e: any) => /--wire must be one of chat, responses, both/.test(e.stderr))
    await assert.rejects(cli('providers', 'set', 'anthropic', '--wire', 'both'), (e: any) => /applies to providers of kind openai/.test(e.stderr))
    await t.running.gateway.secrets.set('rbox', t.fake.apiKey)
    await t.running.gateway.configChanged()
    {
      const res = await t.client.responses.create({ model: 'rbox/gpt-5.1', input: 'Hi' })
      assert.equal(res.status, 'completed')
      assert.equal(last().path, '/v1/responses')
      const chat: any = await t.client.chat.completions.create({ model: 'rbox/gpt-5.1', messages: [{ role: 'user', content: 'Hi' }] }).catch((e) => e)
      assert.equal(chat.status, 400)
      assert.match(chat.error.message, /serves only the Responses API/)
      // Nor Messages, which reach other kinds through chat completions.
      const messages = await fetch(`${t.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': t.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'rbox/gpt-5.1', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }),
      })
      assert.equal(messages.status, 400)
      assert.match(((await messages.json()) as any).error.message, /rbox serves only the Responses API/)
      // Changing another setting keeps the wire.
      await cli('providers', 'set', 'rbox', '--kind', 'openai', '--base-url', t.fake.url)
      assert.equal((await t.running.gateway.store.providers.all()).find((p) => p.id === 'rbox')!.wire, 'responses')
    }
  })

  it('providers.set takes the wire over the management API and providers.list shows it', async () => {
    const api = async (op: string, input: unknown, cookie?: string) => {
      const res = await fetch(`${t.url}/api/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
        body: JSON.stringify(input),
      })
      return { status: res.status, body: (await res.json()) as any, cookie: res.headers.get('set-cookie')?.split(';')[0] }
    }
    const admin = (await api('auth.setup', { username: 'owner', password: 'correct horse battery' })).cookie!
    const set = await api('providers.set', { id: 'wbox', kind: 'openai', base_url: t.fake.url, wire: 'both' }, admin)
    assert.equal(set.status, 200, JSON.stringify(set.body))
    assert.equal(set.body.wire, 'both')
    const refused = await api('providers.set', { id: 'anthropic', wire: 'both' }, admin)
    assert.equal(refused.status, 400)
    assert.equal(refused.body.error.field, 'wire')
    const list = (await api('providers.list', {}, admin)).body as Array<{ id: string; wire: string | null }>
    assert.deepEqual(Object.fromEntries(list.filter((p) => ['wbox', 'openai', 'gemini', 'anthropic'].includes(p.id)).map((p) => [p.id, p.wire])), {
      wbox: 'both',
      openai: 'both',
      gemini: null,
      anthropic: null,
    })
  })
})

describe('GET /v1/responses/{id} and the cool-down', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway({}, { cooldownAfterFailures: 2, cooldownMs: 60_000 })
  })
  after(() => t.close())

  it('its failures count toward the provider cooling down, which then answers it at once with 503 and retry-after', async () => {
    t.fake.scriptResponses({ kind: 'reply', content: 'Kept.' })
    const made = await t.client.responses.create({ model: MODEL, input: 'Keep this.' })
    await t.record((made as any).gw.request_id)
    t.fake.scriptRetrievals({ kind: 'status', status: 503 }, { kind: 'status', status: 503 })
    for (let i = 0; i < 2; i++) assert.equal(((await t.client.responses.retrieve(made.id).catch((e) => e)) as any).status, 503)
    const seen = t.fake.received.length
    const cooling: any = await t.client.responses.retrieve(made.id).catch((e) => e)
    assert.equal(cooling.status, 503)
    assert.equal(cooling.error.code, 'provider_unavailable')
    assert.match(cooling.error.message, /openai is cooling down after repeated failures/)
    assert.ok(Number(cooling.headers.get('retry-after')) > 0)
    assert.equal(t.fake.received.length, seen, 'the provider was not called')
    // Inference sees the same cool-down.
    const chat: any = await t.client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }).catch((e) => e)
    assert.equal(chat.error.code, 'provider_unavailable')
  })
})
