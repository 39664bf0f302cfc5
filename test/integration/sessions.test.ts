/**
 * Coding-agent sessions: the gateway recognises the tool that sent a request and the tool's own
 * session from what the tool sends anyway, and lists sessions with their cost. The headers and
 * bodies below are those Claude Code 2.1.330 and Codex 0.169.0 sent to a recording fake (see
 * claude-code.test.ts and codex.test.ts, which run the real tools).
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import type { Output } from '../../src/contract'
import { assertUsd } from '../support/agentRecords'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { gwCli, ownerCookie, testStoreFor, waitForRecord } from '../support/harness'
import { tempDir } from '../support/tempDir'

const CLAUDE_UA = 'claude-cli/2.1.330 (external, sdk-cli)'
const CODEX_UA = 'codex_exec/0.169.0 (Debian 12.0.0; x86_64) unknown (codex_exec; 0.169.0)'

/** What Claude Code 2.1.330 sends with every Messages request (print mode), but for the credential and its session. */
function claudeHeaders(key: string, session: string): Record<string, string> {
  return {
    accept: 'application/json',
    'content-type': 'application/json',
    'user-agent': CLAUDE_UA,
    'x-claude-code-session-id': session,
    'x-stainless-arch': 'x64',
    'x-stainless-lang': 'js',
    'x-stainless-os': 'Linux',
    'x-stainless-package-version': '0.128.0',
    'x-stainless-retry-count': '0',
    'x-stainless-runtime': 'node',
    'x-stainless-runtime-version': 'v26.12.1',
    'x-stainless-timeout': '600',
    'anthropic-beta':
      'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,thinking-token-count-2026-05-13,advanced-tool-use-2025-11-20',
    'anthropic-dangerous-direct-browser-access': 'true',
    'anthropic-version': '2023-06-01',
    authorization: `Bearer ${key}`,
    'x-app': 'cli',
  }
}

/** Claude Code's body, shortened: its session is in `metadata.user_id`, a JSON string. */
function claudeBody(model: string, userId: string) {
  return {
    model,
    max_tokens: 32000,
    stream: true,
    system: [
      { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.330; cc_entrypoint=sdk-cli;' },
      { type: 'text', text: 'You are Claude Code, an interactive CLI tool.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Environment: linux.', cache_control: { type: 'ephemeral' } },
    ],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello', cache_control: { type: 'ephemeral' } }] }],
    tools: [
      { name: 'Bash', description: 'Runs a command', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
    ],
    metadata: { user_id: userId },
    thinking: { type: 'enabled', budget_tokens: 31999 },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
  }
}

const claudeUserId = (session: string) =>
  JSON.stringify({ device_id: 'ce8116c8fe98b7ce421391fe84eca059388c2545a1b88a3764719d672262eaf9', account_uuid: '', session_id: session })

/** What Codex 0.169.0 sends with `codex exec`, but for the credential and its session (one UUIDv7 in every id). */
function codexHeaders(key: string, session: string): Record<string, string> {
  const turn = JSON.stringify({
    installation_id: 'ec9dad56-dc1b-4e4f-8633-2fca047e1cc3',
    session_id: session,
    thread_id: session,
    turn_id: '01a20a7e-49a0-73a2-ad6d-0cf4c02b2b7c',
    window_id: `${session}:0`,
    request_kind: 'turn',
    sandbox_mode: 'read-only',
    model: 'gpt-5.1',
  })
  return {
    'x-codex-beta-features': 'remote_compaction_v2',
    'x-codex-window-id': `${session}:0`,
    'x-codex-turn-metadata': turn,
    'x-client-request-id': session,
    'session-id': session,
    'thread-id': session,
    accept: 'text/event-stream',
    'content-type': 'application/json',
    authorization: `Bearer ${key}`,
    originator: 'codex_exec',
    'user-agent': CODEX_UA,
  }
}

function codexBody(model: string, session: string, extra: Record<string, unknown> = {}) {
  return {
    model,
    stream: true,
    store: false,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: session,
    client_metadata: { session_id: session, thread_id: session, turn_id: '01a20a7e-49a0-73a2-ad6d-0cf4c02b2b7c' },
    tool_choice: 'auto',
    parallel_tool_calls: true,
    reasoning: { summary: 'auto' },
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are Codex.' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Say hello' }] },
    ],
    ...extra,
  }
}

