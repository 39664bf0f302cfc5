/**
 * The real Codex CLI (`codex exec`, non-interactive) pointed at the gateway as a user sets it up:
 * a `model_providers` entry in `$CODEX_HOME/config.toml` with the gateway's /v1 as `base_url`,
 * `wire_api = "responses"` and a gateway key in the variable its `env_key` names; the fake OpenAI
 * server (which serves the Responses API), another fake OpenAI-compatible server serving chat
 * completions only and a fake Anthropic behind the gateway: natively, and translated.
 *
 * What Codex 0.169.0 sends for `codex exec PROMPT`, seen through this gateway: one `POST
 * {base_url}/responses`, nothing else (no model list, no HEAD). With the settings below off it
 * looks up no other host (seen with strace); without them it resolves ab.chatgpt.com,
 * chatgpt.com, api.github.com and github.com (`git clone` of its plugin marketplace), which
 * fail offline without stopping it. Headers: `Authorization: Bearer <GW_KEY>`,
 * `accept: text/event-stream`, `user-agent: codex_exec/0.169.0 (…)`, `originator: codex_exec`,
 * `session-id`, `thread-id` and `x-client-request-id` (one UUIDv7, the session's),
 * `x-codex-window-id`, `x-codex-beta-features: remote_compaction_v2` and `x-codex-turn-metadata`
 * (JSON: installation, session, turn, sandbox, model). Body (about 40 KB): `model` as given with
 * `-m`, `stream: true`, `store: false`, `include: ["reasoning.encrypted_content"]`,
 * `prompt_cache_key` (the session id), `client_metadata` (session, thread, turn and window ids,
 * the turn metadata again), `tool_choice: "auto"`, `parallel_tool_calls: true`, no
 * `instructions`: `input` is two `developer` messages (about 17 KB and 2.5 KB), then two `user`
 * messages (the environment, then the prompt). For a model name it does not know
 * (`openai/gpt-5.1`, and even `gpt-5.1`) it warns "Model metadata … not found" and sends
 * `reasoning {summary: "auto"}` and top-level `tools`: functions, a `namespace` of agent tools and
 * `web_search`. For one it knows (`gpt-5.5`): `reasoning {effort: "medium"}`,
 * `text {verbosity: "low"}`, and a `custom` apply_patch tool and `tool_search` among the tools.
 * A 401 or 404 is asked again five times ("Reconnecting... n/5") before it gives up; a 400 is not.
 * A stream that ends without `response.completed` (an `error` event, `response.failed`, a cut
 * connection) is asked again at once, up to five times.
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

const CODEX = { pkg: '@openai/codex', version: '0.169.0', bin: 'codex' }
const cli = await agentCli(CODEX.pkg, CODEX.version, CODEX.bin)
const RUN_TIMEOUT_MS = 120_000

describe(`Codex ${CODEX.version} (the real CLI, codex exec) through the gateway`, { skip: cli.skip ? `skipped: ${cli.skip}` : false }, () => {
  let openai: FakeOpenAI
  let anthropic: FakeAnthropic
  /** A provider that serves chat completions only (Mistral's entry, wire chat). */
  let chat: FakeOpenAI
  let gemini: FakeOpenAI
  let gateway: RunningGateway
  let dataDir: string
  let secret: string

  /** `codex exec PROMPT` for `model` in a fresh home and CODEX_HOME, talking to nothing but the gateway; its exit code checked unless `expectFailure`. */
  async function codex(prompt: string, model: string, opts: { key?: string; expectFailure?: boolean; headers?: Record<string, string> } = {}) {
    const home = tempDir('gw-codex-home-')
    const codexHome = path.join(home, '.codex')
    fs.mkdirSync(codexHome)
    fs.writeFileSync(
      path.join(codexHome, 'config.toml'),
      [
        'model_provider = "gw"',
        // No update check, analytics, feedback or plugin sync (a git clone from GitHub, calls to
        // chatgpt.com): with these off Codex resolves no host name but the gateway's.
        'check_for_update_on_startup = false',
        '',
        '[analytics]',
        'enabled = false',
        '',
        '[feedback]',
        'enabled = false',
        '',
        '[features]',
        'plugins = false',
        '',
        '[model_providers.gw]',
        'name = "gw"',
        `base_url = "${gateway.url}/v1"`,
        'env_key = "GW_KEY"',
        'wire_api = "responses"',
        ...(opts.headers
          ? [
              `http_headers = { ${Object.entries(opts.headers)
                .map(([k, v]) => `"${k}" = "${v}"`)
                .join(', ')} }`,
            ]
          : []),
        '',
      ].join('\n'),
    )
    try {
      const run = await runAsync(cli.bin!, ['exec', '--strict-config', '--skip-git-repo-check', '--sandbox', 'read-only', '-m', model, prompt], {
        cwd: home,
        timeoutMs: RUN_TIMEOUT_MS,
        env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: codexHome, TMPDIR: home, GW_KEY: opts.key ?? secret },
      })
      const said = `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`
      assert.ok(!run.timedOut, `codex exec did not finish within ${RUN_TIMEOUT_MS / 1000} s\n${said}`)
      if (opts.expectFailure) assert.notEqual(run.code, 0, `codex exec succeeded\n${said}`)
      else assert.equal(run.code, 0, `codex exec failed\n${said}`)
      return run
    } finally {
      fs.rmSync(home, { recursive: true, force: true })
    }
  }

  /**
   * Codex's shell tool as the gateway offers it to a chat provider (found by a first run), with the
   * arguments that make it echo a word in the shape its parameters take.
   */
  async function shellTool(provider: FakeOpenAI, model: string) {
    provider.script({ kind: 'reply', content: 'Ready.' })
    const seen = provider.received.length
    await codex('Say ready', model)
    const offered: any[] = provider.received[seen].body.tools
    const tool = offered.find((t) => /^(shell|exec_command|shell_command)$/.test(t.function.name))
    assert.ok(tool, `a shell tool among ${offered.map((t) => t.function.name).join(', ')}`)
    const props = tool.function.parameters.properties ?? {}
    const echo = (word: string) =>
      JSON.stringify(props.command?.type === 'array' ? { command: ['echo', word] } : props.cmd ? { cmd: `echo ${word}` } : { command: `echo ${word}` })
    return { name: tool.function.name as string, echo }
  }

  before(async () => {
    openai = await startFakeOpenAI()
    anthropic = await startFakeAnthropic()
    chat = await startFakeOpenAI()
    gemini = await startFakeOpenAI({
      quirks: { thoughtSignatures: true, strictToolSchemas: true, toolCallsWithoutIndex: true, stopWithToolCalls: true, errorsAsArray: true },
      models: ['gemini-3-pro-preview'],
    })
    dataDir = tempDir()
    gateway = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'info', logFile: path.join(dataDir, 'gw.log') },
      // One attempt: Codex retries on its own, and a retried request would hide a refusal.
      {
        env: { OPENAI_API_KEY: openai.apiKey, ANTHROPIC_API_KEY: anthropic.apiKey, MISTRAL_API_KEY: chat.apiKey, GEMINI_API_KEY: gemini.apiKey },
        routing: { maxRetries: 0 },
      },
    )
    const gw = gateway.gateway
    await gw.store.providers.upsert('openai', 'openai', openai.url)
    await gw.store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    await gw.store.providers.upsert('mistral', 'openai', chat.url)
    // Google's OpenAI layer as the fake serves it (at /v1, not under Google's version root): declared.
    await gw.store.providers.upsert('gemini', 'openai', gemini.url, {}, undefined, 'gemini')
    secret = (await gw.store.keys.create('codex')).secret
    await gw.configChanged()
  })

  after(async () => {
    await gateway?.close()
    await openai?.close()
    await anthropic?.close()
    await chat?.close()
    await gemini?.close()
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('natively to a provider that serves Responses: the answer printed, the request passed through with its headers, the record priced with cached and reasoning tokens', async () => {
    const text = 'Hello from the fake Responses API, through the gateway.'
    const usage = { input_tokens: 12_000, cached_tokens: 8_000, output_tokens: 300, reasoning_tokens: 120 }
    openai.scriptResponses({ kind: 'reply', content: text, usage })
    const seen = openai.received.length
    const count = await recordCount(gateway.gateway)

    const run = await codex('Say hello', 'openai/gpt-5.1')
    const sent = openai.received.slice(seen)
    assert.equal(run.stdout.trim(), text)

    assert.deepEqual(
      sent.map((r) => `${r.method} ${r.path}`),
      ['POST /v1/responses'],
      'one request reached the provider',
    )
    const [request] = sent
    assert.equal(request.body.model, 'gpt-5.1')
    assert.equal(request.body.stream, true)
    assert.equal(request.body.store, false)
    assert.deepEqual(request.body.include, ['reasoning.encrypted_content'])
    assert.equal(request.body.client_metadata?.session_id, request.body.prompt_cache_key, 'client_metadata passed through')
    // The headers Codex identifies its session and turn by reach the provider, as OpenAI's API gets them from Codex.
    assert.equal(request.headers.originator, 'codex_exec')
    assert.match(String(request.headers['session-id']), /^[0-9a-f-]{36}$/)
    assert.equal(request.headers['thread-id'], request.headers['session-id'])
    assert.equal(JSON.parse(String(request.headers['x-codex-turn-metadata'])).session_id, request.headers['session-id'])

    const [record, ...more] = await newRecords(gateway.gateway, count)
    assert.equal(more.length, 0)
    assert.equal(record.endpoint, 'responses')
    assert.equal(record.status, 200)
    assert.equal(record.outcome, 'ok')
    assert.equal(record.stream, true)
    assert.equal(record.model, 'openai/gpt-5.1')
    assert.equal(record.provider, 'openai')
    assert.equal(record.upstream_model, 'gpt-5.1')
    assert.equal(record.usage?.prompt_tokens, 12_000)
    assert.equal(record.usage?.cached_tokens, 8_000)
    assert.equal(record.usage?.completion_tokens, 300)
    assert.equal(record.usage?.reasoning_tokens, 120)
    assert.equal(record.cost?.estimated, false)
    // The tool and its own session, recognised from what Codex sends.
    assert.equal(record.source_tool, `codex_exec ${CODEX.version}`)
    assert.equal(record.attribution.session_id, request.headers['session-id'])
    assert.equal(record.attribution.session_derived, true)
    // gpt-5.1 per million: $1.25 input, $0.125 cached input, $10 output (reasoning is part of output_tokens).
    // 4,000 × 1.25 + 8,000 × 0.125 + 300 × 10 = 5,000 + 1,000 + 3,000 = 9,000 per million → 0.009 USD
    assertUsd(record.cost?.final_usd, 0.009, 'final cost')
  })

  it("Codex's own model name through an alias: Codex shapes the request for a model it knows, the record keeps its name and is priced at the alias's target", async () => {
    await gateway.gateway.store.aliases.set('gpt-5.5', 'openai/gpt-5.5', null)
    await gateway.gateway.configChanged()
    const usage = { input_tokens: 2_000, cached_tokens: 1_000, output_tokens: 100, reasoning_tokens: 40 }
    openai.scriptResponses({ kind: 'reply', content: 'Hello.', usage })
    const seen = openai.received.length
    const count = await recordCount(gateway.gateway)

    const run = await codex('Say hello', 'gpt-5.5')
    assert.equal(run.stdout.trim(), 'Hello.')
    assert.doesNotMatch(run.stderr, /Model metadata for .* not found/)

    const [request, ...others] = openai.received.slice(seen)
    assert.equal(others.length, 0)
    assert.equal(request.body.model, 'gpt-5.5')
    // What Codex sends only for a model it knows reached the provider as sent.
    assert.equal(request.body.reasoning?.effort, 'medium')
    assert.equal(request.body.text?.verbosity, 'low')
    const tools = request.body.tools.map((t: any) => `${t.type}${t.name ? `:${t.name}` : ''}`)
    for (const tool of ['custom:apply_patch', 'tool_search', 'web_search']) assert.ok(tools.includes(tool), `${tool} among ${tools.join(', ')}`)

    const [record, ...more] = await newRecords(gateway.gateway, count)
    assert.equal(more.length, 0)
    assert.equal(record.model, 'gpt-5.5', 'the record keeps the model Codex asked for')
    assert.deepEqual(record.alias, { pattern: 'gpt-5.5', target: 'openai/gpt-5.5' })
    assert.equal(record.provider, 'openai')
    assert.equal(record.upstream_model, 'gpt-5.5')
    // gpt-5.5 per million: $5 input, $0.50 cached input, $30 output.
    // 1,000 × 5 + 1,000 × 0.50 + 100 × 30 = 5,000 + 500 + 3,000 = 8,500 per million → 0.0085 USD
    assertUsd(record.cost?.final_usd, 0.0085, 'final cost')
  })

  it('a stream the provider breaks off (response.failed, a cut connection): Codex reconnects once and prints only the second answer; both recorded and priced', async () => {
    for (const mode of ['response-failed', 'drop'] as const) {
      openai.scriptResponses({ kind: 'fail-mid-stream', afterDeltas: 2, mode }, { kind: 'reply', content: 'Second try.' })
      const seen = openai.received.length
      const count = await recordCount(gateway.gateway)

      const run = await codex('Say hello', 'openai/gpt-5.1')
      assert.equal(run.stdout.trim(), 'Second try.', mode)
      assert.match(run.stderr, /Reconnecting\.\.\. 1\/5/, mode)
      assert.deepEqual(
        openai.received.slice(seen).map((r) => r.body.stream),
        [true, true],
        `${mode}: asked twice, streamed`,
      )
      const [broken, answered, ...more] = await newRecords(gateway.gateway, count)
      assert.equal(more.length, 0, mode)
      assert.equal(broken.outcome, 'error', mode)
      assert.equal(answered.outcome, 'ok', mode)
      assert.ok(broken.attribution.session_id, `${mode}: the broken stream is in the session`)
      assert.equal(answered.attribution.session_id, broken.attribution.session_id, `${mode}: Codex's reconnection is in the same session`)
      // The fake's default usage, 30 input and 8 output tokens, at gpt-5.1's $1.25 / $10 per million: 37.5 + 80 → 0.0001175 USD.
      assertUsd(answered.cost?.final_usd, 0.0001175, `${mode}: second answer`)
      if (mode === 'response-failed') {
        // response.failed carries usage (30 input, the 2 output tokens sent): 37.5 + 20 → 0.0000575 USD, exact.
        assert.match(broken.error?.message ?? '', /mid-stream \(server_error\)/)
        assert.equal(broken.cost?.estimated, false)
        assertUsd(broken.cost?.final_usd, 0.0000575, 'failed stream')
      } else {
        // No usage came: estimated from Codex's 40 KB prompt and the text sent, never $0.
        assert.match(broken.error?.message ?? '', /could not be reached/)
        assert.equal(broken.cost?.estimated, true)
        assert.ok((broken.cost?.final_usd ?? 0) > 0.001, `cut stream estimated at ${broken.cost?.final_usd} USD`)
      }
    }
  })

  it('a wrong gateway key: Codex asks six times (it retries a 401 five times), then stops and prints the OpenAI-shaped message; nothing reaches the provider', async () => {
    const seen = openai.received.length
    const before = (await logLines(path.join(dataDir, 'gw.log'), /"status":401/, 0)).length
    const run = await codex('Say hello', 'openai/gpt-5.1', { key: `gw-${'x'.repeat(43)}`, expectFailure: true })
    assert.match(run.stderr, /unexpected status 401 Unauthorized: Incorrect API key provided: gw-x+…x+\./)
    assert.equal(openai.received.length, seen, 'nothing reached the provider')
    // Codex 0.169 treats a 401 as retryable whatever the answer says (for a ChatGPT login it
    // refreshes its token in between): "Reconnecting... 1/5" to "5/5", about 6.5 s of backoff.
    // Waiting for a seventh shows there is none.
    const refused = (await logLines(path.join(dataDir, 'gw.log'), /"status":401/, before + 7)).slice(before)
    assert.equal(refused.length, 6, `six 401s in the gateway's log:\n${refused.join('\n')}`)
  })

  it("translated to a chat-completions provider: the answer printed, the request sent as chat completions without Codex's headers, what only OpenAI takes dropped and named, the record priced", async () => {
    const text = 'Hello from a chat-only provider, through the gateway.'
    chat.script({ kind: 'reply', content: text, usage: { prompt_tokens: 12_000, cached_tokens: 8_000, completion_tokens: 300 } })
    const seen = chat.received.length
    const count = await recordCount(gateway.gateway)

    const run = await codex('Say hello', 'mistral/devstral-2512')
    assert.equal(run.stdout.trim(), text)

    const [request, ...others] = chat.received.slice(seen)
    assert.equal(others.length, 0, 'one request reached the provider')
    assert.equal(request.path, '/v1/chat/completions')
    assert.equal(request.body.model, 'devstral-2512')
    assert.equal(request.body.stream, true)
    assert.deepEqual(request.body.stream_options, { include_usage: true })
    // Codex's developer messages as system messages, its prompt last.
    assert.equal(request.body.messages[0].role, 'system')
    assert.equal(request.body.messages.at(-1).role, 'user')
    assert.match(JSON.stringify(request.body.messages.at(-1).content), /Say hello/)
    const names: string[] = request.body.tools.map((t: any) => t.function.name)
    assert.ok(names.length > 3, `tools sent: ${names.join(', ')}`)
    for (const name of names) assert.match(name, /^[a-zA-Z0-9_-]{1,64}$/)
    assert.ok(!names.some((n) => n.includes('web_search')), 'the hosted web_search tool stays behind')
    for (const field of ['include', 'store', 'reasoning', 'prompt_cache_key', 'client_metadata']) assert.equal(request.body[field], undefined, field)
    // Codex's session headers speak the Responses protocol: they go only to a provider that serves it.
    for (const header of ['originator', 'session-id', 'x-codex-turn-metadata']) assert.equal(request.headers[header], undefined, header)

    const [record, ...more] = await newRecords(gateway.gateway, count)
    assert.equal(more.length, 0)
    assert.equal(record.endpoint, 'responses')
    assert.equal(record.status, 200)
    assert.equal(record.outcome, 'ok')
    assert.equal(record.stream, true)
    assert.equal(record.provider, 'mistral')
    assert.equal(record.upstream_model, 'devstral-2512')
    assert.equal(record.usage?.prompt_tokens, 12_000)
    assert.equal(record.usage?.cached_tokens, 8_000)
    const ignored = record.ignored.map((i) => i.name)
    for (const name of ['include', 'reasoning', 'tools: web_search', 'prompt_cache_key', 'client_metadata'])
      assert.ok(ignored.includes(name), `${name} among ${ignored.join(', ')}`)
    assert.equal(record.cost?.estimated, false)
    // devstral-2512 per million: $0.40 input, $0.04 cached input, $2 output.
    // 4,000 × 0.40 + 8,000 × 0.04 + 300 × 2 = 1,600 + 320 + 600 = 2,520 per million → 0.00252 USD
    assertUsd(record.cost?.final_usd, 0.00252, 'final cost')
  })

  it("translated, a tool round trip: the model calls Codex's shell tool by its chat name, Codex runs it and sends the output back, the answer printed", async () => {
    const shell = await shellTool(chat, 'mistral/devstral-2512')
    chat.script(
      { kind: 'reply', toolCalls: [{ id: 'call_shell_1', name: shell.name, arguments: shell.echo('gw-round-trip') }] },
      { kind: 'reply', content: 'The command printed gw-round-trip.' },
    )
    const before = chat.received.length
    const count = await recordCount(gateway.gateway)
    const run = await codex('Run echo gw-round-trip', 'mistral/devstral-2512')
    assert.match(run.stdout, /The command printed gw-round-trip\./)

    const [first, second, ...others] = chat.received.slice(before)
    assert.equal(others.length, 0, 'two turns reached the provider')
    assert.equal(first.body.messages.at(-1).role, 'user')
    // The call as the assistant turn, the output as its tool message: Codex sent back the function_call and its output.
    const messages: any[] = second.body.messages
    const call = messages.find((m) => m.role === 'assistant' && m.tool_calls)
    assert.deepEqual(
      call.tool_calls.map((c: any) => [c.id, c.function.name]),
      [['call_shell_1', shell.name]],
    )
    const output = messages.find((m) => m.role === 'tool')
    assert.equal(output.tool_call_id, 'call_shell_1')
    assert.match(output.content, /gw-round-trip/)
    assert.ok(messages.indexOf(output) === messages.indexOf(call) + 1, 'the output right after its call')

    const records = await newRecords(gateway.gateway, count)
    assert.deepEqual(
      records.map((r) => [r.endpoint, r.provider, r.outcome]),
      [
        ['responses', 'mistral', 'ok'],
        ['responses', 'mistral', 'ok'],
      ],
    )
  })

  it('on Gemini 3, a tool round trip: Codex’s tools taken despite their JSON Schema keywords, the call replayed with its thought signature', async () => {
    const model = 'gemini/gemini-3-pro-preview'
    const shell = await shellTool(gemini, model)
    gemini.script(
      { kind: 'reply', toolCalls: [{ id: 'call_gem_1', name: shell.name, arguments: shell.echo('gemini-round-trip') }] },
      { kind: 'reply', content: 'The command printed gemini-round-trip.' },
    )
    const before = gemini.received.length
    const run = await codex('Run echo gemini-round-trip', model)
    assert.match(run.stdout, /The command printed gemini-round-trip\./)
    const [, second, ...others] = gemini.received.slice(before)
    assert.equal(others.length, 0, 'two turns reached the provider')
    const call = second.body.messages.find((m: any) => m.role === 'assistant' && m.tool_calls)
    assert.equal(call.tool_calls[0].extra_content.google.thought_signature, thoughtSignatureOf('call_gem_1'))
    assert.match(second.body.messages.find((m: any) => m.role === 'tool').content, /gemini-round-trip/)
  })

  it('translated to Anthropic through its adapter: the answer printed, the record priced with cache reads', async () => {
    const text = 'Hello from Claude, through the gateway.'
    anthropic.script({ kind: 'reply', text, usage: { input_tokens: 2_000, cache_read_input_tokens: 10_000, output_tokens: 100 } })
    const seen = anthropic.received.length
    const count = await recordCount(gateway.gateway)

    const run = await codex('Say hello', 'anthropic/claude-sonnet-4-5')
    assert.equal(run.stdout.trim(), text)
    const [request, ...others] = anthropic.received.slice(seen)
    assert.equal(others.length, 0)
    assert.equal(request.path, '/v1/messages')
    assert.equal(request.body.model, 'claude-sonnet-4-5')
    assert.ok(request.body.tools.length > 3)

    const [record, ...more] = await newRecords(gateway.gateway, count)
    assert.equal(more.length, 0)
    assert.equal(record.endpoint, 'responses')
    assert.equal(record.outcome, 'ok')
    assert.equal(record.provider, 'anthropic')
    assert.equal(record.usage?.cached_tokens, 10_000)
    // claude-sonnet-4-5 per million: $3 input, $0.30 cache reads, $15 output.
    // 2,000 × 3 + 10,000 × 0.30 + 100 × 15 = 6,000 + 3,000 + 1,500 = 10,500 per million → 0.0105 USD
    assertUsd(record.cost?.final_usd, 0.0105, 'final cost')
  })

  it("a session limit on the key: the next run stops with the gateway's message, printed once, nothing sent upstream", async () => {
    const { secret: limited } = await gateway.gateway.store.keys.create('codex-limited', { policy: { max_session_requests: 1 } })
    const headers = { 'X-Gw-Session-Id': 'codex-session-1' }
    await codex('Say hello', 'openai/gpt-5.1', { key: limited, headers })
    const seen = openai.received.length
    const count = await recordCount(gateway.gateway)
    const run = await codex('Say hello', 'openai/gpt-5.1', { key: limited, headers, expectFailure: true })
    assert.match(run.stderr, /this session reached its limit of 1 requests set on key \\"codex-limited\\" \(1 made\) \[rule: max_session_requests\]/)
    assert.equal(openai.received.length, seen, 'nothing reached the provider')
    const [record, ...more] = await newRecords(gateway.gateway, count)
    assert.equal(more.length, 0, 'Codex does not retry it')
    assert.equal(record.status, 400)
    assert.equal(record.error?.code, 'policy_violation')
    assert.equal(record.attribution.session_id, 'codex-session-1')
  })
})
