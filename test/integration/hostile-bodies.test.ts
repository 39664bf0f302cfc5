import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { json, startTestGateway, type TestGateway } from '../support/harness'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { MAX_JSON_DEPTH } from '../../src/gateway/boundedJson'
import { resolveModel } from '../../src/gateway/pipeline/resolveModel'
import { RequestContext } from '../../src/gateway/pipeline/requestContext'
import { ClientAbort } from '../../src/gateway/upstream/clientAbort'
import { route } from '../../src/gateway/routing/route'

/** `n` arrays inside each other, as JSON text. */
const nested = (n: number) => '['.repeat(n) + ']'.repeat(n)
/**
 * A valid chat body holding a value nested `n` levels where real ones nest (a tool's JSON schema,
 * here its `default`): the body itself is then n + 5 deep.
 */
const deepChat = (n: number) =>
  `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","default":${nested(n)}}}}]}`

describe('hostile bodies: nesting depth, non-finite and out-of-range numbers', () => {
  let t: TestGateway
  let anthropic: FakeAnthropic
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${t.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json', ...headers }, body })

  before(async () => {
    // Three failures cool a provider down, so a refused request that counted as one would show.
    t = await startTestGateway({}, { maxRetries: 0, cooldownAfterFailures: 3, cooldownMs: 60_000 })
    anthropic = await startFakeAnthropic()
    const gw = t.running.gateway
    ;(gw.options.env as NodeJS.ProcessEnv).ANTHROPIC_API_KEY = anthropic.apiKey
    await gw.store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    await gw.configChanged()
  })
  after(async () => {
    await t.close()
    await anthropic.close()
  })

  for (const levels of [1_000, 100_000]) {
    it(`refuses a body nested ${levels} levels on /v1 and /api with a 400 in the route's shape`, async () => {
      const before = t.fake.received.length
      const inputs: Array<[string, string, number]> = [
        ['/v1/chat/completions', deepChat(levels), levels + 5],
        ['/v1/embeddings', `{"model":"text-embedding-3-small","input":"x","extra":${nested(levels)}}`, levels + 1],
      ]
      for (const [path, body, depth] of inputs) {
        const res = await post(path, body)
        assert.equal(res.status, 400, path)
        assert.ok(res.headers.get('x-request-id'), `${path} answers with x-request-id`)
        const err = (await json(res)).error
        assert.equal(err.type, 'invalid_request_error', path)
        assert.equal(err.code, 'json_too_deep', path)
        assert.equal(err.message, `The request body is nested ${depth} levels deep; the limit is ${MAX_JSON_DEPTH}.`, path)
      }
      const res = await post('/api/presets.list', `{"x":${nested(levels)}}`)
      assert.equal(res.status, 400)
      assert.ok(res.headers.get('x-request-id'))
      assert.deepEqual(await json(res), {
        error: { status: 400, code: 'json_too_deep', message: `The request body is nested ${levels + 1} levels deep; the limit is ${MAX_JSON_DEPTH}.` },
      })
      assert.equal(t.fake.received.length, before, 'nothing reached the provider')
    })
  }

  it('takes a body nested exactly to the limit, and refuses one level more', async () => {
    const atLimit = await post('/v1/chat/completions', deepChat(MAX_JSON_DEPTH - 5))
    assert.equal(atLimit.status, 200, await atLimit.clone().text())
    assert.equal(t.fake.received.at(-1)!.body.tools[0].function.parameters.default.length, 1)
    const over = await post('/v1/chat/completions', deepChat(MAX_JSON_DEPTH - 4))
    assert.equal(over.status, 400)
    assert.match((await json(over)).error.message, new RegExp(`nested ${MAX_JSON_DEPTH + 1} levels deep`))
  })

  it("a caller's over-deep requests never count against the provider: no cool-down follows them", async () => {
    for (let i = 0; i < 4; i++) assert.equal((await post('/v1/chat/completions', deepChat(10_000))).status, 400)
    // Tool-call arguments are JSON inside a string, parsed only when translating for Anthropic.
    const args = `{"a":${nested(10_000)}}`
    const toolTurn = (id: string) =>
      JSON.stringify({
        model: 'anthropic/claude-sonnet-4-5',
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'f', arguments: args } }] },
          { role: 'tool', tool_call_id: id, content: 'ok' },
        ],
      })
    for (let i = 0; i < 4; i++) {
      const res = await post('/v1/chat/completions', toolTurn(`call_${i}`))
      assert.equal(res.status, 400)
      const err = (await json(res)).error
      assert.equal(err.param, 'messages[1].tool_calls[0].function.arguments')
      assert.match(err.message, new RegExp(`is nested 10001 levels deep; the limit is ${MAX_JSON_DEPTH}`))
    }
    const ok = await post('/v1/chat/completions', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}')
    assert.equal(ok.status, 200, await ok.clone().text())
    const okAnthropic = await post('/v1/chat/completions', '{"model":"anthropic/claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]}')
    assert.equal(okAnthropic.status, 200, await okAnthropic.clone().text())
  })

  it('a request the gateway cannot serialise is no provider failure: no attempt recorded, no cool-down', async () => {
    const gw = t.running.gateway
    const key = gw.keyIndex.authenticate(`Bearer ${t.key}`)
    const target = await resolveModel(gw, 'gpt-4o-mini')
    const before = t.fake.received.length
    for (let i = 0; i < 4; i++) {
      const ctx = new RequestContext(`unserialisable-${i}`, 'chat.completions', key)
      const unserialisable = { path: '/chat/completions', body: { model: 'gpt-4o-mini', seed: 1n } }
      await assert.rejects(
        route(gw, ctx, [target], () => unserialisable, new ClientAbort()),
        TypeError,
      )
      assert.deepEqual(ctx.attempts, [])
    }
    assert.equal(t.fake.received.length, before)
    assert.equal(gw.cooldown.cooling('openai'), null)
    const ok = await post('/v1/chat/completions', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}')
    assert.equal(ok.status, 200)
  })

  it('refuses a number JSON cannot carry (1e999 is Infinity once parsed) anywhere in a body, naming its path', async () => {
    const before = t.fake.received.length
    const cases: Array<[string, string, string]> = [
      [
        '/v1/chat/completions',
        '{"model":"gpt-4o-mini","messages":[{"role":"user","content":[{"type":"text","text":"a"},{},{"type":"x","x":1e999}]}]}',
        'messages[0].content[2].x',
      ],
      ['/v1/chat/completions', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"a"}],"temperature":-1e999}', 'temperature'],
      ['/v1/embeddings', '{"model":"text-embedding-3-small","input":[1,2,1e400]}', 'input[2]'],
    ]
    for (const [path, body, param] of cases) {
      const res = await post(path, body)
      assert.equal(res.status, 400, body)
      const err = (await json(res)).error
      assert.equal(err.param, param)
      assert.equal(err.code, 'invalid_number')
      assert.match(err.message, new RegExp(`^${param.replace(/[[\].]/g, '\\$&')} is a number too large for JSON \\(it reads as -?Infinity\\)`))
    }
    const api = await post('/api/presets.list', '{"limit":1e999}')
    assert.equal(api.status, 400)
    const err = (await json(api)).error
    assert.equal(err.code, 'invalid_number')
    assert.equal(err.status, 400)
    assert.match(err.message, /^limit is a number too large/)
    assert.equal(t.fake.received.length, before)
  })

  it('max_tokens: -1e999 on a prepaid key is a 400 naming max_tokens, not a 500', async () => {
    const { secret } = await t.running.gateway.store.keys.create('prepaid', { balanceUsd: 1 })
    for (const value of ['-1e999', '1e999', '-1', '1.5', '1e300']) {
      const res = await post('/v1/chat/completions', `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"a"}],"max_tokens":${value}}`, {
        authorization: `Bearer ${secret}`,
      })
      assert.equal(res.status, 400, value)
      assert.equal((await json(res)).error.param, 'max_tokens', value)
    }
  })

  it("validates the known numeric fields of chat and embeddings in range, in OpenAI's words", async () => {
    const before = t.fake.received.length
    const chat = (field: string, value: unknown) =>
      ['/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a' }], [field]: value }] as const
    const embed = (field: string, value: unknown) => ['/v1/embeddings', { model: 'text-embedding-3-small', input: 'a', [field]: value }] as const
    const cases: Array<[readonly [string, unknown], string, string, string]> = [
      [
        chat('max_tokens', 0),
        'max_tokens',
        'integer_below_min_value',
        "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0 instead.",
      ],
      [chat('max_tokens', '5'), 'max_tokens', 'invalid_type', "Invalid type for 'max_tokens': expected an integer, but got a string instead."],
      [chat('max_tokens', 2.5), 'max_tokens', 'invalid_type', "Invalid type for 'max_tokens': expected an integer, but got a decimal number instead."],
      [
        chat('max_tokens', 2 ** 60),
        'max_tokens',
        'integer_above_max_value',
        `Invalid 'max_tokens': integer above maximum value. Expected a value <= ${Number.MAX_SAFE_INTEGER}, but got ${2 ** 60} instead.`,
      ],
      [
        chat('max_completion_tokens', -3),
        'max_completion_tokens',
        'integer_below_min_value',
        "Invalid 'max_completion_tokens': integer below minimum value. Expected a value >= 1, but got -3 instead.",
      ],
      [
        chat('temperature', 2.5),
        'temperature',
        'decimal_above_max_value',
        "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 2.5 instead.",
      ],
      [
        chat('temperature', -0.1),
        'temperature',
        'decimal_below_min_value',
        "Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -0.1 instead.",
      ],
      [chat('temperature', true), 'temperature', 'invalid_type', "Invalid type for 'temperature': expected a number, but got a boolean instead."],
      [chat('top_p', 1.01), 'top_p', 'decimal_above_max_value', "Invalid 'top_p': decimal above maximum value. Expected a value <= 1, but got 1.01 instead."],
      [chat('n', 0), 'n', 'integer_below_min_value', "Invalid 'n': integer below minimum value. Expected a value >= 1, but got 0 instead."],
      [chat('n', 129), 'n', 'integer_above_max_value', "Invalid 'n': integer above maximum value. Expected a value <= 128, but got 129 instead."],
      [
        chat('presence_penalty', 2.1),
        'presence_penalty',
        'decimal_above_max_value',
        "Invalid 'presence_penalty': decimal above maximum value. Expected a value <= 2, but got 2.1 instead.",
      ],
      [
        chat('frequency_penalty', -2.1),
        'frequency_penalty',
        'decimal_below_min_value',
        "Invalid 'frequency_penalty': decimal below minimum value. Expected a value >= -2, but got -2.1 instead.",
      ],
      [chat('seed', 0.5), 'seed', 'invalid_type', "Invalid type for 'seed': expected an integer, but got a decimal number instead."],
      [
        chat('top_logprobs', 21),
        'top_logprobs',
        'integer_above_max_value',
        "Invalid 'top_logprobs': integer above maximum value. Expected a value <= 20, but got 21 instead.",
      ],
      [chat('logprobs', 1), 'logprobs', 'invalid_type', "Invalid type for 'logprobs': expected a boolean, but got an integer instead."],
      [
        embed('dimensions', 0),
        'dimensions',
        'integer_below_min_value',
        "Invalid 'dimensions': integer below minimum value. Expected a value >= 1, but got 0 instead.",
      ],
      [embed('dimensions', 1.5), 'dimensions', 'invalid_type', "Invalid type for 'dimensions': expected an integer, but got a decimal number instead."],
    ]
    for (const [[path, body], param, code, message] of cases) {
      const res = await post(path, JSON.stringify(body))
      assert.equal(res.status, 400, message)
      assert.deepEqual((await json(res)).error, { type: 'invalid_request_error', param, code, message })
    }
    assert.equal(t.fake.received.length, before, 'nothing reached the provider')
    const fine = await post(
      '/v1/chat/completions',
      JSON.stringify({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'a' }],
        max_tokens: 1,
        temperature: 0,
        top_p: 1,
        n: 1,
        presence_penalty: -2,
        frequency_penalty: 2,
        seed: -7,
        logprobs: true,
        top_logprobs: 0,
        max_completion_tokens: null,
      }),
    )
    assert.equal(fine.status, 200, await fine.clone().text())
  })
})
