/**
 * The real Gemini CLI (`gemini -p PROMPT --yolo`, headless) pointed at the gateway as a user sets
 * it up: `GOOGLE_GEMINI_BASE_URL` the gateway, `GEMINI_API_KEY` a gateway key (see geminiCli.ts for
 * the settings that keep it offline). Natively onto the built-in `gemini` provider (fake-gemini),
 * and translated onto a chat-completions provider and Anthropic, each with a tool call the CLI
 * runs in its working folder and answers; then the gateway's own refusals as the CLI shows them.
 *
 * What 0.61.0 does through the gateway: without `-m`, one `:generateContent` to its router
 * (`gemini-3.5-flash-lite`, a JSON answer whose schema has Google's upper-case types in
 * `responseJsonSchema`), then `:streamGenerateContent?alt=sse` to `gemini-3.8-flash` for each
 * turn; with `-m`, the stream calls alone. A function call it runs (`--yolo`) and sends back as a
 * `functionResponse` in the next turn, the call replayed with its `thoughtSignature`, or with
 * `skip_thought_signature_validator` where the answer had none (a translated one: the gateway
 * leaves that sentinel out for other providers, as it carries nothing). A refusal it prints to
 * stderr as the gateway's Google-shaped body (followed by "An unexpected critical error
 * occurred:[object Object]") and exits 1: at once for 400, 401, 403 and 404; a 429 or 5xx it asks
 * again, at least 5 s later (a RetryInfo delay only lengthens that), up to `general.maxAttempts`
 * times, whatever `x-should-retry` says.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { assertUsd, newRecords, recordCount } from '../support/agentRecords'
import { SKIP_SIGNATURE, startFakeGemini, type FakeGemini } from '../support/fake-gemini'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { GEMINI_CLI, geminiCli, runGeminiCli, type GeminiCliRun } from '../support/geminiCli'
import { TEST_SECRET_KEY, TEST_STORE, testStoreFor } from '../support/harness'
import { databases } from '../support/storeFile'
import { tempDir } from '../support/tempDir'
import { waitUntil } from '../support/waitUntil'

const cli = await geminiCli()
const RUN_TIMEOUT_MS = 90_000
const TOOL = `gemini-cli ${GEMINI_CLI.version}`
/** The gateway's clock starts here: gemini-3.8-flash's promotional price holds until 2027. */
const CLOCK_START = Date.parse('2026-10-01T12:00:00Z')

