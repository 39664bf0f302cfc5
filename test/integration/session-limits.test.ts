import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import type { KeyPolicy } from '../../src/contract/keys'
import { gwCli, startTestGateway, type TestGateway } from '../support/harness'

/** The fake's default usage (12 prompt, 5 completion tokens) on gpt-4o-mini: 12 × $0.15 + 5 × $0.60 per 1M. */
const C = 0.0000048
/** A prompt of 48 characters as JSON, so the gateway's estimate (4 characters a token) is the 12 tokens the fake reports. */
const twelveTokens = [{ role: 'user' as const, content: 'nineteen characters' }]
const operator = { user: { id: 'operator', username: 'cli:test', role: 'admin' as const, created_at: 0 }, sessionToken: null, address: 'local', operator: true }

describe('per-session limits on a key, on every wire', () => {
  let t: TestGateway
  let n = 0
  const session = () => `sess-${++n}`
  const keyWith = async (name: string, policy: KeyPolicy) => {
    const { secret, info } = await t.running.gateway.store.keys.create(name, { policy })
    return { id: info.id, secret }
  }
  const openai = (secret: string, sessionId?: string) =>
    new OpenAI({ baseURL: t.baseURL, apiKey: secret, maxRetries: 0, defaultHeaders: sessionId ? { 'x-gw-session-id': sessionId } : {} })
  const anthropic = (secret: string, sessionId?: string) =>
    new Anthropic({ baseURL: t.url, apiKey: secret, maxRetries: 0, defaultHeaders: sessionId ? { 'x-gw-session-id': sessionId } : {} })
  const chat = (c: OpenAI, max_tokens?: number) =>
    c.chat.completions.create({ model: 'gpt-4o-mini', messages: twelveTokens, ...(max_tokens && { max_tokens }) })
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => assert.fail('expected a refusal'),
      (e) => e,
    )
  const admin = async (name: string, input: unknown) => {
    const { result } = await t.running.admin.invoke(name, input, operator)
    assert.ok(result.ok, JSON.stringify(result))
    return result.value as any
  }

  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it('chat completions: the call past max_session_requests gets OpenAI’s 400 policy_violation, not to be retried, nothing sent upstream, recorded as a refusal', async () => {
    const { secret } = await keyWith('agent-chat', { max_session_requests: 2 })
    const c = openai(secret, session())
    await chat(c)
    await chat(c)
    const before = t.fake.received.length
    const err: any = await refusal(chat(c))
    assert.ok(err instanceof OpenAI.APIError)
    assert.equal(err.status, 400)
    assert.equal(err.type, 'invalid_request_error')
    assert.equal(err.code, 'policy_violation')
    assert.equal(err.message, '400 this session reached its limit of 2 requests set on key "agent-chat" (2 made) [rule: max_session_requests]')
    assert.equal(err.headers.get('x-should-retry'), 'false')
    assert.equal(t.fake.received.length, before, 'nothing sent upstream')
    const record = await t.record(err.headers.get('x-request-id'))
    assert.equal(record.status, 400)
    assert.equal(record.outcome, 'error')
    assert.equal(record.error?.code, 'policy_violation')
    assert.equal(record.attribution.session_id, `sess-${n}`)
    assert.equal(record.attempts.length, 0)
  })

  it('Messages: the refusal in Anthropic’s shape, a 402 billing_error, which Claude Code shows its user once', async () => {
    const { secret } = await keyWith('agent-messages', { max_session_requests: 1 })
    const c = anthropic(secret, session())
    const ask = () => c.messages.create({ model: 'openai/gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
    await ask()
    const before = t.fake.received.length
    const err: any = await refusal(ask())
    assert.ok(err instanceof Anthropic.APIError)
    assert.equal(err.status, 402)
    assert.equal(err.headers.get('x-should-retry'), 'false')
    assert.deepEqual(err.error, {
      type: 'error',
      error: {
        type: 'billing_error',
        message: 'this session reached its limit of 1 requests set on key "agent-messages" (1 made) [rule: max_session_requests]',
      },
    })
    assert.equal(t.fake.received.length, before)
    const record = await t.record(err.headers.get('request-id'))
    assert.equal(record.endpoint, 'messages')
    assert.equal(record.error?.code, 'policy_violation')
  })

  it('Messages streaming: refused before the stream starts, with an HTTP 402 in Anthropic’s shape', async () => {
    const { secret } = await keyWith('agent-stream', { max_session_requests: 1 })
    const c = anthropic(secret, session())
    const ask = () => c.messages.create({ model: 'openai/gpt-4o-mini', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] })
    for await (const _ of await ask());
    const err: any = await refusal(ask())
    assert.equal(err.status, 402)
    assert.equal(err.error.error.type, 'billing_error')
    assert.match(err.error.error.message, /^this session reached its limit of 1 requests/)
  })

  it('Responses: OpenAI’s error shape, a 400 that Codex shows once instead of retrying', async () => {
    const { secret } = await keyWith('agent-responses', { max_session_requests: 1 })
    const c = openai(secret, session())
    const ask = () => c.responses.create({ model: 'openai/gpt-5.1', input: 'hi' })
    await ask()
    const before = t.fake.received.length
    const err: any = await refusal(ask())
    assert.equal(err.status, 400)
    assert.equal(err.code, 'policy_violation')
    assert.equal(err.headers.get('x-should-retry'), 'false')
    assert.equal(err.error.message, 'this session reached its limit of 1 requests set on key "agent-responses" (1 made) [rule: max_session_requests]')
    assert.equal(t.fake.received.length, before)
    assert.equal((await t.record(err.headers.get('x-request-id'))).endpoint, 'responses')
  })

  it('another session of the key and requests with no session id are not held by a stopped session', async () => {
    const { secret } = await keyWith('agent-others', { max_session_requests: 1, max_session_usd: C * 1.5 })
    const stopped = openai(secret, session())
    await chat(stopped, 5)
    assert.equal((await refusal(chat(stopped, 5))).status, 400)
    await chat(openai(secret, session()), 5)
    const sessionless = openai(secret)
    for (let i = 0; i < 3; i++) await chat(sessionless, 5)
    // The same session id on another key is another session.
    const other = await keyWith('agent-others-2', { max_session_requests: 1 })
    await chat(openai(other.secret, `sess-${n - 1}`))
  })

  it('8 parallel calls of one session against a limit of 3 requests: exactly 3 reach the provider', async () => {
    const { secret } = await keyWith('agent-burst', { max_session_requests: 3 })
    const c = openai(secret, session())
    // Every admitted call is held upstream, so all 8 are in flight together.
    t.fake.script(...Array.from({ length: 8 }, () => ({ kind: 'delay' as const, ms: 200 })))
    const before = t.fake.received.length
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => chat(c)))
    t.fake.clearScript()
    const ok = results.filter((r) => r.status === 'fulfilled').length
    const refused = results.filter((r) => r.status === 'rejected' && (r.reason as any).status === 400)
    assert.equal(ok, 3)
    assert.equal(refused.length, 5)
    for (const r of refused)
      assert.match((r as PromiseRejectedResult).reason.message, /limit of 3 requests set on key "agent-burst" \(\d made(, \d in flight)?\)/)
    assert.equal(t.fake.received.length - before, 3)
  })

  it('a USD limit with a slow provider: parallel calls never take the session past it, and the next call is refused', async () => {
    const limit = 3.5 * C
    const { id, secret } = await keyWith('agent-usd', { max_session_usd: limit })
    const sid = session()
    const c = openai(secret, sid)
    t.fake.script(...Array.from({ length: 8 }, () => ({ kind: 'delay' as const, ms: 200 })))
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => chat(c, 5)))
    t.fake.clearScript()
    const ok = results.filter((r) => r.status === 'fulfilled').length
    assert.equal(ok, 3, 'each call reserves its expected cost ($0.0000048), so 3 fit in $0.0000168')
    for (const r of results)
      if (r.status === 'rejected') assert.match(r.reason.message, /could take this session past its \$0.000017 limit set on key "agent-usd"/)
    const records = (await t.records()).filter((r) => r.key_id === id && r.attribution.session_id === sid)
    const spent = records.reduce((s, r) => s + (r.cost?.final_usd ?? 0), 0)
    assert.ok(spent <= limit, `session spent ${spent}, limit ${limit}`)
    assert.equal(Math.round(spent * 1e12), Math.round(3 * C * 1e12))
    const next: any = await refusal(chat(c, 5))
    assert.equal(next.status, 400)
    assert.match(
      next.message,
      /could take this session past its \$0.000017 limit set on key "agent-usd" \(\$0.000014 spent, \$0.00 reserved by requests in flight/,
    )
  })

  it('a limit added to a key counts what the session did before', async () => {
    const { id, secret } = await keyWith('agent-late', {})
    const c = openai(secret, session())
    await chat(c)
    await chat(c)
    await admin('keys.update', { id, policy: { max_session_requests: 3 } })
    await chat(c)
    const err: any = await refusal(chat(c))
    assert.match(err.message, /limit of 3 requests set on key "agent-late" \(3 made\)/)
  })

  it('every recorded request of the session counts, read from the store with its record still queued', async () => {
    const { secret } = await keyWith('agent-queued', { max_session_requests: 2 })
    const c = openai(secret, session())
    // Refused before admission, so the session is not in memory yet; its record waits in the writer's queue.
    assert.equal((await refusal(c.chat.completions.create({ model: 'no-such-model', messages: twelveTokens }))).status, 404)
    await chat(c)
    const err: any = await refusal(chat(c))
    assert.match(err.message, /limit of 2 requests set on key "agent-queued" \(2 made\)/)
  })

  it('a session limit on a model with no known price is refused rather than left unbounded', async () => {
    const { secret } = await keyWith('agent-unpriced', { max_session_usd: 1 })
    const err: any = await refusal(openai(secret, session()).chat.completions.create({ model: 'openai/mystery-model', messages: twelveTokens }))
    assert.equal(err.status, 403)
    assert.match(err.message, /per-session spend limit, and openai\/mystery-model has no known price/)
    // Without a session id the limit does not apply.
    await openai(secret).chat.completions.create({ model: 'openai/mystery-model', messages: twelveTokens })
  })

  it('gw keys create and update set and clear the session limits', async () => {
    const { stdout } = await gwCli(['keys', 'create', '--name', 'cli-session', '--max-session-usd', '2', '--max-session-requests', '200', '--json'], {
      dataDir: t.dataDir,
    })
    const created = JSON.parse(stdout)
    assert.deepEqual(created.policy, { max_session_usd: 2, max_session_requests: 200 })
    const { stdout: listed } = await gwCli(['keys', 'list'], { dataDir: t.dataDir })
    assert.match(listed, /≤ \$2\/session; ≤ 200 requests\/session/)
    const { stdout: updated } = await gwCli(['keys', 'update', created.id, '--max-session-usd', 'none', '--json'], { dataDir: t.dataDir })
    assert.deepEqual(JSON.parse(updated).policy, { max_session_requests: 200 })
    const bad = await gwCli(['keys', 'update', created.id, '--max-session-requests', '0'], { dataDir: t.dataDir }).catch((e) => e)
    assert.match(String(bad.stderr ?? bad.message), /--max-session-requests/)
  })

  it('a session passing the alert threshold raises one alert, listed by sessions.alerts with its key and cost', async () => {
    const since = Date.now()
    await admin('settings.update', { session_alert_usd: 2.5 * C })
    try {
      const { id, secret } = await keyWith('agent-alert', {})
      const sid = session()
      const c = openai(secret, sid)
      for (let i = 0; i < 2; i++) await chat(c)
      await chat(openai(secret, session()))
      assert.deepEqual(await admin('sessions.alerts', { since }), [])
      await chat(c)
      await chat(c)
      const alerts = await admin('sessions.alerts', { since })
      assert.equal(alerts.length, 1)
      assert.match(alerts[0].tool ?? '', /^openai-js \d/, 'the tool that made the session')
      assert.deepEqual(
        { ...alerts[0], at: 0, tool: null },
        { at: 0, key_id: id, key_name: 'agent-alert', session_id: sid, tool: null, cost_usd: 3 * C, threshold_usd: 2.5 * C },
      )
      assert.ok(alerts[0].at >= since)
      assert.deepEqual(await admin('sessions.alerts', { since: alerts[0].at + 1 }), [])
    } finally {
      await admin('settings.update', { session_alert_usd: null })
    }
  })
})
