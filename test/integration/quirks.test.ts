// Provider quirks the gateway must absorb (reference /work/shared/reference/wire-format.md §5 and §6
// items 9, 13, 14, 20): each fake below speaks one provider's dialect of the OpenAI wire format, and
// every test drives a real gateway with the official SDK, which must not be able to tell.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import net from 'node:net'
import OpenAI from 'openai'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import type { SecretStore } from '../../src/gateway/secrets/secretStore'
import { startFakeOpenAI, type FakeOpenAI, type FakeQuirks } from '../support/fake-openai'
import { gwCli, startTestGateway, tempDir, waitForRecord, type TestGateway } from '../support/harness'

/** No keychain: every credential comes from the environment the gateway is given, so local providers have none. */
const noSecrets: SecretStore = {
  description: 'none (test)',
  source: 'keychain',
  get: async () => null,
  set: async () => {},
  delete: async () => false,
  unusableReason: async () => null,
}

const hi = [{ role: 'user' as const, content: 'Hi' }]
/** A scripted error body; each fake re-shapes it into its provider's dialect. */
const openaiError = (message: string, type = 'invalid_request_error', metadata?: unknown) => ({
  error: { message, type, param: null, code: null, ...(metadata ? { metadata } : {}) },
})
/** Exact USD of `tokens` at `usdPer1M`, the way the cost engine sums it (integer pico-dollars). */
const pico = (tokens: number, usdPer1M: number) => tokens * Math.round(usdPer1M * 1e6)

