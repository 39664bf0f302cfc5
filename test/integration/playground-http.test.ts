import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import { promisify } from 'node:util'
import type { PlaygroundEvent } from '../../src/contract/playground'
import { curlSnippet, jsSnippet, type SnippetInput } from '../../src/renderer/src/lib/snippets'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { startFakeGemini, type FakeGemini } from '../support/fake-gemini'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { waitForRecord } from '../support/harness'
import { tempDir } from '../support/tempDir'

type Done = Extract<PlaygroundEvent, { type: 'done' }>
type Failed = Extract<PlaygroundEvent, { type: 'error' }>
type Sent = Extract<PlaygroundEvent, { type: 'request' }>

const run = promisify(execFile)

/** A conversation of a few turns, with a system message. */
const CONVERSATION = [
  { role: 'system', content: 'Answer in French.' },
  { role: 'user', content: 'Hello' },
  { role: 'assistant', content: 'Bonjour.' },
  { role: 'user', content: 'Again' },
]

/**
 * The Playground as the browser dashboard drives it: `POST /api/playground.chat` with a session
 * cookie, events read off the SSE body, on the Messages wire to a fake Anthropic provider, on the
 * Responses wire to a fake OpenAI that serves it, on Google's generateContent wire to a fake Google
 * server natively and translated to the fake OpenAI's chat completions (and the chat wire for
 * Stop, against a fake OpenAI stream that never ends by itself).
 */
