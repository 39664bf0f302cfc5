import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import OpenAI from 'openai'
import { operations, type OperationName } from '../../src/contract'
import { runCli } from '../../src/gateway/cli/runCli'
import { AdminService } from '../../src/gateway/admin/adminService'
import { KeychainSecretStore } from '../../src/gateway/secrets/secretStore'
import { withStoreSql } from '../support/storeFile'
import { startTestGateway, TEST_STORE, type TestGateway } from '../support/harness'

const CSV_HEADER =
  'id,created_at,endpoint,status,outcome,key_id,model,preset,provider,upstream_model,user_id,prompt_tokens,completion_tokens,cost_usd,priced,latency_ms,source,source_tool,instance,soft_cap,cache_hit_of,cache_saved_usd'

interface Res {
  status: number
  body: any
  headers: Headers
  text: string
}

/**
 * Everything a test gateway's store holds, as one who got hold of it would read it: the SQLite
 * file's bytes, or the text of every row of every table of the PostgreSQL database.
 */
async function storeBytes(t: TestGateway): Promise<Buffer> {
  if (TEST_STORE === 'sqlite') return fs.readFileSync(path.join(t.dataDir, 'gateway.db'))
  return withStoreSql(t.dataDir, async (sql) => {
    const tables = await sql.all<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    )
    assert.ok(tables.some((table) => table.name === 'users'))
    const rows: string[] = []
    for (const { name } of tables) {
      for (const r of await sql.all<{ row: string }>(`SELECT CAST(t AS TEXT) AS row FROM "${name}" t`)) rows.push(r.row)
    }
    return Buffer.from(rows.join('\n'))
  })
}