/** A port nothing listens on: a local server that is not running. */
async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('provider quirks, absorbed by the gateway', () => {
  let running: RunningGateway
  let dataDir: string
  let client: OpenAI
  let baseURL: string
  let key: string
  const fakes: Record<string, FakeOpenAI> = {}

  const start = async (id: string, quirks: FakeQuirks, models: string[]) => {
    fakes[id] = await startFakeOpenAI({ quirks, models })
    return fakes[id]
  }

  const record = (id: string | null | undefined) => waitForRecord(running.gateway, id)

  const modelList = async () => (await client.models.list()).data as any[]

  before(async () => {
    const gem = await start('gem', { errorsAsArray: true, toolCallsWithoutIndex: true, stopWithToolCalls: true, emptyToolCallIds: true, modelsPrefix: true }, [
      'gemini-2.5-flash',
      'gemini-embedding-001',
    ])
    const groq = await start('groq', { groqUsage: true }, ['llama-3.3-70b-versatile'])
    const openrouter = await start('openrouter', { keepAlives: true, crlf: true, splitWrites: true, numericErrorCode: true }, ['openai/gpt-4o-mini'])
    const deepseek = await start('deepseek', { blankLinesBeforeJson: true, deepseekUsage: true, keepAlives: true }, ['deepseek-flash'])
    const together = await start('together', { bareModelList: true }, ['meta-llama/Llama-3.3-70B-Instruct-Turbo', 'Qwen/Qwen3-8B'])
    await start('ollama', { noAuth: true }, ['llama3.2'])
    dataDir = tempDir()
    running = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' },
      {
        env: {
          GEM_API_KEY: gem.apiKey,
          GROQ_API_KEY: groq.apiKey,
          OPENROUTER_API_KEY: openrouter.apiKey,
          DEEPSEEK_API_KEY: deepseek.apiKey,
          TOGETHER_API_KEY: together.apiKey,
          // A second provider on the Gemini fake whose key Gemini refuses.
          GEM_BADKEY_API_KEY: 'AIza-not-a-valid-key',
        },
        secrets: noSecrets,
        // Each provider answers once: the gateway's own retries and cooldowns are routing tests' business.
        routing: { maxRetries: 0, cooldownAfterFailures: 1_000_000 },
      },
    )
    const gw = running.gateway
    for (const [id, fake] of Object.entries(fakes)) await gw.store.providers.upsert(id, 'openai', fake.url)
    await gw.store.providers.upsert('gem-badkey', 'openai', gem.url)
    await gw.store.providers.upsert('lmstudio', 'openai', `http://127.0.0.1:${await closedPort()}/v1`)
    key = (await gw.store.keys.create('quirks')).secret
    await gw.configChanged()
    baseURL = `${running.url}/v1`
    client = new OpenAI({ baseURL, apiKey: key, maxRetries: 0 })
  })

  after(async () => {
    await running?.close()
    for (const fake of Object.values(fakes)) await fake.close()
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  })

  describe('Gemini', () => {
    it('turns its JSON-array errors into OpenAI errors with the message and the right status', async () => {
      const message = 'Invalid JSON payload received. Unknown name "web_search_options": Cannot find field.'
      fakes.gem.script(
        { kind: 'status', status: 400, body: openaiError(message) },
        { kind: 'status', status: 404, body: openaiError('models/gemini-9 is not found for API version v1main.') },
        { kind: 'status', status: 429, body: openaiError('Resource has been exhausted (e.g. check quota).', 'requests') },
      )
      const bad = await client.chat.completions.create({ model: 'gem/gemini-2.5-flash', messages: hi }).catch((e: unknown) => e)
      assert.ok(bad instanceof OpenAI.BadRequestError)
      assert.equal(bad.status, 400)
      assert.match(bad.message, /Unknown name "web_search_options"/)
      assert.equal(bad.type, 'invalid_request_error', 'an OpenAI error type, not the Google status')
      assert.deepEqual(Object.keys(bad.error as object).sort(), ['code', 'message', 'param', 'type'])
      assert.notEqual(typeof bad.code, 'number')
      const record400 = await record(bad.requestID)
      assert.equal(record400.status, 400)
      assert.equal(record400.attempts[0].status, 400)

      const missing = await client.chat.completions.create({ model: 'gem/gemini-9', messages: hi }).catch((e: unknown) => e)
      assert.ok(missing instanceof OpenAI.NotFoundError)
      assert.match(missing.message, /gemini-9 is not found/)
      assert.equal(missing.type, 'invalid_request_error')

      const limited = await client.chat.completions.create({ model: 'gem/gemini-2.5-flash', messages: hi }).catch((e: unknown) => e)
      assert.ok(limited instanceof OpenAI.RateLimitError)
      assert.match(limited.message, /Resource has been exhausted/)
      assert.equal(limited.type, 'rate_limit_exceeded')
      assert.equal(limited.code, 'rate_limit_exceeded')

      // Gemini refuses a wrong key with a 400: the caller's request was fine, the gateway's key was not.
      const refused = await client.chat.completions.create({ model: 'gem-badkey/gemini-2.5-flash', messages: hi }).catch((e: unknown) => e)
      assert.ok(refused instanceof OpenAI.APIError)
      assert.equal(refused.status, 502)
      assert.equal(refused.code, 'provider_auth_failed')
      assert.match(refused.message, /API key not valid/)
      assert.doesNotMatch(refused.message, /AIza-not-a-valid-key/)
    })

    it("streams index-less tool calls with empty ids and finish_reason stop, which the SDK's stream helper still assembles", async () => {
      fakes.gem.script({
        kind: 'reply',
        toolCalls: [
          { id: 'ignored-1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'ignored-2', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
        ],
      })
      const final = await client.chat.completions
        .stream({
          model: 'gem/gemini-2.5-flash',
          messages: [{ role: 'user', content: 'Weather and time in Paris?' }],
          // With usage asked for, chunks the gateway leaves alone go out as the provider's text:
          // the repaired ones must not.
          stream_options: { include_usage: true },
          tools: [
            { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
            { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } } },
          ],
        })
        .finalChatCompletion()
      const calls = final.choices[0].message.tool_calls!.map((c: any) => ({ id: c.id, type: c.type, ...c.function }))
      assert.deepEqual(
        calls.map(({ id: _id, ...rest }) => rest),
        [
          { type: 'function', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
        ],
      )
      for (const c of calls) assert.match(c.id, /^call_[\w-]+$/, 'a generated id for an empty one')
      assert.notEqual(calls[0].id, calls[1].id)
      assert.equal(final.choices[0].finish_reason, 'tool_calls')
    })

    it('answers tool calls with finish_reason tool_calls and generated ids when Gemini says "stop" with empty ids', async () => {
      fakes.gem.script({ kind: 'reply', toolCalls: [{ id: 'x', name: 'lookup', arguments: '{"q":"x"}' }] })
      const res = await client.chat.completions.create({
        model: 'gem/gemini-2.5-flash',
        messages: hi,
        tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      })
      const call = res.choices[0].message.tool_calls![0] as any
      assert.equal(res.choices[0].finish_reason, 'tool_calls')
      assert.match(call.id, /^call_[\w-]+$/)
      assert.deepEqual(call.function, { name: 'lookup', arguments: '{"q":"x"}' })
    })

    it('lists its models without the models/ prefix', async () => {
      const ids = (await modelList()).filter((m) => m.gw.provider === 'gem')
      assert.deepEqual(ids.map((m) => m.id).sort(), ['gem/gemini-2.5-flash', 'gem/gemini-embedding-001'])
      for (const m of ids) {
        assert.doesNotMatch(m.gw.upstream_model, /^models\//)
        assert.equal(m.gw.availability.available, true)
      }
      const one: any = await client.models.retrieve('gem/gemini-2.5-flash')
      assert.equal(one.gw.upstream_model, 'gemini-2.5-flash')
      assert.equal(fakes.gem.received.filter((r) => r.path === '/v1/models').length >= 1, true)
    })
  })

  describe('Groq', () => {
    it('turns usage found only under x_groq.usage into the usage chunk the client asked for, and prices it', async () => {
      fakes.groq.script({ kind: 'reply', content: 'one two three', usage: { prompt_tokens: 1000, completion_tokens: 200, cached_tokens: 0 } })
      const stream = await client.chat.completions.create({
        model: 'groq/llama-3.3-70b-versatile',
        messages: hi,
        stream: true,
        stream_options: { include_usage: true },
      })
      const chunks: any[] = []
      for await (const c of stream) chunks.push(c)
      assert.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'one two three')
      const last = chunks.at(-1)
      assert.deepEqual(last.choices, [])
      assert.equal(last.usage.prompt_tokens, 1000)
      assert.equal(last.usage.completion_tokens, 200)
      assert.equal(last.usage.total_tokens, 1200)
      assert.equal(chunks.filter((c) => c.choices.length === 0).length, 1, 'exactly one usage chunk')
      // llama-3.3-70b-versatile: $0.59 in, $0.79 out per 1M tokens.
      assert.equal(last.gw.cost.priced, true)
      assert.equal(last.gw.cost.final_usd, (pico(1000, 0.59) + pico(200, 0.79)) / 1e12)
      const rec = await record(last.gw.request_id)
      assert.equal(rec.outcome, 'ok')
      assert.equal(rec.cost!.final_usd, last.gw.cost.final_usd)

      // A client that did not ask for usage still gets a priced request and no usage chunk.
      fakes.groq.script({ kind: 'reply', usage: { prompt_tokens: 10, completion_tokens: 5, cached_tokens: 0 } })
      const quiet: any[] = []
      for await (const c of await client.chat.completions.create({ model: 'groq/llama-3.3-70b-versatile', messages: hi, stream: true })) quiet.push(c)
      for (const c of quiet) assert.ok(c.choices.length > 0)
      assert.equal(quiet.at(-1).gw.cost.final_usd, (pico(10, 0.59) + pico(5, 0.79)) / 1e12)
    })
  })

  describe('SSE framing (OpenRouter-style keep-alives, \\r\\n, split TCP writes)', () => {
    it('relays content intact across comments, blank lines, \\r\\n and writes split inside UTF-8 characters', async () => {
      const content = 'Grüße aus Köln — 東京 から 🎉 ✓ naïve café'
      fakes.openrouter.script({ kind: 'reply', content, usage: { prompt_tokens: 9, completion_tokens: 12, cached_tokens: 0 } })
      const stream = await client.chat.completions.create({
        model: 'openrouter/openai/gpt-4o-mini',
        messages: hi,
        stream: true,
        stream_options: { include_usage: true },
      })
      const chunks: any[] = []
      for await (const c of stream) chunks.push(c)
      assert.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), content)
      assert.ok(chunks.filter((c) => c.choices[0]?.delta?.content).length >= 5, 'arrived in many pieces')
      assert.equal(chunks.at(-1).usage.completion_tokens, 12)
      const rec = await record(chunks.at(-1).gw.request_id)
      assert.equal(rec.outcome, 'ok')

      fakes.openrouter.script({ kind: 'reply', toolCalls: [{ id: 'call_ü', name: 'translate', arguments: '{"text":"日本語 ✓"}' }] })
      const final = await client.chat.completions
        .stream({
          model: 'openrouter/openai/gpt-4o-mini',
          messages: hi,
          tools: [{ type: 'function', function: { name: 'translate', parameters: { type: 'object' } } }],
        })
        .finalChatCompletion()
      assert.deepEqual((final.choices[0].message.tool_calls![0] as any).function, { name: 'translate', arguments: '{"text":"日本語 ✓"}' })
    })
  })

  describe('DeepSeek', () => {
    it('reads a JSON body after blank lines and prices prompt_cache_hit_tokens as cached input', async () => {
      fakes.deepseek.script({ kind: 'reply', content: 'cached answer', usage: { prompt_tokens: 10_000, completion_tokens: 1000, cached_tokens: 8000 } })
      const res: any = await client.chat.completions.create({ model: 'deepseek/deepseek-flash', messages: hi })
      assert.equal(res.choices[0].message.content, 'cached answer')
      assert.equal(res.usage.prompt_cache_hit_tokens, 8000)
      const cost = res.gw.cost
      assert.equal(cost.cached_tokens, 8000)
      // deepseek-flash bills by the request's time: off-peak 0.15 / 0.003 / 0.6, peak 0.3 / 0.006 / 1.2 per 1M.
      const peak = / \(peak\)$/.test(cost.price_source)
      const [input, cached, output] = peak ? [0.3, 0.006, 1.2] : [0.15, 0.003, 0.6]
      assert.match(cost.price_source, /^catalog /)
      assert.equal(cost.input_usd, pico(2000, input) / 1e12)
      assert.equal(cost.cached_input_usd, pico(8000, cached) / 1e12)
      assert.equal(cost.output_usd, pico(1000, output) / 1e12)
      assert.equal(cost.final_usd, (pico(2000, input) + pico(8000, cached) + pico(1000, output)) / 1e12)
      assert.ok(cost.cache_savings_usd > 0)

      // Streamed, with `: keep-alive` comments: the cache hits are still priced as cached.
      fakes.deepseek.script({ kind: 'reply', content: 'streamed answer', usage: { prompt_tokens: 10_000, completion_tokens: 1000, cached_tokens: 8000 } })
      const chunks: any[] = []
      for await (const c of await client.chat.completions.create({ model: 'deepseek/deepseek-flash', messages: hi, stream: true })) chunks.push(c)
      assert.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'streamed answer')
      assert.equal(chunks.at(-1).gw.cost.cached_tokens, 8000)
      assert.equal(chunks.at(-1).gw.cost.cached_input_usd, cost.cached_input_usd)
    })
  })

  describe('Together', () => {
    it('lists the models of a bare-array /models answer', async () => {
      const together = (await modelList()).filter((m) => m.gw.provider === 'together')
      assert.deepEqual(together.map((m) => m.id).sort(), ['together/Qwen/Qwen3-8B', 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo'])
      for (const m of together) {
        assert.equal(m.object, 'model')
        assert.equal(m.created, 1_700_000_000)
        assert.equal(m.gw.availability.available, true)
      }
    })
  })

  describe('Ollama and LM Studio', () => {
    it('sends no key to a local server and costs its answers $0 with price_source local', async () => {
      const res: any = await client.chat.completions.create({ model: 'ollama/llama3.2', messages: hi })
      assert.equal(res.choices[0].message.content, 'Hello from the fake provider.')
      const upstream = fakes.ollama.received.at(-1)!
      assert.equal(upstream.path, '/v1/chat/completions')
      assert.equal(upstream.headers.authorization, undefined)
      assert.equal(upstream.body.model, 'llama3.2')
      assert.equal(res.gw.cost.priced, true)
      assert.equal(res.gw.cost.final_usd, 0)
      assert.equal(res.gw.cost.price_source, 'local')
    })

    it("takes availability from a local server's model list, and says when it is not running", async () => {
      const gw = running.gateway
      // Entries for models the servers do not serve, so the list has something to mark unavailable.
      const price = { row: { input: 0.1, output: 0.2 }, as_of: '2026-11-23', note: null }
      await gw.store.prices.set({ model: 'ollama/qwen3:8b', ...price })
      await gw.store.prices.set({ model: 'lmstudio/qwen2.5-7b-instruct', ...price })
      await gw.configChanged()
      const models = await modelList()
      const byId = new Map(models.map((m) => [m.id, m]))
      const pulled = byId.get('ollama/llama3.2')
      assert.deepEqual(pulled.gw.availability, { available: true, reason: null })
      assert.equal(pulled.gw.pricing.source, 'local')
      const notPulled = byId.get('ollama/qwen3:8b')
      assert.equal(notPulled.gw.availability.available, false)
      assert.match(notPulled.gw.availability.reason, /ollama does not have qwen3:8b/)
      const down = byId.get('lmstudio/qwen2.5-7b-instruct')
      assert.equal(down.gw.availability.available, false)
      assert.match(down.gw.availability.reason, /lmstudio is unreachable/)
      const probe = fakes.ollama.received.findLast((r) => r.path === '/v1/models')!
      assert.equal(probe.headers.authorization, undefined, 'the model-list probe carries no key either')

      const err = await client.chat.completions.create({ model: 'lmstudio/qwen2.5-7b-instruct', messages: hi }).catch((e: unknown) => e)
      assert.ok(err instanceof OpenAI.APIError)
      assert.equal(err.status, 502)
      assert.equal(err.code, 'provider_unreachable')
      assert.equal((await record(err.requestID)).outcome, 'error')
    })
  })

  describe('OpenRouter', () => {
    it('an error event after the 200 makes the stream throw and is recorded as an error', async () => {
      fakes.openrouter.script({ kind: 'fail-mid-stream', afterChunks: 3, mode: 'error-event' })
      const { data: stream, response } = await client.chat.completions
        .create({ model: 'openrouter/openai/gpt-4o-mini', messages: hi, stream: true })
        .withResponse()
      assert.equal(response.status, 200)
      const seen: string[] = []
      const err = await (async () => {
        for await (const c of stream) seen.push(c.choices[0]?.delta?.content ?? '')
      })().catch((e: unknown) => e)
      assert.ok(err instanceof OpenAI.APIError, 'the SDK throws')
      assert.match(err.message, /Provider disconnected unexpectedly/)
      assert.ok(seen.join('').length > 0, 'content before the failure arrived')
      const rec = await record(response.headers.get('x-request-id'))
      assert.equal(rec.status, 200)
      assert.equal(rec.outcome, 'error')
    })

    it('maps numeric error codes before the first byte to OpenAI errors with string codes', async () => {
      fakes.openrouter.script(
        { kind: 'status', status: 400, body: openaiError('openai/gpt-5-mega is not a valid model ID') },
        { kind: 'status', status: 429, headers: { 'retry-after': '2' } },
        { kind: 'status', status: 402, body: openaiError('Insufficient credits. Add more using https://openrouter.ai/credits') },
        {
          kind: 'status',
          status: 403,
          body: openaiError('openai/gpt-4o-mini requires moderation on OpenAI. Your input was flagged for "harassment".', 'moderation', {
            reasons: ['harassment'],
            flagged_input: 'you are…',
            provider_name: 'OpenAI',
            model_slug: 'openai/gpt-4o-mini',
          }),
        },
      )
      const bad = await client.chat.completions.create({ model: 'openrouter/openai/gpt-5-mega', messages: hi }).catch((e: unknown) => e)
      assert.ok(bad instanceof OpenAI.BadRequestError)
      assert.match(bad.message, /not a valid model ID/)
      assert.equal(bad.type, 'invalid_request_error')
      assert.notEqual(typeof bad.code, 'number')

      const limited = await client.chat.completions.create({ model: 'openrouter/openai/gpt-4o-mini', messages: hi }).catch((e: unknown) => e)
      assert.ok(limited instanceof OpenAI.RateLimitError)
      assert.equal(limited.code, 'rate_limit_exceeded')
      assert.equal(limited.headers.get('retry-after'), '2')

      const broke = await client.chat.completions.create({ model: 'openrouter/openai/gpt-4o-mini', messages: hi }).catch((e: unknown) => e)
      assert.ok(broke instanceof OpenAI.APIError)
      assert.equal(broke.type, 'insufficient_quota')
      assert.match(broke.message, /Insufficient credits/)
      assert.equal(broke.headers.get('x-should-retry'), 'false')
      assert.notEqual(typeof broke.code, 'number')

      // 403 is OpenRouter's moderation refusing the caller's input, not the gateway's credential.
      const flagged = await client.chat.completions.create({ model: 'openrouter/openai/gpt-4o-mini', messages: hi }).catch((e: unknown) => e)
      assert.ok(flagged instanceof OpenAI.BadRequestError)
      assert.equal(flagged.code, 'content_policy_violation')
      assert.match(flagged.message, /flagged for "harassment".*\(harassment\)/)
    })
  })
})

