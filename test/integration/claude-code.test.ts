/**
 * The real Claude Code CLI (`claude -p`, print mode) pointed at the gateway, as a user sets it up:
 * ANTHROPIC_BASE_URL (no /v1) and ANTHROPIC_AUTH_TOKEN holding a gateway key, with fake providers
 * behind the gateway.
 *
 * What Claude Code 2.1.330 sends in print mode, seen through this gateway: for `claude -p PROMPT`
 * one streamed `POST /v1/messages?beta=true` to the model given with `--model`, as written
 * (`haiku` is `claude-haiku-5-5`); no side call to a small model, no count_tokens, no model list.
 * `anthropic-version: 2023-06-01`; `anthropic-beta: claude-code-20250219,
 * interleaved-thinking-2025-05-14, context-management-2025-06-27, thinking-token-count-2026-05-13,
 * advanced-tool-use-2025-11-20`. Body: `max_tokens` 32000, `thinking {type: "enabled",
 * budget_tokens: 31999, display: "omitted"}`, `context_management` (clear_thinking),
 * `metadata.user_id` (a JSON string), three `system` blocks (the last two with `cache_control`,
 * about 28 KB), one user turn of nine text blocks (system reminders, then the prompt with
 * `cache_control`) and a dozen tools, one with `defer_loading`. For a model it knows to be newer
 * (`claude-haiku-5-5`) it differs: adaptive thinking, `output_config.effort`, `max_tokens`
 * 128000, the betas `per-turn-control-2026-07-01`, `mid-conversation-tool-changes-2026-07-01` and
 * `effort-2025-11-24`, and the environment in a `role: "system"` message after the user's; refused
 * with a 400, it asks once more without that message and beta. A model name it does not know
 * (`openai/gpt-4o-mini`) gets the newer shape too, and a warning on stderr that it assumes a
 * 1M-token context window unless CLAUDE_CODE_MAX_CONTEXT_TOKENS is set. With the non-essential traffic
 * switches below off there is nothing else; without them it also sends `HEAD /api/hello` to the
 * base URL first (the gateway's 404 does not bother it) and tries its telemetry hosts.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { agentCli, runAsync } from '../support/agentCli'
import { assertUsd, logLines, newRecords, recordCount } from '../support/agentRecords'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI, thoughtSignatureOf, type FakeOpenAI } from '../support/fake-openai'
import { tempDir } from '../support/tempDir'

const CLAUDE_CODE = { pkg: '@anthropic-ai/claude-code', version: '2.1.330', bin: 'claude' }
const cli = await agentCli(CLAUDE_CODE.pkg, CLAUDE_CODE.version, CLAUDE_CODE.bin)
const RUN_TIMEOUT_MS = 120_000

describe(`Claude Code ${CLAUDE_CODE.version} (the real CLI, print mode) through the gateway`, { skip: cli.skip ? `skipped: ${cli.skip}` : false }, () => {
  let anthropic: FakeAnthropic
  let openai: FakeOpenAI
  let gemini: FakeOpenAI
  let gateway: RunningGateway
  let dataDir: string
  let secret: string

  /**
   * `claude -p PROMPT ...args` in a fresh home (or `home`, kept for a later run of the same user
   * in the same project: to resume its session, or to send the same request again), talking to
   * nothing but the gateway; its exit code checked unless `expectFailure`.
   */
  async function claude(prompt: string, args: string[], opts: { key?: string; expectFailure?: boolean; env?: Record<string, string>; home?: string } = {}) {
    const home = opts.home ?? tempDir('gw-claude-home-')
    try {
      const run = await runAsync(cli.bin!, ['-p', prompt, ...args], {
        cwd: home,
        timeoutMs: RUN_TIMEOUT_MS,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          CLAUDE_CONFIG_DIR: `${home}/.claude`,
          // Its scratch files (${TMPDIR}/claude-<uid>) go with the home.
          TMPDIR: home,
          ANTHROPIC_BASE_URL: gateway.url,
          ANTHROPIC_AUTH_TOKEN: opts.key ?? secret,
          // No telemetry, error reports, update checks or other calls to Anthropic's hosts.
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_ERROR_REPORTING: '1',
          DISABLE_AUTOUPDATER: '1',
          ...opts.env,
        },
      })
      const said = `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`
      assert.ok(!run.timedOut, `claude -p did not finish within ${RUN_TIMEOUT_MS / 1000} s\n${said}`)
      if (opts.expectFailure) assert.notEqual(run.code, 0, `claude -p succeeded\n${said}`)
      else assert.equal(run.code, 0, `claude -p failed\n${said}`)
      return run
    } finally {
      if (!opts.home) fs.rmSync(home, { recursive: true, force: true })
    }
  }

  before(async () => {
    anthropic = await startFakeAnthropic()
    openai = await startFakeOpenAI()
    gemini = await startFakeOpenAI({
      quirks: { thoughtSignatures: true, strictToolSchemas: true, toolCallsWithoutIndex: true, stopWithToolCalls: true, errorsAsArray: true },
      models: ['gemini-3-pro-preview'],
    })
    dataDir = tempDir()
    gateway = await startGateway(
      // Logged at info to a file, as a server runs it: the log shows requests that get no record.
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'info', logFile: path.join(dataDir, 'gw.log') },
      // One attempt: Claude Code retries on its own, and a retried request would hide a refusal.
      { env: { ANTHROPIC_API_KEY: anthropic.apiKey, OPENAI_API_KEY: openai.apiKey, GEMINI_API_KEY: gemini.apiKey }, routing: { maxRetries: 0 } },
    )
    const gw = gateway.gateway
    await gw.store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    await gw.store.providers.upsert('openai', 'openai', openai.url)
    // Google's OpenAI layer as the fake serves it (at /v1, not under Google's version root): declared.
    await gw.store.providers.upsert('gemini', 'openai', gemini.url, {}, undefined, 'gemini')
    secret = (await gw.store.keys.create('claude-code')).secret
    await gw.configChanged()
  })

  after(async () => {
    await gateway?.close()
    await anthropic?.close()
    await openai?.close()
    await gemini?.close()
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('natively to an anthropic provider: the answer printed, the body passed through, the record priced with cache reads and both cache writes', async () => {
    const text = 'Hello from the fake Anthropic, through the gateway.'
    const usage = {
      input_tokens: 1_000,
      output_tokens: 50,
      cache_read_input_tokens: 20_000,
      cache_creation_input_tokens: 3_000,
      cache_creation_1h_input_tokens: 1_000,
    }
    anthropic.script({ kind: 'reply', text, usage })
    const seen = anthropic.received.length
    const count = await recordCount(gateway.gateway)

    const run = await claude('Say hello', ['--model', 'anthropic/claude-sonnet-4-5'])
    assert.equal(run.stdout.trim(), text)

    const sent = anthropic.received.slice(seen)
    assert.deepEqual(
      sent.map((r) => `${r.method} ${r.path}`),
      ['POST /v1/messages'],
      'one request reached the provider',
    )
    const [request] = sent
    assert.equal(request.body.model, 'claude-sonnet-4-5')
    assert.equal(request.body.stream, true)
    // Claude Code's own fields arrived untouched, with the beta header that allows them.
    assert.match(String(request.headers['anthropic-beta']), /\bclaude-code-20250219\b.*\bcontext-management-2025-06-27\b/)
    assert.ok(request.body.context_management, 'context_management passed through')
    assert.equal(request.body.thinking?.type, 'enabled')
    assert.equal(request.body.system.length, 3)
    assert.ok(
      request.body.system.some((b: any) => b.cache_control?.type === 'ephemeral'),
      'system blocks keep their cache_control',
    )

    const records = await newRecords(gateway.gateway, count)
    assert.equal(records.length, 1)
    const [record] = records
    assert.equal(record.endpoint, 'messages')
    assert.equal(record.status, 200)
    assert.equal(record.outcome, 'ok')
    assert.equal(record.stream, true)
    assert.equal(record.model, 'anthropic/claude-sonnet-4-5')
    assert.equal(record.provider, 'anthropic')
    assert.equal(record.upstream_model, 'claude-sonnet-4-5')
    assert.equal(record.cost?.prompt_tokens, 24_000)
    assert.equal(record.cost?.cached_tokens, 20_000)
    assert.equal(record.cost?.cache_write_tokens, 3_000)
    assert.equal(record.cost?.estimated, false)
    // The tool and its own session, recognised from what Claude Code sends (its session header, the same id as in metadata.user_id).
    assert.equal(record.source_tool, `claude-code ${CLAUDE_CODE.version}`)
    assert.match(record.attribution.session_id ?? '', /^[0-9a-f-]{36}$/)
    assert.equal(record.attribution.session_derived, true)
    assert.equal(JSON.parse(request.body.metadata.user_id).session_id, record.attribution.session_id)
    // claude-sonnet-4-5 per million: $3 input, $0.30 cache read, $3.75 5-minute write, $6 1-hour write, $15 output.
    // 1,000 × 3 + 20,000 × 0.30 + 2,000 × 3.75 + 1,000 × 6 + 50 × 15 = 3,000 + 6,000 + 7,500 + 6,000 + 750 = $0.02325 per million → 0.02325 USD
    assertUsd(record.cost?.final_usd, 0.02325, 'final cost')
  })

  it('through the response cache (X-Gw-Cache in ANTHROPIC_CUSTOM_HEADERS): the same prompt again in the same project is printed from the cache, recorded as a hit at $0', async () => {
    const text = 'Hello once, from the cache the second time.'
    anthropic.script({ kind: 'reply', text, usage: { input_tokens: 3_000, output_tokens: 40 } })
    const seen = anthropic.received.length
    const count = await recordCount(gateway.gateway)
    const home = tempDir('gw-claude-home-')
    try {
      const env = { ANTHROPIC_CUSTOM_HEADERS: 'X-Gw-Cache: 1h' }
      const first = await claude('Say hello once', ['--model', 'anthropic/claude-sonnet-4-5'], { env, home })
      const second = await claude('Say hello once', ['--model', 'anthropic/claude-sonnet-4-5'], { env, home })
      assert.equal(first.stdout.trim(), text)
      assert.equal(second.stdout.trim(), text)
    } finally {
      fs.rmSync(home, { recursive: true, force: true })
    }
    assert.equal(anthropic.received.length, seen + 1, 'the second run reached no provider')
    const [miss, hit, ...more] = await newRecords(gateway.gateway, count)
    assert.equal(more.length, 0)
    assert.deepEqual(miss.response_cache, { hit: false })
    assert.ok(miss.cost?.final_usd && miss.cost.final_usd > 0)
    assert.deepEqual(hit.response_cache, { hit: true, request_id: miss.id, saved_usd: miss.cost?.final_usd })
    assert.equal(hit.cost?.final_usd, 0)
    assert.equal(hit.stream, true)
    // Each run is its own session; the answer of the first served the second all the same.
    assert.notEqual(hit.attribution.session_id, miss.attribution.session_id)
  })

  it("through an alias: Claude Code's own haiku model steered to the model the user chose, priced at that model", async () => {
    await gateway.gateway.store.aliases.set('claude-haiku-*', 'anthropic/claude-haiku-4-5', null)
    await gateway.gateway.configChanged()
    anthropic.script({ kind: 'reply', text: 'A quick hello.', usage: { input_tokens: 2_000, output_tokens: 100 } })
    const seen = anthropic.received.length
    const count = await recordCount(gateway.gateway)

    const run = await claude('Say hello', ['--model', 'haiku'])
    assert.equal(run.stdout.trim(), 'A quick hello.')
    // Claude Code shapes its request for the model it believes it talks to (claude-haiku-5-5):
    // the environment goes in a mid-conversation `role: "system"` message, which the fake
    // Anthropic refuses as the Messages API did before such messages existed; Claude Code then
    // asks again without it. Both requests are recorded.
    const sent = anthropic.received.slice(seen)
    assert.deepEqual(
      sent.map((r) => [r.body.model, r.body.messages.map((m: any) => m.role).join(',')]),
      [
        ['claude-haiku-4-5', 'user,system'],
        ['claude-haiku-4-5', 'user'],
      ],
    )
    const [refused, answered, ...more] = await newRecords(gateway.gateway, count)
    assert.equal(more.length, 0)
    assert.equal(refused.status, 400)
    assert.equal(refused.error?.type, 'invalid_request_error')
    assert.match(refused.error?.message ?? '', /messages\.1\.role/)

    assert.equal(answered.status, 200)
    assert.ok(refused.attribution.session_id && refused.attribution.session_derived, 'the refused request is in the session too')
    assert.equal(answered.attribution.session_id, refused.attribution.session_id, 'one run of claude -p is one session')
    assert.equal(answered.model, 'claude-haiku-5-5', 'the record keeps the model Claude Code asked for')
    assert.deepEqual(answered.alias, { pattern: 'claude-haiku-*', target: 'anthropic/claude-haiku-4-5' })
    assert.equal(answered.provider, 'anthropic')
    assert.equal(answered.upstream_model, 'claude-haiku-4-5')
    // claude-haiku-4-5: $1 input, $5 output per million: 2,000 × 1 + 100 × 5 = 2,500 → 0.0025 USD
    assertUsd(answered.cost?.final_usd, 0.0025, 'final cost')
  })

  it('a stream the provider breaks off: Claude Code asks again and prints only the second answer; both recorded, the broken one priced as an estimate', async () => {
    anthropic.script(
      { kind: 'error-mid-stream', afterBlocks: 1, errorType: 'overloaded_error' },
      { kind: 'reply', text: 'Second try.', usage: { input_tokens: 12, output_tokens: 4 } },
    )
    const seen = anthropic.received.length
    const count = await recordCount(gateway.gateway)

    const run = await claude('Say hello', ['--model', 'anthropic/claude-sonnet-4-5'])
    assert.equal(run.stdout.trim(), 'Second try.')
    assert.deepEqual(
      anthropic.received.slice(seen).map((r) => r.body.stream),
      [true, true],
      'Claude Code 2.1.330 retries streamed',
    )
    const [broken, answered, ...more] = await newRecords(gateway.gateway, count)
    assert.equal(more.length, 0)
    assert.equal(broken.outcome, 'error')
    assert.match(broken.error?.message ?? '', /mid-stream \(overloaded_error\)/)
    // What message_start reported (12 input, 1 output) at claude-sonnet-4-5's $3 / $15 per million: 36 + 15 → 0.000051 USD.
    assert.equal(broken.cost?.estimated, true)
    assertUsd(broken.cost?.final_usd, 0.000051, 'broken stream')
    assert.equal(answered.outcome, 'ok')
    // 12 × 3 + 4 × 15 = 96 → 0.000096 USD
    assertUsd(answered.cost?.final_usd, 0.000096, 'second answer')
  })

  it('a wrong gateway key: Claude Code stops at the first 401 (x-should-retry: false) and prints the reason', async () => {
    const seen = anthropic.received.length
    const run = await claude('Say hello', ['--model', 'anthropic/claude-sonnet-4-5'], { key: `gw-${'x'.repeat(43)}`, expectFailure: true })
    assert.match(run.stdout, /API Error: 401 /)
    assert.equal(anthropic.received.length, seen, 'nothing reached the provider')
    // Without x-should-retry: false it would ask ~10 times over minutes before giving up.
    const refused = await logLines(path.join(dataDir, 'gw.log'), /"status":401/)
    assert.equal(refused.length, 1, `one 401 in the gateway's log:\n${refused.join('\n')}`)
  })

  it('translated to a chat-completions provider: the answer printed, the Anthropic-only fields dropped and named, the record priced at the chat model', async () => {
    const text = 'Hello from the fake OpenAI, through the gateway.'
    openai.script({ kind: 'reply', content: text, usage: { prompt_tokens: 30_000, completion_tokens: 40, cached_tokens: 10_000 } })
    const seen = openai.received.length
    const count = await recordCount(gateway.gateway)

    // A model name Claude Code does not know: told its real window, it does not warn that it assumes 1M tokens.
    const run = await claude('Say hello', ['--model', 'openai/gpt-4o-mini'], { env: { CLAUDE_CODE_MAX_CONTEXT_TOKENS: '128000' } })
    assert.equal(run.stdout.trim(), text)
    assert.doesNotMatch(run.stderr, /context window/)

    const sent = openai.received.slice(seen)
    assert.deepEqual(
      sent.map((r) => `${r.method} ${r.path}`),
      ['POST /v1/chat/completions'],
      'one request reached the provider',
    )
    const [request] = sent
    assert.equal(request.body.model, 'gpt-4o-mini')
    assert.equal(request.body.stream, true)
    assert.equal(request.body.messages[0].role, 'system', "Claude Code's system blocks lead the conversation")
    assert.ok(
      request.body.tools.length > 0 && request.body.tools.every((t: any) => t.type === 'function' && typeof t.function.name === 'string'),
      "Claude Code's tools arrive as functions",
    )
    for (const field of ['thinking', 'context_management', 'metadata', 'output_config']) assert.equal(request.body[field], undefined, `${field} is not sent`)
    // Claude Code asks for 32,000 output tokens; gpt-4o-mini writes at most 16,384, and OpenAI refuses more.
    assert.equal(request.body.max_completion_tokens, 16_384)
    assert.equal(request.body.max_tokens, undefined)

    const [record, ...more] = await newRecords(gateway.gateway, count)
    assert.equal(more.length, 0)
    assert.equal(record.endpoint, 'messages')
    assert.equal(record.status, 200)
    assert.equal(record.outcome, 'ok')
    assert.equal(record.model, 'openai/gpt-4o-mini')
    assert.equal(record.provider, 'openai')
    assert.equal(record.upstream_model, 'gpt-4o-mini')
    const ignored = record.ignored.map((i) => i.name)
    for (const field of ['thinking', 'context_management', 'max_tokens'])
      assert.ok(ignored.includes(field), `the record names ${field} as ignored: ${ignored.join(', ')}`)
    assert.equal(record.cost?.prompt_tokens, 30_000)
    assert.equal(record.cost?.cached_tokens, 10_000)
    // gpt-4o-mini per million: $0.15 input, $0.075 cached input, $0.60 output.
    // 20,000 × 0.15 + 10,000 × 0.075 + 40 × 0.60 = 3,000 + 750 + 24 = 3,774 per million → 0.003774 USD
    assertUsd(record.cost?.final_usd, 0.003774, 'final cost')
  })

  it('on Gemini 3, a tool call and the turn after it: its tools taken despite their JSON Schema keywords, the call replayed with its thought signature', async () => {
    gemini.script(
      { kind: 'reply', toolCalls: [{ id: 'call_echo', name: 'Bash', arguments: '{"command":"echo gemini-was-here","description":"Print a word"}' }] },
      { kind: 'reply', content: 'The command printed gemini-was-here.' },
    )
    const seen = gemini.received.length
    const run = await claude('Run echo gemini-was-here', ['--model', 'gemini/gemini-3-pro-preview', '--allowedTools', 'Bash(echo:*)'], {
      env: { CLAUDE_CODE_MAX_CONTEXT_TOKENS: '1000000' },
    })
    assert.equal(run.stdout.trim(), 'The command printed gemini-was-here.')
    const sent = gemini.received.slice(seen)
    assert.equal(sent.length, 2, 'the tool call, then the answer after it')
    const second = sent[1].body
    const replayed = second.messages.find((m: any) => m.role === 'assistant' && m.tool_calls)
    assert.equal(replayed.tool_calls[0].id, 'call_echo')
    assert.equal(replayed.tool_calls[0].extra_content.google.thought_signature, thoughtSignatureOf('call_echo'))
    const result = second.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === 'call_echo')
    assert.match(result.content, /gemini-was-here/, 'Claude Code ran the command and sent its output')
  })

  it("a session limit on the key: the next run stops with the gateway's message, printed once, nothing sent upstream", async () => {
    const { secret: limited } = await gateway.gateway.store.keys.create('claude-code-limited', { policy: { max_session_requests: 1 } })
    const env = { ANTHROPIC_CUSTOM_HEADERS: 'X-Gw-Session-Id: claude-session-1' }
    await claude('Say hello', ['--model', 'anthropic/claude-sonnet-4-5'], { key: limited, env })
    const seen = anthropic.received.length
    const count = await recordCount(gateway.gateway)
    const run = await claude('Say hello', ['--model', 'anthropic/claude-sonnet-4-5'], { key: limited, env, expectFailure: true })
    assert.equal(
      run.stdout.trim(),
      'API Error: 402 this session reached its limit of 1 requests set on key "claude-code-limited" (1 made) [rule: max_session_requests]',
    )
    assert.equal(anthropic.received.length, seen, 'nothing reached the provider')
    const [record, ...more] = await newRecords(gateway.gateway, count)
    assert.equal(more.length, 0, 'Claude Code does not ask again')
    assert.equal(record.status, 402)
    assert.equal(record.error?.code, 'policy_violation')
    assert.equal(record.attribution.session_id, 'claude-session-1')
  })

  it('two turns of one session natively, against a provider playing the prompt cache: the second reads what the first wrote, and the doctor says healthy', async () => {
    anthropic.playPromptCache()
    const home = tempDir('gw-claude-home-')
    const session = '5f0c8a52-7d1e-4c3b-9a8e-2b6f1d4e7a90'
    try {
      const count = await recordCount(gateway.gateway)
      await claude('Say hello', ['--model', 'anthropic/claude-sonnet-4-5', '--session-id', session], { home })
      await claude('Say it again', ['--model', 'anthropic/claude-sonnet-4-5', '--resume', session], { home })
      const [first, second, ...more] = await newRecords(gateway.gateway, count)
      assert.equal(more.length, 0)
      for (const r of [first, second]) assert.equal(r.attribution.session_id, session)
      assert.ok(first.usage!.cache_write_tokens > 0, 'the first turn writes its prefix')
      assert.ok(second.usage!.cached_tokens >= first.usage!.cache_write_tokens, 'the second reads all the first wrote')
      assert.ok(second.prompt!.markers > 0, "Claude Code's cache_control markers were counted")

      const found = (await gateway.gateway.store.queries.getSession({ id: session }, { keyIds: null }, Date.now()))!
      assert.equal(found.cache.verdict, 'healthy', JSON.stringify(found.cache.turns.map((t) => t.cause)))
      assert.deepEqual(
        found.cache.turns.map((t) => t.state),
        ['write', 'read'],
      )
      assert.ok(found.cache.saved_usd > 0)
    } finally {
      fs.rmSync(home, { recursive: true, force: true })
    }
  })

  it('two turns of one session through a preset of two equal Anthropic providers: both go to the one that holds its cache', async () => {
    const mirror = await startFakeAnthropic({ promptCache: true })
    anthropic.playPromptCache()
    const gw = gateway.gateway
    ;(gw.options.env as NodeJS.ProcessEnv).MIRROR_API_KEY = mirror.apiKey
    await gw.store.providers.upsert('mirror', 'anthropic', mirror.url)
    await gw.store.presets.save(
      {
        name: 'pair',
        model: 'anthropic/claude-sonnet-4-5',
        fallbacks: ['mirror/claude-sonnet-4-5'],
        equal_candidates: true,
        system_prompt: null,
        temperature: null,
        max_tokens: null,
        top_p: null,
        description: null,
      },
      'test',
    )
    // As a user steers Claude Code: its own model name sent to the preset by an alias.
    await gw.store.aliases.set('claude-sonnet-*', 'policy/pair', null)
    await gw.configChanged()
    const home = tempDir('gw-claude-home-')
    const session = '9b1d3e5f-2a4c-4e6b-8d0f-1a3c5e7b9d2f'
    try {
      const count = await recordCount(gw)
      const received = () => [anthropic.received.length, mirror.received.length]
      const before = received()
      await claude('Say hello', ['--model', 'claude-sonnet-4-5', '--session-id', session], { home })
      await claude('Say it again', ['--model', 'claude-sonnet-4-5', '--resume', session], { home })
      const all = await newRecords(gw, count)
      const [first, second, ...more] = all
      assert.equal(more.length, 0, JSON.stringify(all.map((r) => [r.provider, r.status, r.error])))
      for (const r of [first, second]) assert.equal(r.preset, 'pair')
      assert.equal(second.provider, first.provider, 'the second turn stays where the first was answered')
      assert.equal(second.moved, undefined)
      assert.ok(second.usage!.cached_tokens >= first.usage!.cache_write_tokens && first.usage!.cache_write_tokens > 0, 'and reads what it wrote')
      const sent = received().map((n, i) => n - before[i])
      assert.deepEqual(sent, first.provider === 'anthropic' ? [2, 0] : [0, 2], 'the other provider was never called')
    } finally {
      fs.rmSync(home, { recursive: true, force: true })
      await gw.store.aliases.remove('claude-sonnet-*')
      await mirror.close()
    }
  })
})