describe('coding-agent sessions: recognised from what the tools send, listed with their cost', () => {
  let anthropic: FakeAnthropic
  let openai: FakeOpenAI
  let gateway: RunningGateway
  let dataDir: string
  let secret: string
  let otherSecret: string
  let otherKeyId: string
  let cookie: string

  /** Sends a request as a tool would, reads the whole answer and returns the record of it. */
  async function send(path: string, headers: Record<string, string>, body: unknown) {
    const res = await fetch(`${gateway.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
    const text = await res.text()
    assert.equal(res.status, 200, text)
    return waitForRecord(gateway.gateway, res.headers.get('x-request-id'))
  }
  const claude = (session: string, opts: { key?: string; model?: string; headers?: Record<string, string> } = {}) =>
    send(
      '/v1/messages?beta=true',
      { ...claudeHeaders(opts.key ?? secret, session), ...opts.headers },
      claudeBody(opts.model ?? 'anthropic/claude-sonnet-4-5', claudeUserId(session)),
    )
  const codex = (session: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    send('/v1/responses', { ...codexHeaders(secret, session), ...headers }, codexBody('openai/gpt-5.1', session, extra))

  async function admin<N extends 'sessions.list' | 'sessions.get'>(
    op: N,
    input: unknown,
    as = cookie,
  ): Promise<{ status: number; body: Output<N> & { error?: { message: string } } }> {
    const res = await fetch(`${gateway.url}/api/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: as },
      body: JSON.stringify(input),
    })
    return { status: res.status, body: (await res.json()) as never }
  }
  const api = async (op: string, input: unknown, as: string) => {
    const res = await fetch(`${gateway.url}/api/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: as },
      body: JSON.stringify(input),
    })
    return { res, body: (await res.json()) as any }
  }

  before(async () => {
    anthropic = await startFakeAnthropic({ models: ['claude-sonnet-4-5', 'claude-unpriced-9'] })
    openai = await startFakeOpenAI()
    dataDir = tempDir()
    gateway = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', ...(await testStoreFor(dataDir)) },
      { env: { ANTHROPIC_API_KEY: anthropic.apiKey, OPENAI_API_KEY: openai.apiKey }, routing: { maxRetries: 0 } },
    )
    const gw = gateway.gateway
    await gw.store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    await gw.store.providers.upsert('openai', 'openai', openai.url)
    secret = (await gw.store.keys.create('laptop')).secret
    const other = await gw.store.keys.create('ci-runner')
    otherSecret = other.secret
    otherKeyId = other.info.id
    await gw.configChanged()
    cookie = await ownerCookie(gateway.url)
  })

  after(async () => {
    await gateway?.close()
    await anthropic?.close()
    await openai?.close()
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it("Claude Code: the tool from its user agent, the session from its header, a count_tokens call in the same session; the session's requests grouped", async () => {
    const session = 'bc072202-ff35-44a4-b47b-5720a1638024'
    anthropic.script(
      { kind: 'reply', text: 'Hello.', usage: { input_tokens: 1_000, output_tokens: 50 } },
      { kind: 'reply', text: 'Again.', usage: { input_tokens: 2_000, output_tokens: 100 } },
    )
    const first = await claude(session)
    const second = await claude(session)
    const counted = await send('/v1/messages/count_tokens?beta=true', claudeHeaders(secret, session), {
      model: 'anthropic/claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'Say hello' }],
    })
    for (const r of [first, second, counted]) {
      assert.equal(r.source_tool, 'claude-code 2.1.330')
      assert.equal(r.attribution.session_id, session)
      assert.equal(r.attribution.session_derived, true, 'marked as derived by the gateway')
    }
    // The record's session is the gateway's attribution: nothing reached the provider but the tool's own fields.
    assert.equal(anthropic.received.at(-2)!.body.metadata.user_id, claudeUserId(session))

    const { status, body } = await admin('sessions.list', { filter: { session_id: session } })
    assert.equal(status, 200)
    assert.equal(body.total, 1)
    const [s] = body.items
    assert.equal(s.session_id, session)
    assert.deepEqual(s.tools, ['claude-code 2.1.330'])
    assert.deepEqual(
      s.keys.map((k) => k.name),
      ['laptop'],
    )
    assert.deepEqual(s.models, ['anthropic/claude-sonnet-4-5'])
    assert.equal(s.requests, 3)
    assert.equal(s.errors, 0)
    assert.equal(s.prompt_tokens, 3_000)
    assert.equal(s.completion_tokens, 150)
    assert.equal(s.unpriced, 0)
    // claude-sonnet-4-5: $3 input, $15 output per million. 3,000 × 3 + 150 × 15 = 11,250 per million; the count is free.
    assertUsd(s.cost_usd, 0.01125, 'session cost')
    assert.equal(s.first_at, Date.parse(first.created_at))
    assert.equal(s.last_at, Date.parse(counted.created_at))
  })

  it('Claude Code without its session header: the session from metadata.user_id, as JSON or in the older user_…_session_<uuid> form', async () => {
    const session = '5a8c1e52-1d2b-4c9e-9f4a-0b6d7e8f9a01'
    const headers = claudeHeaders(secret, 'unused')
    delete headers['x-claude-code-session-id']
    const fromJson = await send('/v1/messages?beta=true', headers, claudeBody('anthropic/claude-sonnet-4-5', claudeUserId(session)))
    assert.equal(fromJson.attribution.session_id, session)
    assert.equal(fromJson.attribution.session_derived, true)
    const old = `user_${'ab12'.repeat(16)}_account_1f2e3d4c-0000-4000-8000-000000000001_session_${session}`
    const fromOld = await send('/v1/messages?beta=true', headers, claudeBody('anthropic/claude-sonnet-4-5', old))
    assert.equal(fromOld.attribution.session_id, session)
    // A user id an SDK caller chose is no session.
    const plain = await send('/v1/messages?beta=true', headers, claudeBody('anthropic/claude-sonnet-4-5', 'alice'))
    assert.equal(plain.attribution.session_id, null)
    assert.equal(plain.attribution.session_derived, false)
    assert.equal(plain.source_tool, 'claude-code 2.1.330')
  })

  it('Codex: the tool from its originator and user agent, the session from its session-id header', async () => {
    const session = '01a20a7e-494c-7612-b07e-3c6a6a0f0844'
    openai.scriptResponses(
      { kind: 'reply', content: 'Hello.', usage: { input_tokens: 12_000, cached_tokens: 8_000, output_tokens: 300 } },
      { kind: 'reply', content: 'Done.' },
    )
    const first = await codex(session)
    const second = await codex(session)
    for (const r of [first, second]) {
      assert.equal(r.source_tool, 'codex_exec 0.169.0')
      assert.equal(r.attribution.session_id, session)
      assert.equal(r.attribution.session_derived, true)
    }
    const { body } = await admin('sessions.list', { filter: { source_tool: 'codex_exec 0.169.0' } })
    assert.deepEqual(
      body.items.map((s) => [s.session_id, s.requests]),
      [[session, 2]],
    )
    // gpt-5.1: $1.25 input, $0.125 cached, $10 output per million. First: 4,000 × 1.25 + 8,000 × 0.125 + 300 × 10 = 9,000;
    // second (the fake's default 30 in, 8 out): 37.5 + 80 = 117.5. Per million → 0.0091175 USD.
    assertUsd(body.items[0].cost_usd, 0.0091175, 'session cost')
  })

  it("a caller's own session wins: X-Gw-Session-Id over Claude Code's, the gw envelope over Codex's; neither marked derived", async () => {
    const byHeader = await claude('bc072202-0000-4000-8000-00000000abcd', { headers: { 'X-Gw-Session-Id': 'my-ticket-42' } })
    assert.equal(byHeader.attribution.session_id, 'my-ticket-42')
    assert.equal(byHeader.attribution.session_derived, false)
    assert.equal(byHeader.source_tool, 'claude-code 2.1.330', 'the tool is still recognised')
    const byEnvelope = await codex('01a20a7e-0000-7000-8000-00000000abcd', { gw: { session_id: 'my-ticket-43' } })
    assert.equal(byEnvelope.attribution.session_id, 'my-ticket-43')
    assert.equal(byEnvelope.attribution.session_derived, false)
    const byCodexHeader = await codex('01a20a7e-0000-7000-8000-00000000abce', {}, { 'X-Gw-Session-Id': 'my-ticket-44' })
    assert.equal(byCodexHeader.attribution.session_id, 'my-ticket-44')
    assert.equal(byCodexHeader.source_tool, 'codex_exec 0.169.0')
  })

  it("other clients: the official SDKs by name and version, an unknown tool by its user agent's product token; no session unless they set one", async () => {
    const oai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: secret, maxRetries: 0 })
    const chat = (await oai.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })) as unknown as {
      gw: { request_id: string }
    }
    const fromOpenAI = await waitForRecord(gateway.gateway, chat.gw.request_id)
    assert.match(fromOpenAI.source_tool ?? '', /^openai-js \d+\.\d+\.\d+/)
    assert.equal(fromOpenAI.attribution.session_id, null)

    const ant = new Anthropic({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 })
    const { response } = await ant.messages
      .create({ model: 'anthropic/claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse()
    const fromAnthropic = await waitForRecord(gateway.gateway, response.headers.get('x-gw-request-id'))
    assert.match(fromAnthropic.source_tool ?? '', /^anthropic-js \d+\.\d+\.\d+/)
    assert.equal(fromAnthropic.attribution.session_id, null)

    const unknown = await send(
      '/v1/chat/completions',
      { 'content-type': 'application/json', authorization: `Bearer ${secret}`, 'user-agent': 'my-agent/1.2.3 (linux; x64) node/22' },
      { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    )
    assert.equal(unknown.source_tool, 'my-agent 1.2.3')
    assert.equal(unknown.attribution.session_id, null)
  })

  it("the list: filtered by tool, key and time; unpriced requests counted apart, never as $0; a session's timeline in order with the cost accumulating", async () => {
    const session = '7d1f0e2a-1111-4222-8333-444455556666'
    anthropic.script(
      { kind: 'reply', text: 'One.', usage: { input_tokens: 1_000, output_tokens: 10 } },
      { kind: 'reply', text: 'Two.', usage: { input_tokens: 500, output_tokens: 20 } },
      { kind: 'reply', text: 'Three.', usage: { input_tokens: 2_000, output_tokens: 40 } },
    )
    const since = Date.now()
    const a = await claude(session, { key: otherSecret })
    // A model the catalog does not price: its cost is unknown, not $0.
    const b = await claude(session, { key: otherSecret, model: 'anthropic/claude-unpriced-9' })
    const c = await claude(session, { key: otherSecret })
    assert.equal(b.cost?.priced, false)

    const byKey = await admin('sessions.list', { filter: { key_id: otherKeyId } })
    assert.deepEqual(
      byKey.body.items.map((s) => s.session_id),
      [session],
    )
    const [s] = byKey.body.items
    assert.deepEqual(s.keys, [{ id: otherKeyId, name: 'ci-runner' }])
    assert.deepEqual([...s.models].sort(), ['anthropic/claude-sonnet-4-5', 'anthropic/claude-unpriced-9'])
    assert.equal(s.requests, 3)
    assert.equal(s.unpriced, 1)
    // 1,000 × 3 + 10 × 15 + 2,000 × 3 + 40 × 15 = 9,750 per million; the unpriced one is left out, and said to be.
    assertUsd(s.cost_usd, 0.00975, 'priced part')

    const inRange = await admin('sessions.list', { filter: { from: since }, sort: 'cost_usd' })
    assert.deepEqual(
      inRange.body.items.map((x) => x.session_id),
      [session],
      'only the session with requests since then',
    )
    const none = await admin('sessions.list', { filter: { from: since, source_tool: 'codex_exec 0.169.0' } })
    assert.deepEqual(none.body, { items: [], total: 0 })

    const { status, body } = await admin('sessions.get', { id: session })
    assert.equal(status, 200)
    assert.equal(body.session.derived, true)
    assert.deepEqual(
      body.requests.map((r) => r.id),
      [a.id, b.id, c.id],
      'oldest first',
    )
    assert.deepEqual(
      body.requests.map((r) => [r.priced, r.cumulative_unpriced]),
      [
        [true, 0],
        [false, 1],
        [true, 1],
      ],
    )
    assertUsd(body.requests[0].cumulative_usd, 0.00315, 'after the first')
    assertUsd(body.requests[1].cumulative_usd, 0.00315, 'the unpriced one adds nothing it does not know')
    assertUsd(body.requests[2].cumulative_usd, 0.00975, 'after the third')
    assert.equal(body.requests[2].source_tool, 'claude-code 2.1.330')

    const page = await admin('sessions.get', { id: session, offset: 2, limit: 1 })
    assert.deepEqual(
      page.body.requests.map((r) => r.id),
      [c.id],
    )
    assertUsd(page.body.requests[0].cumulative_usd, 0.00975, 'a later page starts from what came before it')

    const missing = await admin('sessions.get', { id: 'no-such-session' })
    assert.equal(missing.status, 404)
  })

  it('a member sees only the sessions, and the requests of a session, made with their own keys', async () => {
    assert.equal((await api('users.create', { username: 'mia', password: 'member password 1', role: 'member' }, cookie)).res.status, 200)
    const signIn = await api('auth.signIn', { username: 'mia', password: 'member password 1' }, '')
    const mia = signIn.res.headers.get('set-cookie')!.split(';')[0]
    const own = (await api('keys.create', { name: 'mia-laptop' }, mia)).body.secret as string
    const shared = 'shared-ticket-7'
    await claude('bc072202-1111-4000-8000-000000000001', { key: own, headers: { 'X-Gw-Session-Id': shared } })
    await claude('bc072202-1111-4000-8000-000000000002', { headers: { 'X-Gw-Session-Id': shared } })
    await claude('bc072202-1111-4000-8000-000000000003', { headers: { 'X-Gw-Session-Id': 'owner-only' } })

    const list = await admin('sessions.list', {}, mia)
    assert.equal(list.status, 200)
    assert.deepEqual(
      list.body.items.map((s) => [s.session_id, s.requests, s.keys.map((k) => k.name)]),
      [[shared, 1, ['mia-laptop']]],
    )
    const mine = await admin('sessions.get', { id: shared }, mia)
    assert.equal(mine.body.requests.length, 1, "the owner's request in the same session is not shown")
    assert.equal((await admin('sessions.get', { id: 'owner-only' }, mia)).status, 404)
    assert.equal((await admin('sessions.get', { id: shared })).body.requests.length, 2, 'an admin sees both')
  })

  it('Overview groups by tool', async () => {
    const res = await fetch(`${gateway.url}/api/analytics.groupBy`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ from: Date.now() - 3_600_000, to: Date.now() + 60_000, by: 'tool', limit: 10 }),
    })
    const groups = (await res.json()) as Array<{ value: string | null; requests: number }>
    const tools = new Map(groups.map((g) => [g.value, g.requests]))
    // Free token counts are left out, as everywhere in Overview.
    assert.equal(tools.get('claude-code 2.1.330'), 12)
    assert.equal(tools.get('codex_exec 0.169.0'), 4)
    assert.equal(tools.get('my-agent 1.2.3'), 1)
  })

  it('gw sessions list and show print the sessions and a timeline through the admin service', async () => {
    const session = 'bc072202-ff35-44a4-b47b-5720a1638024'
    await gateway.gateway.records.flushed()
    const list = await gwCli(['sessions', 'list', '--tool', 'claude-code 2.1.330', '--json'], { dataDir })
    const items = JSON.parse(list.stdout) as Array<{ session_id: string; requests: number }>
    assert.ok(
      items.some((s) => s.session_id === session && s.requests === 3),
      list.stdout,
    )
    const show = await gwCli(['sessions', 'show', session], { dataDir })
    assert.match(show.stdout, /tool +claude-code 2\.1\.330/)
    assert.match(show.stdout, /cost +\$0\.01125\b/)
    assert.equal(
      show.stdout
        .trim()
        .split('\n')
        .filter((l) => /^\d+ +\d{4}-/.test(l)).length,
      3,
      show.stdout,
    )
    // A page past the first: rows numbered within the whole session, their cost so far from its start.
    const all = show.stdout.split('\n').filter((l) => /^\d+ +\d{4}-/.test(l))
    const page = await gwCli(['sessions', 'show', session, '--offset', '1', '--limit', '1'], { dataDir })
    const rows = page.stdout.split('\n').filter((l) => /^\d+ +\d{4}-/.test(l))
    assert.deepEqual(rows, [all[1]], page.stdout)
    assert.match(page.stdout, /^requests 2–2 of 3; --offset and --limit show others$/m)
    await assert.rejects(gwCli(['sessions', 'show', 'no-such-session'], { dataDir }), (e: { stderr: string }) => /session no-such-session/.test(e.stderr))
  })
})