describe('management contract over HTTP and the CLI', () => {
  let t: TestGateway
  let admin: string
  let member: string
  const ids: Record<string, string> = {}

  const call = async (op: string, input: unknown, cookie?: string, headers: Record<string, string> = {}): Promise<Res> => {
    const res = await fetch(`${t.url}/api/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}), ...headers },
      body: JSON.stringify(input),
    })
    const text = await res.text()
    let body: any
    try {
      body = JSON.parse(text)
    } catch {
      body = null
    }
    return { status: res.status, body, headers: res.headers, text }
  }
  const sessionOf = (r: Res) => r.headers.get('set-cookie')!.split(';')[0]

  /** A valid input for every operation, for an admin, given the fixtures made in before(). */
  const samples = (): Record<OperationName, unknown> => ({
    'gateway.status': {},
    'gateway.showLog': {},
    'auth.status': {},
    'auth.setup': { username: 'second-owner', password: 'a long password 2' },
    'auth.signIn': { username: 'owner', password: 'correct horse battery' },
    'auth.signOut': {},
    'users.list': {},
    'users.create': { username: `u${Date.now()}${Math.random().toString(36).slice(2, 6)}`, password: 'member password 1', role: 'member' },
    'users.remove': { id: ids.spareUser },
    'presets.list': {},
    'presets.get': { name: 'p1' },
    'presets.save': { name: 'p2', model: 'gpt-4o-mini', temperature: 0.5 },
    'presets.restore': { name: 'p1', version: 1 },
    'presets.delete': { name: 'doomed' },
    'presets.preview': {
      preset: { name: 'draft', model: 'gpt-4o-mini', system_prompt: 'Be brief.' },
      request: { messages: [{ role: 'user', content: 'hi' }] },
    },
    'aliases.list': {},
    'aliases.set': { pattern: 'contract-*', to: 'gpt-4o-mini' },
    'aliases.remove': { pattern: 'contract-*' },
    'keys.list': {},
    'keys.find': { ref: ids.key },
    'keys.get': { id: ids.key },
    'keys.create': { name: 'made-by-contract-test' },
    'keys.update': { id: ids.key, policy: { rpm: 100 } },
    'keys.revoke': { id: ids.spareKey },
    'keys.deleteResponses': { id: ids.key },
    'keys.topUp': { id: ids.key, amount_usd: 1, note: 'test' },
    'keys.adjust': { id: ids.key, amount_usd: -0.5, note: 'test' },
    'providers.list': {},
    'providers.set': { id: 'extra', kind: 'openai', base_url: 'http://127.0.0.1:9/v1' },
    'providers.remove': { id: 'extra' },
    'providers.test': { id: 'openai' },
    'secrets.status': {},
    'secrets.rotate': { new_key: randomBytes(32).toString('base64') },
    'models.list': {},
    'prices.list': {},
    'prices.get': { model: 'deepseek/deepseek-flash' },
    'prices.set': { model: 'openai/contract-model', row: { input: 1, output: 2, cache_write_1h: 2 } },
    'prices.remove': { model: 'openai/contract-model' },
    'prices.setCalendar': { name: 'cn', calendar: { utc_offset_minutes: 480, holidays: ['2026-10-01'], workdays: [], as_of: '2026-11-23', source: 'test' } },
    'prices.removeCalendar': { name: 'cn' },
    'prices.reprice': { since: '2026-01-01', dry_run: true },
    'prices.refresh': {},
    'requests.list': { filter: { model: 'gpt-4o-mini' }, limit: 10 },
    'requests.export': { filter: { model: 'gpt-4o-mini' } },
    'requests.get': { id: ids.request },
    'analytics.overview': { from: Date.now() - 3600_000, to: Date.now() + 60_000 },
    'analytics.groupBy': { from: Date.now() - 3600_000, to: Date.now() + 60_000, by: 'model' },
    'sessions.list': { filter: { from: Date.now() - 3600_000 } },
    'sessions.get': { id: 'contract-session' },
    'settings.get': {},
    'settings.update': { log_bodies: true },
    'sessions.alerts': { since: 0 },
    'playground.chat': { key_id: ids.key, model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    'cache.stats': {},
    'cache.clear': {},
  })

  before(async () => {
    t = await startTestGateway()
    const setup = await call('auth.setup', { username: 'owner', password: 'correct horse battery' })
    assert.equal(setup.status, 200)
    admin = sessionOf(setup)
    const m = await call('users.create', { username: 'mia', password: 'member password 1', role: 'member' }, admin)
    assert.equal(m.status, 200)
    member = sessionOf(await call('auth.signIn', { username: 'mia', password: 'member password 1' }))
    ids.spareUser = (await call('users.create', { username: 'spare', password: 'spare password 1', role: 'member' }, admin)).body.id
    for (const name of ['p1', 'doomed']) await call('presets.save', { name, model: 'gpt-4o-mini' }, admin)
    const key = await call('keys.create', { name: 'admin-key', balance_usd: 5 }, admin)
    ids.key = key.body.key.id
    ids.keySecret = key.body.secret
    ids.spareKey = (await call('keys.create', { name: 'spare-key' }, admin)).body.key.id
    await call('providers.set', { id: 'extra', kind: 'openai', base_url: 'http://127.0.0.1:9/v1' }, admin)
    await call('prices.set', { model: 'openai/contract-model', row: { input: 1 } }, admin)
    const client = new OpenAI({ baseURL: t.baseURL, apiKey: ids.keySecret, maxRetries: 0 })
    ids.request = (
      (await client.chat.completions.create(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] },
        { headers: { 'X-Gw-Session-Id': 'contract-session' } },
      )) as any
    ).gw.request_id
  })
  after(() => t.close())

  it('has a sample for every operation, and the OpenAPI document lists every one', async () => {
    assert.deepEqual(Object.keys(samples()).sort(), Object.keys(operations).sort())
    const doc: any = await (await fetch(`${t.url}/api/openapi.json`)).json()
    assert.deepEqual(
      Object.keys(doc.paths).sort(),
      Object.keys(operations)
        .map((n) => `/api/${n}`)
        .sort(),
    )
  })

  it('every operation is reachable over HTTP and answers per its contract', async () => {
    const s = samples()
    // No price source is configured: a refresh says so and fetches nothing. A SQLite store keeps
    // provider keys in the keychain: nothing in it to rotate.
    const expected: Partial<Record<OperationName, number>> = {
      'auth.setup': 409,
      'prices.refresh': 409,
      'secrets.rotate': TEST_STORE === 'postgres' ? 200 : 409,
    }
    for (const name of Object.keys(s) as OperationName[]) {
      if (name === 'auth.signOut') continue
      const res = await call(name, s[name], admin)
      assert.equal(res.status, expected[name] ?? 200, `${name}: ${res.text.slice(0, 300)}`)
      if ('stream' in operations[name]) {
        assert.match(res.headers.get('content-type')!, /text\/event-stream/)
        const events = res.text
          .split('\n\n')
          .filter(Boolean)
          .map((e) => JSON.parse(e.slice('data: '.length)))
        assert.ok(events.some((e) => e.type === 'delta'))
        assert.equal(events.at(-1).type, 'done')
        assert.equal(typeof events.at(-1).gw.cost.final_usd, 'number')
      } else if (res.status === 200) {
        assert.ok(operations[name].output.safeParse(res.body).success, `${name} output matches the contract`)
      }
    }
    const out = await call('auth.signOut', {}, admin)
    assert.equal(out.status, 200)
    assert.match(out.headers.get('set-cookie')!, /gw_session=;.*Max-Age=0/)
    assert.equal((await call('keys.list', {}, admin)).status, 401, 'the session is over')
    admin = sessionOf(await call('auth.signIn', { username: 'owner', password: 'correct horse battery' }))
  })

  it('every operation rejects invalid input with a clear message naming the field', async () => {
    for (const name of Object.keys(operations) as OperationName[]) {
      const res = await call(name, { not_a_field: 1 }, admin)
      assert.equal(res.status, 400, `${name}: ${res.text.slice(0, 200)}`)
      assert.equal(res.body.error.code, 'invalid_input')
      assert.match(res.body.error.message, /not_a_field|Unrecognized key|expected|required/i, name)
    }
    const bad = await call('presets.save', { name: 'Bad Name', model: 'gpt-4o-mini' }, admin)
    assert.equal(bad.body.error.field, 'name')
    const range = await call('presets.save', { name: 'ok', model: 'gpt-4o-mini', top_p: 2 }, admin)
    assert.equal(range.body.error.field, 'top_p')
    assert.match(range.body.error.message, /top_p: must be between 0 and 1/)
    // An amount past any real one is refused by field, not turned into a server error.
    for (const [name, input, field] of [
      ['keys.topUp', { id: ids.key, amount_usd: 1e300 }, 'amount_usd'],
      ['keys.adjust', { id: ids.key, amount_usd: -1e22, note: 'typo' }, 'amount_usd'],
      ['keys.update', { id: ids.key, daily_limit_usd: 5e9 }, 'daily_limit_usd'],
      // Past what 64-bit pico-dollars hold ($9,223,372): once an internal error when stored.
      ['keys.create', { name: 'rich', balance_usd: 1e9 }, 'balance_usd'],
    ] as const) {
      const res = await call(name, input, admin)
      assert.equal(res.status, 400, name)
      assert.equal(res.body.error.field, field, name)
      assert.match(res.body.error.message, /must be (at most |at least -)1,000,000$/, name)
    }
  })

  it('every operation refuses callers without permission', async () => {
    for (const [name, op] of Object.entries(operations) as Array<[OperationName, (typeof operations)[OperationName]]>) {
      if (op.access === 'public') continue
      const anonymous = await call(name, samples()[name], undefined)
      assert.equal(anonymous.status, 401, `${name} without a session`)
      assert.equal(anonymous.body.error.code, 'unauthenticated')
      if (op.access === 'admin') {
        const asMember = await call(name, samples()[name], member)
        assert.equal(asMember.status, 403, `${name} as a member`)
        assert.equal(asMember.body.error.code, 'forbidden')
      }
    }
  })

  it('a member sees and uses only their own keys and requests', async () => {
    const mine = await call('keys.create', { name: 'mia-key' }, member)
    assert.equal(mine.status, 200)
    const keys = (await call('keys.list', {}, member)).body
    assert.deepEqual(
      keys.map((k: any) => k.name),
      ['mia-key'],
    )
    assert.equal((await call('keys.get', { id: ids.key }, member)).status, 404)
    assert.equal((await call('requests.get', { id: ids.request }, member)).status, 404)
    assert.equal((await call('requests.list', {}, member)).body.total, 0)
    assert.deepEqual(
      (await call('requests.export', {}, member)).body,
      { csv: `${CSV_HEADER}\r\n`, rows: 0, truncated: false },
      'nobody else’s requests in an export',
    )
    assert.equal((await call('playground.chat', { key_id: ids.key, model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }, member)).status, 404)
    const limited = await call('keys.update', { id: mine.body.key.id, policy: {} }, member)
    assert.equal(limited.status, 403, 'members cannot set policies')
    const own = await call('playground.chat', { key_id: mine.body.key.id, model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }, member)
    assert.equal(own.status, 200)
    const listed = (await call('requests.list', {}, member)).body
    assert.equal(listed.total, 1)
    assert.equal(listed.items[0].source, 'playground')
    const exported = (await call('requests.export', {}, member)).body
    assert.equal(exported.rows, 1)
    assert.ok(exported.csv.split('\r\n')[1].startsWith(`${listed.items[0].id},`))
  })

  it('every operation is reachable from the CLI as the local operator', async () => {
    const s = samples()
    const runOne = async (name: OperationName, input: unknown) => {
      const out: string[] = []
      const err: string[] = []
      const store = t.databaseUrl ? ['--database-url', t.databaseUrl] : []
      const code = await runCli(['api', name, '--input', JSON.stringify(input), '--data-dir', t.dataDir, ...store], {
        out: (x) => out.push(x),
        err: (x) => err.push(x),
        readStdin: async () => '',
        env: { OPENAI_API_KEY: t.fake.apiKey },
        secrets: new KeychainSecretStore('GW Gateway test'),
        untilStopped: async () => {},
      })
      return { code, out: out.join('\n'), err: err.join('\n') }
    }
    for (const name of Object.keys(s) as OperationName[]) {
      const input = name === 'presets.delete' ? { name: 'p2' } : name === 'users.remove' ? { id: ids.spareUser } : s[name]
      const r = await runOne(name, input)
      const error = r.err ? JSON.parse(r.err).error : null
      // Reachable: the operation ran and answered per the contract (a refusal of this particular
      // input, e.g. a removed user or an existing owner, still proves the route).
      assert.notEqual(error?.code, 'unknown_operation', name)
      assert.notEqual(error?.code, 'unauthenticated', name)
      assert.notEqual(error?.code, 'invalid_input', `${name}: ${r.err}`)
    }
    const bad = await runOne('keys.create', { name: '' })
    assert.equal(bad.code, 1)
    assert.equal(JSON.parse(bad.err).error.field, 'name')
  })

  it('keeps sessions and passwords safe', async () => {
    const res = await call('auth.signIn', { username: 'owner', password: 'correct horse battery', remember: true })
    const cookie = res.headers.get('set-cookie')!
    assert.match(cookie, /HttpOnly/)
    assert.match(cookie, /SameSite=Strict/)
    assert.match(cookie, /Max-Age=\d+/)
    const db = await storeBytes(t)
    assert.equal(db.includes('correct horse battery'), false)
    assert.equal(db.includes(cookie.split(';')[0].split('=')[1]), false, 'only a hash of the session token is stored')
    const cross = await call('keys.list', {}, admin, { origin: 'https://evil.example' })
    assert.equal(cross.status, 403)
    assert.equal(cross.body.error.code, 'cross_site')
  })

  it('throttles sign-in attempts', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await call('auth.signIn', { username: 'mia', password: 'wrong password!!' })
      assert.equal(r.status, 401)
      assert.equal(r.body.error.message, 'Wrong user name or password.')
    }
    const blocked = await call('auth.signIn', { username: 'mia', password: 'member password 1' })
    assert.equal(blocked.status, 429)
    assert.match(blocked.body.error.message, /try again in \d+ s/)
  })
})

describe('settings take effect', () => {
  it('retention deletes records older than the setting, with their tags', async () => {
    const t = await startTestGateway()
    try {
      const gw = t.running.gateway
      await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], gw: { tags: ['old'] } } as any)
      await t.records(1)
      await withStoreSql(t.dataDir, (sql) => sql.run(`UPDATE requests SET created_at = created_at - 10 * 86400000`))
      await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'y' }] })
      await t.records(2)
      await gw.store.settings.write({ retention_days: 7 })
      await gw.refresh()
      assert.equal(await gw.pruneRecords(), 1)
      assert.equal((await gw.store.requests.list()).length, 1)
      assert.equal((await withStoreSql(t.dataDir, (sql) => sql.get<{ n: number }>(`SELECT count(*) AS n FROM request_tags`)))?.n, 0)
    } finally {
      await t.close()
    }
  })

  it('body logging keeps what the client sent and got, only while on', async () => {
    const t = await startTestGateway()
    try {
      const gw = t.running.gateway
      const admin = new AdminService(gw, { base_url: t.baseURL, version: 'test', data_dir: t.dataDir, log_file: null, log_rotation: null, metrics: null })
      const operator = {
        user: { id: 'operator', username: 'cli:test', role: 'admin' as const, created_at: 0 },
        sessionToken: null,
        address: 'local',
        operator: true,
      }
      const detail = async (id: string) => {
        const { result } = await admin.invoke('requests.get', { id }, operator)
        assert.ok(result.ok, JSON.stringify(result))
        return result.value as any
      }
      const off: any = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'private' }] })
      await gw.store.settings.write({ log_bodies: true })
      const on: any = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'logged' }] })
      const embedded: any = await t.client.embeddings.create({ model: 'text-embedding-3-small', input: 'logged too', encoding_format: 'float' })
      const stream = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'streamed' }], stream: true })
      let sid = ''
      for await (const c of stream) sid = (c as any).gw?.request_id ?? sid
      await t.record(sid)
      assert.equal((await detail(off.gw.request_id)).bodies, null)
      const kept = (await detail(on.gw.request_id)).bodies
      assert.equal(kept.request.messages[0].content, 'logged')
      // Exactly what went out, gw included, though the store keeps the answer without the block
      // (its routing and cost are the record's own fields).
      assert.deepEqual(kept.response, on)
      assert.deepEqual((await detail(embedded.gw.request_id)).bodies.response, embedded)
      const stored = (await gw.store.requests.bodies(on.gw.request_id))!.response as any
      assert.equal(stored.gw, undefined)
      assert.equal(stored.choices[0].message.content, on.choices[0].message.content)
      assert.equal((await detail(sid)).bodies.response.content, 'Hello from the fake provider.')
    } finally {
      await t.close()
    }
  })
})