describe(`Gemini CLI ${GEMINI_CLI.version} (the real CLI, headless) through the gateway`, { skip: cli.skip ? `skipped: ${cli.skip}` : false }, () => {
  let google: FakeGemini
  let openai: FakeOpenAI
  let anthropic: FakeAnthropic
  let gateway: RunningGateway
  let dataDir: string
  let secret: string
  let keyId: string
  /** The gateway's clock: real time from CLOCK_START, moved on by `skipMs`, or held still at `heldAt`. */
  const started = Date.now()
  let skipMs = 0
  let heldAt: number | null = null
  const clock = () => heldAt ?? CLOCK_START + (Date.now() - started) + skipMs

  /** `gemini -p PROMPT --yolo` against the gateway; its exit code checked (1 when `expectFailure`). */
  async function gemini(
    prompt: string,
    opts: Omit<Parameters<typeof runGeminiCli>[1], 'baseUrl' | 'apiKey' | 'prompt'> & { key?: string; expectFailure?: boolean } = {},
  ): Promise<GeminiCliRun> {
    const run = await runGeminiCli(cli.bin!, { ...opts, baseUrl: gateway.url, apiKey: opts.key ?? secret, prompt, timeoutMs: RUN_TIMEOUT_MS })
    const said = `exit ${run.code} after ${run.elapsedMs} ms\nstdout: ${run.stdout}\nstderr: ${run.stderr}`
    assert.ok(!run.timedOut, `gemini -p did not finish within ${RUN_TIMEOUT_MS / 1000} s\n${said}`)
    assert.equal(run.code, opts.expectFailure ? 1 : 0, said)
    return run
  }

  before(async () => {
    google = await startFakeGemini({ thoughtSignatures: true })
    openai = await startFakeOpenAI()
    anthropic = await startFakeAnthropic()
    dataDir = tempDir()
    gateway = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', ...(await testStoreFor(dataDir)) },
      {
        env: { GEMINI_API_KEY: google.apiKey, OPENAI_API_KEY: openai.apiKey, ANTHROPIC_API_KEY: anthropic.apiKey, GW_SECRET_KEY: TEST_SECRET_KEY },
        // One attempt: the CLI retries on its own, and the gateway's retries would hide what it does.
        routing: { maxRetries: 0 },
        clock,
      },
    )
    const store = gateway.gateway.store
    await store.providers.upsert('gemini', 'gemini', `${google.url}/v1beta`)
    await store.providers.upsert('openai', 'openai', openai.url)
    await store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    const key = await store.keys.create('gemini-cli')
    secret = key.secret
    keyId = key.info.id
    await gateway.gateway.configChanged()
  })

  after(async () => {
    await gateway?.close()
    await Promise.all([google?.close(), openai?.close(), anthropic?.close()])
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
    databases.delete(dataDir)
    for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true })
  })

  const folders: string[] = []
  /** A fresh working folder for the CLI, kept after its run (until the suite ends) so the test can look at what its tools did. */
  const workFolder = () => {
    folders.push(tempDir('gw-gemini-work-'))
    return folders.at(-1)!
  }

  it('natively onto the built-in gemini provider, without -m: the router call, then a write_file call run and answered, each priced to the token', async () => {
    const cwd = workFolder()
    const file = path.join(cwd, 'hello.txt')
    google.script(
      {
        kind: 'reply',
        model: 'gemini-3.5-flash-lite',
        method: 'generateContent',
        usage: { promptTokenCount: 2_000, candidatesTokenCount: 40 },
      },
      {
        kind: 'reply',
        model: 'gemini-3.8-flash',
        functionCalls: [{ name: 'write_file', args: { file_path: file, content: 'written through the gateway\n' } }],
        usage: { promptTokenCount: 10_000, cachedContentTokenCount: 4_000, candidatesTokenCount: 30, thoughtsTokenCount: 120 },
      },
      {
        kind: 'reply',
        model: 'gemini-3.8-flash',
        text: 'I wrote hello.txt.',
        usage: { promptTokenCount: 10_400, cachedContentTokenCount: 10_000, candidatesTokenCount: 12 },
      },
    )
    const seen = google.received.length
    const count = await recordCount(gateway.gateway)

    const run = await gemini('Write hello.txt', { cwd })
    assert.equal(run.stdout.trim(), 'I wrote hello.txt.')
    assert.equal(fs.readFileSync(file, 'utf8'), 'written through the gateway\n', 'the CLI ran write_file')

    const sent = google.received.slice(seen)
    assert.deepEqual(
      sent.map((r) => r.path),
      [
        '/v1beta/models/gemini-3.5-flash-lite:generateContent',
        '/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse',
        '/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse',
      ],
    )
    assert.ok(
      sent.every((r) => r.headers['x-goog-api-key'] === google.apiKey),
      "Google's key, not the gateway's",
    )
    assert.equal(sent[0].body.generationConfig.responseJsonSchema.type, 'OBJECT', "the router's schema as the CLI wrote it")
    const [call, response] = sent[2].body.contents.slice(-2)
    const { id, ...replayed } = call.parts[0].functionCall
    assert.deepEqual(replayed, { name: 'write_file', args: { file_path: file, content: 'written through the gateway\n' } })
    assert.ok(call.parts[0].thoughtSignature && call.parts[0].thoughtSignature !== SKIP_SIGNATURE, "replayed with Google's signature")
    // Google gave the call no id; the CLI made one up for it and its answer.
    assert.deepEqual([response.parts[0].functionResponse.name, response.parts[0].functionResponse.id], ['write_file', id])

    const records = await newRecords(gateway.gateway, count)
    assert.deepEqual(
      records.map((r) => [r.endpoint, r.model, r.provider, r.upstream_model, r.stream, r.status, r.source_tool, r.key_id]),
      [
        ['generateContent', 'gemini-3.5-flash-lite', 'gemini', 'gemini-3.5-flash-lite', false, 200, TOOL, keyId],
        ['generateContent', 'gemini-3.8-flash', 'gemini', 'gemini-3.8-flash', true, 200, TOOL, keyId],
        ['generateContent', 'gemini-3.8-flash', 'gemini', 'gemini-3.8-flash', true, 200, TOOL, keyId],
      ],
    )
    assert.ok(
      records.every((r) => typeof r.ttfb_ms === 'number'),
      'a time to first byte, the one-chunk function call too',
    )
    // gemini-3.5-flash-lite per million: $0.30 input, $2.50 output: 2,000 × 0.30 + 40 × 2.50 = 700 → 0.0007 USD
    assertUsd(records[0].cost?.final_usd, 0.0007, 'router')
    // gemini-3.8-flash per million until 2027: $0.75 input, $0.075 cached, $3.75 output (thoughts included):
    // 6,000 × 0.75 + 4,000 × 0.075 + (30 + 120) × 3.75 = 4,500 + 300 + 562.5 = 5,362.5 → 0.0053625 USD
    assertUsd(records[1].cost?.final_usd, 0.0053625, 'function call')
    // 400 × 0.75 + 10,000 × 0.075 + 12 × 3.75 = 300 + 750 + 45 = 1,095 → 0.001095 USD
    assertUsd(records[2].cost?.final_usd, 0.001095, 'answer')
  })

  it('translated onto a chat-completions provider with -m openai/gpt-4o-mini: a shell command run, its output sent back as the tool result', async () => {
    const cwd = workFolder()
    openai.script(
      {
        kind: 'reply',
        toolCalls: [{ id: 'call_1', name: 'run_shell_command', arguments: JSON.stringify({ command: 'printf shell-ran > shell.txt && echo done' }) }],
        usage: { prompt_tokens: 9_000, cached_tokens: 3_000, completion_tokens: 25 },
      },
      { kind: 'reply', content: 'The shell wrote shell.txt.', usage: { prompt_tokens: 9_300, completion_tokens: 8 } },
    )
    const seen = openai.received.length
    const count = await recordCount(gateway.gateway)

    const run = await gemini('Write shell.txt', { cwd, model: 'openai/gpt-4o-mini' })
    assert.equal(run.stdout.trim(), 'The shell wrote shell.txt.')
    assert.equal(fs.readFileSync(path.join(cwd, 'shell.txt'), 'utf8'), 'shell-ran', 'the CLI ran the command')

    const sent = openai.received.slice(seen)
    assert.deepEqual(
      sent.map((r) => [r.path, r.body.model, r.body.stream]),
      [
        ['/v1/chat/completions', 'gpt-4o-mini', true],
        ['/v1/chat/completions', 'gpt-4o-mini', true],
      ],
    )
    assert.ok(
      sent[0].body.tools.some((t: any) => t.function.name === 'run_shell_command'),
      "the CLI's tools offered as functions",
    )
    const [asked, result] = sent[1].body.messages.slice(-2)
    assert.equal(asked.tool_calls[0].id, 'call_1')
    assert.equal(result.role, 'tool')
    assert.equal(result.tool_call_id, 'call_1')
    assert.match(result.content, /Output: done/)

    const records = await newRecords(gateway.gateway, count)
    assert.deepEqual(
      records.map((r) => [r.endpoint, r.model, r.provider, r.upstream_model, r.status, r.source_tool, r.key_id]),
      [
        ['generateContent', 'openai/gpt-4o-mini', 'openai', 'gpt-4o-mini', 200, TOOL, keyId],
        ['generateContent', 'openai/gpt-4o-mini', 'openai', 'gpt-4o-mini', 200, TOOL, keyId],
      ],
    )
    assert.ok(!records[1].ignored.some((d) => d.name === 'thoughtSignature'), "the CLI's placeholder signature left out without a word")
    assert.equal(asked.tool_calls[0].extra_content, undefined)
    // gpt-4o-mini per million: $0.15 input, $0.075 cached, $0.60 output.
    // 6,000 × 0.15 + 3,000 × 0.075 + 25 × 0.60 = 900 + 225 + 15 = 1,140 → 0.00114 USD
    assertUsd(records[0].cost?.final_usd, 0.00114, 'tool call')
    // 9,300 × 0.15 + 8 × 0.60 = 1,395 + 4.8 = 1,399.8 → 0.0013998 USD
    assertUsd(records[1].cost?.final_usd, 0.0013998, 'answer')
  })

  it("through aliases for the CLI's own models, without -m: the router's schema made JSON Schema's, a write_file call answered, all priced at the alias's model", async () => {
    const store = gateway.gateway.store
    await store.aliases.set('gemini-3.5-flash-lite', 'openai/gpt-4o-mini', null)
    await store.aliases.set('gemini-3.8-flash', 'openai/gpt-4o-mini', null)
    await gateway.gateway.configChanged()
    try {
      const cwd = workFolder()
      const file = path.join(cwd, 'aliased.txt')
      openai.script(
        {
          kind: 'reply',
          content: JSON.stringify({ complexity_reasoning: 'One small file.', complexity_score: 5 }),
          usage: { prompt_tokens: 1_500, completion_tokens: 20 },
        },
        {
          kind: 'reply',
          toolCalls: [{ id: 'call_w', name: 'write_file', arguments: JSON.stringify({ file_path: file, content: 'aliased\n' }) }],
          usage: { prompt_tokens: 8_000, completion_tokens: 30 },
        },
        { kind: 'reply', content: 'Wrote aliased.txt.', usage: { prompt_tokens: 8_200, cached_tokens: 8_000, completion_tokens: 10 } },
      )
      const seen = openai.received.length
      const count = await recordCount(gateway.gateway)

      const run = await gemini('Write aliased.txt', { cwd })
      assert.equal(run.stdout.trim(), 'Wrote aliased.txt.')
      assert.equal(fs.readFileSync(file, 'utf8'), 'aliased\n')

      const sent = openai.received.slice(seen)
      assert.equal(sent.length, 3)
      // Google takes its upper-case types in a JSON Schema; OpenAI's structured outputs take JSON Schema's.
      const schema = sent[0].body.response_format.json_schema.schema
      assert.deepEqual([schema.type, schema.properties.complexity_reasoning.type, schema.properties.complexity_score.type], ['object', 'string', 'integer'])
      assert.equal(sent[2].body.messages.at(-1).tool_call_id, 'call_w')

      const records = await newRecords(gateway.gateway, count)
      assert.deepEqual(
        records.map((r) => [r.model, r.alias?.pattern, r.provider, r.upstream_model, r.status, r.source_tool]),
        [
          ['gemini-3.5-flash-lite', 'gemini-3.5-flash-lite', 'openai', 'gpt-4o-mini', 200, TOOL],
          ['gemini-3.8-flash', 'gemini-3.8-flash', 'openai', 'gpt-4o-mini', 200, TOOL],
          ['gemini-3.8-flash', 'gemini-3.8-flash', 'openai', 'gpt-4o-mini', 200, TOOL],
        ],
      )
      assert.ok(
        records.every((r) => r.ignored.some((d) => d.name === 'generationConfig.thinkingConfig')),
        'the thinking config the CLI sends for Gemini 3 named as dropped',
      )
      // At gpt-4o-mini's prices: 1,500 × 0.15 + 20 × 0.60 = 237; 8,000 × 0.15 + 30 × 0.60 = 1,218;
      // 200 × 0.15 + 8,000 × 0.075 + 10 × 0.60 = 636 (per million).
      assertUsd(records[0].cost?.final_usd, 0.000237, 'router')
      assertUsd(records[1].cost?.final_usd, 0.001218, 'tool call')
      assertUsd(records[2].cost?.final_usd, 0.000636, 'answer')
    } finally {
      await store.aliases.remove('gemini-3.5-flash-lite')
      await store.aliases.remove('gemini-3.8-flash')
      await gateway.gateway.configChanged()
    }
  })

  it('translated onto Anthropic with -m anthropic/claude-haiku-4-5: a write_file tool use run and answered, cache reads priced', async () => {
    const cwd = workFolder()
    const file = path.join(cwd, 'claude.txt')
    anthropic.script(
      {
        kind: 'reply',
        toolUses: [{ id: 'toolu_1', name: 'write_file', input: { file_path: file, content: 'from claude\n' } }],
        usage: { input_tokens: 5_000, cache_read_input_tokens: 2_000, output_tokens: 60 },
      },
      { kind: 'reply', text: 'Claude wrote claude.txt.', usage: { input_tokens: 5_200, output_tokens: 10 } },
    )
    const seen = anthropic.received.length
    const count = await recordCount(gateway.gateway)

    const run = await gemini('Write claude.txt', { cwd, model: 'anthropic/claude-haiku-4-5' })
    assert.equal(run.stdout.trim(), 'Claude wrote claude.txt.')
    assert.equal(fs.readFileSync(file, 'utf8'), 'from claude\n')

    const sent = anthropic.received.slice(seen)
    assert.deepEqual(
      sent.map((r) => [r.path, r.body.model]),
      [
        ['/v1/messages', 'claude-haiku-4-5'],
        ['/v1/messages', 'claude-haiku-4-5'],
      ],
    )
    const result = sent[1].body.messages.at(-1).content.find((b: any) => b.type === 'tool_result')
    assert.equal(result?.tool_use_id, 'toolu_1')

    const records = await newRecords(gateway.gateway, count)
    assert.deepEqual(
      records.map((r) => [r.endpoint, r.model, r.provider, r.upstream_model, r.status, r.source_tool, r.key_id]),
      [
        ['generateContent', 'anthropic/claude-haiku-4-5', 'anthropic', 'claude-haiku-4-5', 200, TOOL, keyId],
        ['generateContent', 'anthropic/claude-haiku-4-5', 'anthropic', 'claude-haiku-4-5', 200, TOOL, keyId],
      ],
    )
    // claude-haiku-4-5 per million: $1 input, $0.10 cache read, $5 output.
    // 5,000 × 1 + 2,000 × 0.10 + 60 × 5 = 5,500 → 0.0055 USD; 5,200 × 1 + 10 × 5 = 5,250 → 0.00525 USD
    assertUsd(records[0].cost?.final_usd, 0.0055, 'tool use')
    assertUsd(records[1].cost?.final_usd, 0.00525, 'answer')
  })

  describe("the gateway's refusals as the CLI shows them", () => {
    /** One refused run: exit 1, the one record it left, nothing sent to the provider. */
    async function refused(key: string, opts: Parameters<typeof gemini>[1] = {}) {
      const seen = openai.received.length
      const count = await recordCount(gateway.gateway)
      const run = await gemini('Say hello', { model: 'openai/gpt-4o-mini', ...opts, key, expectFailure: true })
      assert.equal(openai.received.length, seen, 'nothing reached the provider')
      const records = await newRecords(gateway.gateway, count)
      assert.equal(records.length, 1, 'the CLI did not ask again')
      return { run, record: records[0] }
    }

    it("a policy refusing the model: 403 PERMISSION_DENIED with the gateway's message on stderr, asked once", async () => {
      const { secret: key } = await gateway.gateway.store.keys.create('gemini-cli-anthropic-only', { policy: { allowed_models: ['anthropic/*'] } })
      await gateway.gateway.configChanged()
      const { run, record } = await refused(key)
      assert.equal(run.stdout, '')
      assert.match(run.stderr, /"code":403,.*may not use model openai\/gpt-4o-mini \[rule: allowed_models = anthropic\/\*\]","status":"PERMISSION_DENIED"/)
      assert.equal(record.status, 403)
      assert.equal(record.error?.code, 'policy_violation')
      assert.equal(record.source_tool, TOOL)
    })

    it('a prepaid key with nothing left: the 402 answered as 403 PERMISSION_DENIED, asked once', async () => {
      const { secret: key } = await gateway.gateway.store.keys.create('gemini-cli-prepaid', { balanceUsd: 0 })
      await gateway.gateway.configChanged()
      const { run, record } = await refused(key)
      assert.match(
        run.stderr,
        /"code":403,"message":"Key .*gemini-cli-prepaid.* has no prepaid balance left \(\$0\.00 left\)\..*","status":"PERMISSION_DENIED"/,
      )
      assert.equal(record.status, 402)
      assert.equal(record.error?.code, 'insufficient_balance')
    })

    it('a session limit, the session named in GEMINI_CLI_CUSTOM_HEADERS: 400 INVALID_ARGUMENT on the next run, asked once', async () => {
      const { secret: key } = await gateway.gateway.store.keys.create('gemini-cli-session', { policy: { max_session_requests: 1 } })
      await gateway.gateway.configChanged()
      // Gemini CLI names no session of its own; this variable adds headers to every request it makes.
      const env = { GEMINI_CLI_CUSTOM_HEADERS: 'X-Gw-Session-Id: gemini-session-1' }
      await gemini('Say hello', { model: 'openai/gpt-4o-mini', key, env })
      const { run, record } = await refused(key, { env })
      assert.match(
        run.stderr,
        /"code":400,"message":"this session reached its limit of 1 requests .*\[rule: max_session_requests\]","status":"INVALID_ARGUMENT"/,
      )
      assert.equal(record.status, 400)
      assert.equal(record.attribution.session_id, 'gemini-session-1')
    })

    it("a provider refusing the gateway's credential: FAILED_PRECONDITION, asked once, not again and again for minutes", async () => {
      // A refusal for each attempt, and at most 3 of them: a regression costs 15 s rather than the default 10 attempts' four minutes.
      openai.script({ kind: 'status', status: 401 }, { kind: 'status', status: 401 }, { kind: 'status', status: 401 })
      const count = await recordCount(gateway.gateway)
      const run = await gemini('Say hello', { model: 'openai/gpt-4o-mini', settings: { general: { maxAttempts: 3 } }, expectFailure: true }).finally(() =>
        openai.clearScript(),
      )
      assert.match(run.stderr, /"code":400,"message":"openai answered 401: .*The gateway's credential for openai was refused.*","status":"FAILED_PRECONDITION"/)
      const records = await newRecords(gateway.gateway, count)
      assert.deepEqual(
        records.map((r) => [r.status, r.error?.code]),
        [[502, 'provider_auth_failed']],
      )
    })

    // On PostgreSQL the key's minute is counted on the database's clock, which the test cannot
    // hold: the CLI, told to wait out the minute, would wait it out (65 s) and be answered. The
    // shared rpm limit itself is tested in team-limits.test.ts.
    const heldClock = TEST_STORE === 'postgres' ? "the shared rpm limit runs on the database's clock, which this test cannot hold" : false
    it("the key's rpm limit: 429 RESOURCE_EXHAUSTED with RetryInfo; the CLI waits, asks again, and each attempt is recorded", { skip: heldClock }, async () => {
      const { secret: key } = await gateway.gateway.store.keys.create('gemini-cli-rpm', { policy: { rpm: 1 } })
      await gateway.gateway.configChanged()
      const opts = { model: 'openai/gpt-4o-mini', key, settings: { general: { maxAttempts: 2 } } }
      let count = await recordCount(gateway.gateway)
      await gemini('Say hello', opts)
      const [admitted] = await newRecords(gateway.gateway, count)
      // The clock held 3 s before that request leaves the minute: every attempt now is refused, told to wait 3 s.
      heldAt = Date.parse(admitted.created_at) + 57_000
      try {
        const seen = openai.received.length
        count = await recordCount(gateway.gateway)
        const run = await gemini('Say hello', { ...opts, expectFailure: true })
        assert.match(run.stderr, /Attempt 1 failed: Rate limit reached for key "gemini-cli-rpm": 1 requests per minute \[rule: rpm\]/)
        assert.match(run.stderr, /Suggested retry after \d+s\./, "the CLI read the gateway's RetryInfo")
        assert.match(run.stderr, /Attempt 2 failed: .*Max attempts reached/s)
        assert.ok(run.elapsedMs >= 5_000, `the CLI waited its 5 s at least between the attempts (${run.elapsedMs} ms in all)`)
        assert.equal(openai.received.length, seen)
        assert.deepEqual(
          (await newRecords(gateway.gateway, count)).map((r) => [r.status, r.error?.code, r.source_tool]),
          [
            [429, 'rate_limit_exceeded', TOOL],
            [429, 'rate_limit_exceeded', TOOL],
          ],
        )

        // Once the first attempt is refused, the minute passes: the attempt after the wait is answered.
        count = await recordCount(gateway.gateway)
        const answered = gemini('Say hello', opts)
        await waitUntil(async () => (await newRecords(gateway.gateway, count)).length === 1, { what: 'the first attempt refused', timeoutMs: 30_000 })
        skipMs = heldAt + 60_000 - (CLOCK_START + (Date.now() - started))
        heldAt = null
        const run2 = await answered
        assert.equal(run2.stdout.trim(), 'Hello from the fake provider.')
        assert.deepEqual(
          (await newRecords(gateway.gateway, count)).map((r) => r.status),
          [429, 200],
        )
      } finally {
        heldAt = null
      }
    })
  })
})