describe('Playground over the admin HTTP transport, on the Messages, Responses and Gemini wires', () => {
  let anthropic: FakeAnthropic
  let openai: FakeOpenAI
  let google: FakeGemini
  let gateway: RunningGateway
  let dataDir: string
  let cookie: string
  let keyId: string
  let secret: string

  const post = (input: Record<string, unknown>, signal?: AbortSignal) =>
    fetch(`${gateway.url}/api/playground.chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ key_id: keyId, ...input }),
      signal,
    })
  const events = async (res: Response): Promise<PlaygroundEvent[]> => {
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type')!, /text\/event-stream/)
    return (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((block) => JSON.parse(block.slice('data: '.length)) as PlaygroundEvent)
  }
  const messages = async (input: Record<string, unknown>) => events(await post({ wire: 'messages', model: 'anthropic/claude-sonnet-4-5', ...input }))
  const text = (evs: PlaygroundEvent[]) =>
    evs
      .filter((e) => e.type === 'delta')
      .map((e) => (e as { content: string }).content)
      .join('')

  before(async () => {
    anthropic = await startFakeAnthropic()
    openai = await startFakeOpenAI()
    google = await startFakeGemini()
    dataDir = tempDir()
    gateway = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' },
      { env: { ANTHROPIC_API_KEY: anthropic.apiKey, OPENAI_API_KEY: openai.apiKey, GEMINI_API_KEY: google.apiKey }, routing: { maxRetries: 0 } },
    )
    await gateway.gateway.store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    await gateway.gateway.store.providers.upsert('openai', 'openai', openai.url)
    await gateway.gateway.store.providers.upsert('gemini', 'gemini', `${google.url}/v1beta`)
    await gateway.gateway.configChanged()
    const setup = await fetch(`${gateway.url}/api/auth.setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'owner', password: 'correct horse battery' }),
    })
    assert.equal(setup.status, 200)
    cookie = setup.headers.get('set-cookie')!.split(';')[0]
    const key = await fetch(`${gateway.url}/api/keys.create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ name: 'playground' }),
    })
    ;({
      key: { id: keyId },
      secret,
    } = (await key.json()) as { key: { id: string }; secret: string })
  })
  after(async () => {
    await gateway.close()
    await anthropic.close()
    await openai.close()
    await google.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('sends a Messages body (system apart, max_tokens by default), streams the text as deltas, and ends with the stop reason, routing and cost', async () => {
    anthropic.script({ kind: 'reply', text: 'Bonjour, from Claude.', usage: { input_tokens: 20, output_tokens: 5 }, pings: true })
    const evs = await messages({
      messages: [
        { role: 'system', content: 'Answer in French.' },
        { role: 'user', content: 'Hello' },
      ],
      temperature: 0.3,
    })

    const sent = evs[0] as Sent
    assert.equal(sent.type, 'request')
    assert.equal(sent.wire, 'messages')
    const body = {
      model: 'anthropic/claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'Answer in French.',
      messages: [{ role: 'user', content: 'Hello' }],
      temperature: 0.3,
      stream: true,
    }
    assert.deepEqual(sent.body, body)
    assert.deepEqual(
      anthropic.received.at(-1)!.body,
      { ...body, model: 'claude-sonnet-4-5' },
      'the provider got the body the Playground showed, but for the model',
    )

    assert.ok(evs.filter((e) => e.type === 'delta').length >= 2, 'the text arrives in pieces')
    assert.equal(text(evs), 'Bonjour, from Claude.')
    const done = evs.at(-1) as Done
    assert.equal(done.type, 'done')
    assert.equal(done.request_id, sent.request_id)
    assert.equal(done.finish_reason, 'end_turn')
    assert.equal(done.gw.request_id, done.request_id)
    assert.equal((done.gw.routing as { provider: string }).provider, 'anthropic')
    // 20 × $3/M + 5 × $15/M
    const cost = done.gw.cost as { final_usd: number; prompt_tokens: number; completion_tokens: number }
    assert.ok(Math.abs(cost.final_usd - 0.000135) < 1e-12, String(cost.final_usd))
    assert.deepEqual([cost.prompt_tokens, cost.completion_tokens], [20, 5])

    const record = await waitForRecord(gateway.gateway, done.request_id)
    assert.deepEqual(
      [record.endpoint, record.source, record.outcome, record.status, record.stream, record.provider],
      ['messages', 'playground', 'ok', 200, true, 'anthropic'],
    )
    assert.ok(Math.abs(record.cost!.final_usd! - 0.000135) < 1e-12)
  })

  it('a max_tokens given wins over the default, and the stop reason says when it cut the answer', async () => {
    anthropic.script({ kind: 'reply', text: 'Cut sh', stopReason: 'max_tokens' })
    const evs = await messages({ messages: [{ role: 'user', content: 'Tell me everything' }], max_tokens: 3 })
    assert.equal((evs[0] as Sent).body.max_tokens, 3)
    assert.equal(anthropic.received.at(-1)!.body.max_tokens, 3)
    assert.equal((evs.at(-1) as Done).finish_reason, 'max_tokens')
  })

  it('a model on a chat-completions provider is reached through translation: chat body to openai, Messages answer, record on the Messages endpoint', async () => {
    const before = anthropic.received.length
    const sentBefore = openai.received.length
    const evs = await messages({
      model: 'openai/gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
    })
    assert.equal(evs[0].type, 'request')
    assert.ok(text(evs).length > 0, 'the translated answer streams as text')
    const done = evs.at(-1) as Done
    assert.equal(done.type, 'done')
    assert.equal(done.finish_reason, 'end_turn', "the Messages wire's own stop reason")
    assert.equal(anthropic.received.length, before, 'nothing reached the Anthropic provider')
    const sent = openai.received.slice(sentBefore).find((r) => r.path.endsWith('/chat/completions'))!
    assert.deepEqual((sent.body as { messages: unknown[] }).messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
    ])
    const record = await waitForRecord(gateway.gateway, done.request_id)
    assert.deepEqual([record.endpoint, record.source, record.outcome, record.provider], ['messages', 'playground', 'ok', 'openai'])
  })

  it('a temperature outside the Messages API’s 0–1 is refused naming the field', async () => {
    const evs = await messages({ messages: [{ role: 'user', content: 'Hello' }], temperature: 1.5 })
    const error = evs.at(-1) as Failed
    assert.equal(error.type, 'error')
    assert.equal(error.status, 400)
    assert.match(error.error.message, /temperature/)
  })

  it('a provider error in the middle of the stream arrives after the text so far, as one error event, and is recorded', async () => {
    anthropic.script({ kind: 'error-mid-stream', afterBlocks: 1, errorType: 'overloaded_error', message: 'Overloaded' })
    const evs = await messages({ messages: [{ role: 'user', content: 'Hello' }] })
    assert.ok(text(evs).length > 0, 'the text before the failure is shown')
    assert.equal(evs.filter((e) => e.type === 'error').length, 1)
    assert.ok(!evs.some((e) => e.type === 'done'))
    const error = evs.at(-1) as Failed
    assert.equal(error.type, 'error')
    assert.match(error.error.message, /Overloaded/)
    const record = await waitForRecord(gateway.gateway, error.request_id)
    assert.deepEqual([record.endpoint, record.source, record.outcome], ['messages', 'playground', 'error'])
  })

  it('sends a Responses body (instructions, input items, max_output_tokens, store false), streams the output text as deltas, ends with the status and the cost', async () => {
    // gpt-5.1: $1.25 input, $0.125 cached input, $10 output per 1M tokens.
    openai.scriptResponses({
      kind: 'reply',
      content: 'Bonjour, from the Responses API.',
      usage: { input_tokens: 1000, cached_tokens: 400, output_tokens: 200 },
    })
    const evs = await events(
      await post({
        wire: 'responses',
        model: 'openai/gpt-5.1',
        messages: CONVERSATION,
        temperature: 0.3,
        max_tokens: 300,
      }),
    )
    const sent = evs[0] as Sent
    assert.equal(sent.wire, 'responses')
    const body = {
      model: 'openai/gpt-5.1',
      instructions: 'Answer in French.',
      input: [
        { type: 'message', role: 'user', content: 'Hello' },
        { type: 'message', role: 'assistant', content: 'Bonjour.' },
        { type: 'message', role: 'user', content: 'Again' },
      ],
      temperature: 0.3,
      max_output_tokens: 300,
      store: false,
      stream: true,
    }
    assert.deepEqual(sent.body, body)
    const received = openai.received.at(-1)!
    assert.equal(received.path, '/v1/responses')
    assert.deepEqual(received.body, { ...body, model: 'gpt-5.1' }, 'the provider got the body the Playground showed, but for the model')

    assert.ok(evs.filter((e) => e.type === 'delta').length >= 2, 'the text arrives in pieces')
    assert.equal(text(evs), 'Bonjour, from the Responses API.')
    const done = evs.at(-1) as Done
    assert.equal(done.type, 'done')
    assert.equal(done.request_id, sent.request_id)
    assert.equal(done.finish_reason, 'completed')
    assert.equal((done.gw.routing as { provider: string }).provider, 'openai')
    // 600 × 1.25 + 400 × 0.125 + 200 × 10, per million.
    const cost = done.gw.cost as { final_usd: number; cached_tokens: number }
    assert.ok(Math.abs(cost.final_usd - 0.0028) < 1e-12, String(cost.final_usd))
    assert.equal(cost.cached_tokens, 400)

    const record = await waitForRecord(gateway.gateway, done.request_id)
    assert.deepEqual(
      [record.endpoint, record.source, record.outcome, record.status, record.stream, record.provider],
      ['responses', 'playground', 'ok', 200, true, 'openai'],
    )
    assert.equal(record.upstream_id ?? null, null, 'store: false: no provider-side answer to point to')
    assert.ok(Math.abs(record.cost!.final_usd! - 0.0028) < 1e-12)
  })

  it('on Responses, an answer cut by max_output_tokens ends with the status and its reason', async () => {
    openai.scriptResponses({ kind: 'reply', content: 'Cut sh', status: 'incomplete' })
    const evs = await events(
      await post({ wire: 'responses', model: 'openai/gpt-5.1', messages: [{ role: 'user', content: 'Tell me everything' }], max_tokens: 16 }),
    )
    assert.equal(text(evs), 'Cut sh')
    const done = evs.at(-1) as Done
    assert.equal(done.type, 'done')
    assert.equal(done.finish_reason, 'incomplete (max_output_tokens)')
  })

  for (const mode of ['error-event', 'response-failed'] as const) {
    it(`on Responses, a provider failing mid-stream (${mode}) shows the text so far, then one error event naming it, recorded as an error`, async () => {
      openai.scriptResponses({ kind: 'fail-mid-stream', afterDeltas: 2, mode })
      const evs = await events(await post({ wire: 'responses', model: 'openai/gpt-5.1', messages: [{ role: 'user', content: 'Hello' }] }))
      assert.ok(text(evs).length > 0, 'the text before the failure is shown')
      assert.ok(!evs.some((e) => e.type === 'done'))
      assert.equal(evs.filter((e) => e.type === 'error').length, 1)
      const error = evs.at(-1) as Failed
      assert.equal(error.type, 'error')
      assert.match(error.error.message, /^openai failed mid-stream/)
      const record = await waitForRecord(gateway.gateway, error.request_id!)
      assert.deepEqual([record.endpoint, record.source, record.outcome], ['responses', 'playground', 'error'])
    })
  }

  it('on Responses, a provider that serves chat completions only gets the request translated: the answer shown, a failure mid-stream one error event, both recorded on the responses endpoint', async () => {
    await gateway.gateway.store.providers.upsert('chatbox', 'openai', openai.url)
    await gateway.gateway.secrets.set('chatbox', openai.apiKey)
    await gateway.gateway.configChanged()
    openai.script({ kind: 'reply', content: 'Translated, then shown.' })
    const evs = await events(await post({ wire: 'responses', model: 'chatbox/gpt-5.1', messages: [{ role: 'user', content: 'Hello' }] }))
    assert.equal(openai.received.at(-1)!.path, '/v1/chat/completions')
    assert.equal(text(evs), 'Translated, then shown.')
    const done = evs.at(-1) as Done
    assert.equal(done.type, 'done')
    assert.equal(done.finish_reason, 'completed')
    const record = await waitForRecord(gateway.gateway, done.request_id)
    assert.deepEqual([record.endpoint, record.source, record.status, record.provider], ['responses', 'playground', 200, 'chatbox'])

    openai.script({ kind: 'fail-mid-stream', afterChunks: 3, mode: 'error-event' })
    const failed = await events(await post({ wire: 'responses', model: 'chatbox/gpt-5.1', messages: [{ role: 'user', content: 'Hello' }] }))
    assert.ok(text(failed).length > 0, 'the text before the failure is shown')
    assert.ok(!failed.some((e) => e.type === 'done'))
    assert.equal(failed.filter((e) => e.type === 'error').length, 1)
    const error = failed.at(-1) as Failed
    assert.equal(error.type, 'error')
    const broken = await waitForRecord(gateway.gateway, error.request_id!)
    assert.deepEqual([broken.endpoint, broken.outcome], ['responses', 'error'])
  })

  it('sends a generateContent body (contents with the model role, systemInstruction, generationConfig) to the path naming the model, streams the text as deltas, ends with the finishReason and the cost', async () => {
    // gpt-4o-mini: 1000 × $0.15/M + 200 × $0.6/M
    openai.script({ kind: 'reply', content: 'Bonjour, from Gemini’s wire.', usage: { prompt_tokens: 1000, completion_tokens: 200 } })
    const evs = await events(
      await post({
        wire: 'gemini',
        model: 'openai/gpt-4o-mini',
        messages: CONVERSATION,
        temperature: 0.3,
        top_p: 0.9,
        max_tokens: 300,
      }),
    )
    const sent = evs[0] as Sent
    assert.equal(sent.wire, 'gemini')
    assert.equal(sent.path, '/v1beta/models/openai/gpt-4o-mini:streamGenerateContent?alt=sse', 'the model is in the path, as Gemini CLI sends it')
    assert.deepEqual(sent.body, {
      contents: [
        { role: 'user', parts: [{ text: 'Hello' }] },
        { role: 'model', parts: [{ text: 'Bonjour.' }] },
        { role: 'user', parts: [{ text: 'Again' }] },
      ],
      systemInstruction: { parts: [{ text: 'Answer in French.' }] },
      generationConfig: { temperature: 0.3, topP: 0.9, maxOutputTokens: 300 },
    })
    const received = openai.received.at(-1)!
    assert.equal(received.path, '/v1/chat/completions', 'translated for a provider that does not speak Google’s API')
    assert.deepEqual(received.body.messages, CONVERSATION)
    assert.deepEqual([received.body.model, received.body.temperature, received.body.top_p, received.body.stream], ['gpt-4o-mini', 0.3, 0.9, true])

    assert.equal(text(evs), 'Bonjour, from Gemini’s wire.')
    const done = evs.at(-1) as Done
    assert.equal(done.type, 'done')
    assert.equal(done.request_id, sent.request_id)
    assert.equal(done.finish_reason, 'STOP', 'Google’s own finish reason')
    assert.equal(done.gw.request_id, done.request_id)
    const cost = done.gw.cost as { final_usd: number; prompt_tokens: number; completion_tokens: number }
    assert.ok(Math.abs(cost.final_usd - 0.00027) < 1e-12, String(cost.final_usd))
    assert.deepEqual([cost.prompt_tokens, cost.completion_tokens], [1000, 200])

    const record = await waitForRecord(gateway.gateway, done.request_id)
    assert.deepEqual(
      [record.endpoint, record.source, record.outcome, record.status, record.stream, record.provider, record.model],
      ['generateContent', 'playground', 'ok', 200, true, 'openai', 'openai/gpt-4o-mini'],
    )
  })

  it('on Gemini, a provider of kind gemini gets the body as shown and answers as Google writes: its thoughts not shown, its usage priced', async () => {
    // gemini-2.5-flash: 1000 × $0.3/M + (200 + 100 thought) × $2.5/M
    google.script({
      kind: 'reply',
      thought: 'A greeting: answer in French.',
      text: 'Bonjour, from Google.',
      usage: { promptTokenCount: 1000, candidatesTokenCount: 200, thoughtsTokenCount: 100 },
    })
    const evs = await events(await post({ wire: 'gemini', model: 'gemini/gemini-2.5-flash', messages: CONVERSATION, temperature: 0.3 }))
    const sent = evs[0] as Sent
    assert.equal(sent.path, '/v1beta/models/gemini/gemini-2.5-flash:streamGenerateContent?alt=sse')
    const received = google.received.at(-1)!
    assert.equal(received.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')
    assert.deepEqual(received.body, sent.body, 'the provider got the body the Playground showed')

    assert.equal(text(evs), 'Bonjour, from Google.', 'the thought summary is not the answer')
    const done = evs.at(-1) as Done
    assert.equal(done.type, 'done')
    assert.equal(done.finish_reason, 'STOP')
    assert.equal((done.gw.routing as { provider: string }).provider, 'gemini')
    const cost = done.gw.cost as { final_usd: number }
    assert.ok(Math.abs(cost.final_usd - 0.00105) < 1e-12, String(cost.final_usd))
    const record = await waitForRecord(gateway.gateway, done.request_id)
    assert.deepEqual([record.endpoint, record.source, record.outcome, record.provider], ['generateContent', 'playground', 'ok', 'gemini'])

    // Without a thought, Google's text comes in several chunks, each shown as it arrives.
    google.script({ kind: 'reply', text: 'Bonjour, from Google, in several pieces.' })
    const pieces = await events(await post({ wire: 'gemini', model: 'gemini/gemini-2.5-flash', messages: [{ role: 'user', content: 'Hello' }] }))
    assert.ok(pieces.filter((e) => e.type === 'delta').length >= 2, 'the text arrives in pieces')
    assert.equal(text(pieces), 'Bonjour, from Google, in several pieces.')
    assert.equal((pieces.at(-1) as Done).finish_reason, 'STOP')
  })

  it('on Gemini, an answer cut by the token limit ends with MAX_TOKENS; a provider failing mid-stream shows the text so far, then one error event', async () => {
    openai.script({ kind: 'reply', content: 'Cut sh', finishReason: 'length' })
    const cut = await events(
      await post({ wire: 'gemini', model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Tell me everything' }], max_tokens: 2 }),
    )
    assert.equal(text(cut), 'Cut sh')
    assert.equal((cut.at(-1) as Done).finish_reason, 'MAX_TOKENS')

    openai.script({ kind: 'fail-mid-stream', afterChunks: 3, mode: 'error-event' })
    const failed = await events(await post({ wire: 'gemini', model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] }))
    assert.ok(text(failed).length > 0, 'the text before the failure is shown')
    assert.ok(!failed.some((e) => e.type === 'done'))
    assert.equal(failed.filter((e) => e.type === 'error').length, 1)
    const error = failed.at(-1) as Failed
    assert.equal(error.type, 'error')
    const record = await waitForRecord(gateway.gateway, error.request_id!)
    assert.deepEqual([record.endpoint, record.source, record.outcome], ['generateContent', 'playground', 'error'])
  })

  it('the Gemini wire’s code runs as written: curl and @google/genai stream the answer from the gateway', async () => {
    const input: SnippetInput = {
      baseUrl: `${gateway.url}/v1`,
      wire: 'gemini',
      model: 'openai/gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
      params: { temperature: 0.2, max_tokens: 50 },
    }
    const env = { ...process.env, GW_KEY: secret }

    openai.script({ kind: 'reply', content: 'Hi from curl.' })
    // failglob: an unquoted `?` in the URL fails, as in zsh, macOS's shell.
    const curl = await run('bash', ['-O', 'failglob', '-c', curlSnippet(input)], { env })
    const chunks = curl.stdout
      .split('\n\n')
      .filter(Boolean)
      .map((block) => JSON.parse(block.slice('data: '.length)) as { candidates: Array<{ content: { parts: Array<{ text?: string }> } }>; gw?: unknown })
    assert.equal(chunks.flatMap((c) => c.candidates[0].content.parts.map((p) => p.text ?? '')).join(''), 'Hi from curl.')
    assert.ok(chunks.at(-1)!.gw, 'the gateway’s routing and cost on the last chunk')
    assert.deepEqual(openai.received.at(-1)!.body.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
    ])

    // Run from the repository, where @google/genai is installed.
    openai.script({ kind: 'reply', content: 'Hi from the SDK.', usage: { prompt_tokens: 7, completion_tokens: 4 } })
    const js = await run(process.execPath, ['--input-type=module', '-e', jsSnippet(input)], { env })
    assert.equal(js.stdout, 'Hi from the SDK.\ntokens: 11\n')
    const sent = openai.received.at(-1)!.body
    assert.deepEqual([sent.messages[0], sent.temperature], [{ role: 'system', content: 'Be brief.' }, 0.2])
  })

  it('Stop (the dashboard closing the connection) ends the provider call and the record says aborted', async () => {
    openai.script({ kind: 'endless-stream', intervalMs: 10 })
    const closed = openai.waitForClientClose(3000)
    const stop = new AbortController()
    const res = await post({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Go on forever' }] }, stop.signal)
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
    let seen = ''
    while ((seen.match(/"type":"delta"/g) ?? []).length < 3) seen += (await reader.read()).value ?? ''
    stop.abort()
    await closed
    const requestId = /"type":"request","request_id":"([^"]+)"/.exec(seen)![1]
    const record = await waitForRecord(gateway.gateway, requestId)
    assert.deepEqual([record.endpoint, record.source, record.outcome], ['chat.completions', 'playground', 'aborted'])
  })
})