describe('quirks follow what a provider is, never the id it was added under', () => {
  let t: TestGateway
  let xai: FakeOpenAI
  const cli = (...args: string[]) => gwCli(args, { dataDir: t.dataDir })
  const messages = (model: string) =>
    fetch(`${t.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': t.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model, max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] }),
    })

  before(async () => {
    t = await startTestGateway()
    xai = await startFakeOpenAI({ quirks: { xaiUsage: true }, models: ['grok-4.7'] })
    // OpenAI's API behind another id, as a second region or a proxy in front of OpenAI would be
    // added: on loopback its host says nothing, so it is declared. Beside it, the same fake under an
    // id and host that declare nothing; xAI's usage under other ids, declared and not.
    await cli('providers', 'set', 'openai-eu', '--kind', 'openai', '--base-url', t.fake.url, '--dialect', 'openai')
    await cli('providers', 'set', 'oai-plain', '--kind', 'openai', '--base-url', t.fake.url)
    await cli('providers', 'set', 'grok', '--kind', 'openai', '--base-url', xai.url, '--dialect', 'xai')
    await cli('providers', 'set', 'grok-plain', '--kind', 'openai', '--base-url', xai.url)
    const gw = t.running.gateway
    for (const id of ['openai-eu', 'oai-plain']) await gw.secrets.set(id, t.fake.apiKey)
    for (const id of ['grok', 'grok-plain']) await gw.secrets.set(id, xai.apiKey)
    await gw.configChanged()
  })
  after(async () => {
    await t?.close()
    await xai?.close()
  })

  it("an OpenAI added as openai-eu gets its token limit as max_completion_tokens (which OpenAI's reasoning models require); a server of no known dialect gets max_tokens", async () => {
    const eu = await messages('openai-eu/gpt-5.1')
    assert.equal(eu.status, 200, await eu.clone().text())
    const sent = t.fake.received.at(-1)!
    assert.equal(sent.path, '/v1/chat/completions')
    assert.equal(sent.body.max_completion_tokens, 100)
    assert.equal(sent.body.max_tokens, undefined)

    const plain = await messages('oai-plain/gpt-5.1')
    assert.equal(plain.status, 200, await plain.clone().text())
    assert.equal(t.fake.received.at(-1)!.body.max_tokens, 100)
    assert.equal(t.fake.received.at(-1)!.body.max_completion_tokens, undefined)
  })

  it("xAI's usage under another id: reasoning reported outside completion_tokens counts as output where the dialect is declared, and is not guessed where it is not", async () => {
    const usage = { prompt_tokens: 9_339, completion_tokens: 637, reasoning_tokens: 900 }
    const completionTokens = async (model: string) => {
      xai.script({ kind: 'reply', usage })
      const res = await t.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] })
      return (await t.record((res as any).gw.request_id)).usage?.completion_tokens
    }
    assert.equal(await completionTokens('grok/grok-4.7'), 637 + 900)
    assert.equal(await completionTokens('grok-plain/grok-4.7'), 637)
  })

  it('gw providers list shows each dialect, set or implied; a dialect is refused for another kind and outside the list, naming the flag', async () => {
    const listed = JSON.parse((await cli('providers', 'list', '--json')).stdout) as Array<{ id: string; dialect: string | null }>
    const dialects = Object.fromEntries(listed.map((p) => [p.id, p.dialect]))
    assert.deepEqual(
      Object.fromEntries(['openai-eu', 'oai-plain', 'grok', 'openai', 'gemini', 'xai', 'mistral', 'anthropic'].map((id) => [id, dialects[id]])),
      { 'openai-eu': 'openai', 'oai-plain': 'generic', grok: 'xai', openai: 'openai', gemini: null, xai: 'xai', mistral: 'generic', anthropic: null },
    )
    await assert.rejects(cli('providers', 'set', 'openai-eu', '--dialect', 'klingon'), (e: any) =>
      /--dialect must be one of openai, gemini, xai, generic/.test(e.stderr),
    )
    await assert.rejects(cli('providers', 'set', 'anthropic', '--dialect', 'openai'), (e: any) => /dialect applies to providers of kind openai/.test(e.stderr))
    // Changing another setting keeps the dialect.
    await cli('providers', 'set', 'openai-eu', '--kind', 'openai', '--base-url', t.fake.url, '--idle-timeout-ms', '60000')
    assert.equal((await t.running.gateway.store.providers.all()).find((p) => p.id === 'openai-eu')!.dialect, 'openai')
  })
})
