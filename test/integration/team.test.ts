import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import OpenAI from 'openai'
import pg from 'pg'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { pgTypes } from '../../src/gateway/store/postgres/pgSql'
import { migrations } from '../../src/gateway/store/migrations'
import { findRunning, OPERATOR_HEADER } from '../../src/gateway/http/api/runningGateway'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { MemorySecretStore } from '../support/memorySecretStore'
import { postgresSkipReason, sharedPostgres } from '../support/postgres'
import { waitUntil } from '../support/waitUntil'
import { gwCli, tempDir } from '../support/harness'

const LATEST = Math.max(...migrations.map((m) => m.version))

/** A management operation on a gateway, as the dashboard calls it: status, body, and the session cookie it set. */
async function api(gateway: RunningGateway, op: string, input: unknown, cookie?: string) {
  const res = await fetch(`${gateway.url}/api/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(input),
  })
  return { status: res.status, body: (await res.json()) as any, cookie: res.headers.get('set-cookie')?.split(';')[0] }
}

/** The same as the local operator, with the token the gateway announced in its data dir. */
async function asOperator(gateway: RunningGateway, op: string, input: unknown) {
  const res = await fetch(`${gateway.url}/api/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [OPERATOR_HEADER]: findRunning(gateway.config.dataDir)!.operator_token },
    body: JSON.stringify(input),
  })
  return { status: res.status, body: (await res.json()) as any }
}

/**
 * Several gateways on one PostgreSQL database, started together on an empty one: the schema is
 * applied once, and a change made through one gateway or the CLI reaches the others' next requests.
 */
describe('three gateways on one PostgreSQL database', { skip: postgresSkipReason() ?? false }, () => {
  let fake: FakeOpenAI
  let databaseUrl: string
  let gateways: RunningGateway[]
  const dataDirs: string[] = []
  const owner = { username: 'owner', password: 'team owner password', remember: false }

  const start = (url: string, instanceName?: string) => {
    const dataDir = tempDir()
    dataDirs.push(dataDir)
    return startGateway(
      { host: '127.0.0.1', port: 0, dataDir, databaseUrl: url, logLevel: 'silent', instanceName },
      { env: { OPENAI_API_KEY: fake.apiKey }, secrets: new MemorySecretStore(), routing: { maxRetries: 0 } },
    )
  }
  const chat = (gateway: RunningGateway, key: string) =>
    new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 }).chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => 200,
        (err: { status?: number }) => err.status ?? 0,
      )

  before(async () => {
    fake = await startFakeOpenAI()
    databaseUrl = await (await sharedPostgres()).createDatabase()
    // At the same moment, on an empty database: they queue on the migration lock.
    // A and B keep the default name (host name and port); C is named.
    gateways = await Promise.all([start(databaseUrl), start(databaseUrl), start(databaseUrl, 'gateway-c')])
  })
  after(async () => {
    await Promise.all((gateways ?? []).map((g) => g.close()))
    await fake.close()
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true })
  })

  it('all come up, and the schema is applied once', async () => {
    for (const g of gateways) assert.equal((await fetch(`${g.url}/healthz`)).status, 200)
    const pool = new pg.Pool({ connectionString: databaseUrl, types: pgTypes })
    try {
      const meta = (await pool.query<{ key: string; value: string }>(`SELECT key, value FROM meta ORDER BY key`)).rows
      assert.deepEqual(meta, [
        { key: 'config_rev', value: '0' },
        { key: 'schema_version', value: String(LATEST) },
      ])
    } finally {
      await pool.end()
    }
  })

  it('a key made through one gateway works on the others within a second, and one revoked by the CLI stops within a second', async (t) => {
    const [a, b, c] = gateways
    await a.gateway.store.providers.upsert('openai', 'openai', fake.url)
    const { secret, info } = await a.gateway.store.keys.create('team')
    const reachedB = await waitUntil(async () => (await chat(b, secret)) === 200, { what: 'the new key works on B', timeoutMs: 1000 })
    const reachedC = await waitUntil(async () => (await chat(c, secret)) === 200, { what: 'the new key works on C', timeoutMs: 1000 })
    await gwCli(['keys', 'revoke', info.id, '--database-url', databaseUrl], { dataDir: dataDirs[0] })
    const stoppedB = await waitUntil(async () => (await chat(b, secret)) === 401, { what: 'the revoked key refused on B', timeoutMs: 1000 })
    const stoppedA = await waitUntil(async () => (await chat(a, secret)) === 401, { what: 'the revoked key refused on A', timeoutMs: 1000 })
    t.diagnostic(`created: on B after ${reachedB} ms, C after ${reachedC} ms; revoked by the CLI: B refused after ${stoppedB} ms, A after ${stoppedA} ms`)
  })

  it('a preset changed through one gateway’s management API steers the next request on the others within a second', async (t) => {
    const [a, b, c] = gateways
    await a.gateway.store.providers.upsert('openai', 'openai', fake.url)
    const { secret } = await a.gateway.store.keys.create('team-presets')
    const save = async (systemPrompt: string) =>
      assert.equal((await asOperator(a, 'presets.save', { name: 'team', model: 'gpt-4o-mini', system_prompt: systemPrompt })).status, 200)
    /** The system prompt the provider got for a request through `gateway` naming the preset. */
    const systemSent = async (gateway: RunningGateway) => {
      await new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: secret, maxRetries: 0 }).chat.completions.create({
        model: '@preset/team',
        messages: [{ role: 'user', content: 'hi' }],
      })
      return fake.received.at(-1)!.body.messages[0].content as string
    }
    await save('first version')
    await waitUntil(async () => (await systemSent(b)) === 'first version', { what: 'the first version steers B', timeoutMs: 1000 })
    await save('second version')
    const onB = await waitUntil(async () => (await systemSent(b)) === 'second version', { what: 'the second version steers B', timeoutMs: 1000 })
    const onC = await waitUntil(async () => (await systemSent(c)) === 'second version', { what: 'the second version steers C', timeoutMs: 1000 })
    t.diagnostic(`a preset saved through A steered B's requests after ${onB} ms, C's after ${onC} ms`)
  })

  it('records name the gateway that served them, and every gateway lists, filters and groups every gateway’s requests; a Responses conversation continues on any gateway', async () => {
    const [a, b, c] = gateways
    const names = [`${os.hostname()}:${a.config.port}`, `${os.hostname()}:${b.config.port}`, 'gateway-c']
    assert.deepEqual(
      gateways.map((g) => g.gateway.instance),
      names,
    )
    // Chat completions only: the gateway keeps the Responses state itself, in the database.
    await a.gateway.store.providers.upsert('openai', 'openai', fake.url, {}, 'chat')
    const { secret, info } = await a.gateway.store.keys.create('records')
    await Promise.all(gateways.map((g) => g.gateway.configChanged()))
    const clients = gateways.map((g) => new OpenAI({ baseURL: `${g.url}/v1`, apiKey: secret, maxRetries: 0 }))
    const servedBy = new Map<string, string>()

    for (const [i, client] of clients.entries()) {
      for (let n = 0; n < 3; n++) {
        const { data } = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hi ${n}` }] }).withResponse()
        servedBy.set((data as any).gw.request_id, names[i])
      }
    }
    // Started on A, continued on B, then on C: each turn finds the one before in the database.
    const turns = ['Remember 42.', 'And now?', 'Once more?']
    let previous: string | undefined
    for (const [i, client] of clients.entries()) {
      fake.script({ kind: 'reply', content: `answer ${i}` })
      const res = await client.responses.create({ model: 'openai/gpt-4o-mini', input: turns[i], store: true, previous_response_id: previous })
      assert.equal(res.output_text, `answer ${i}`)
      assert.equal(res.previous_response_id, previous ?? null)
      previous = res.id
      servedBy.set((res as any).gw.request_id, names[i])
    }
    assert.deepEqual(
      (fake.received.at(-1)!.body.messages as Array<{ role: string; content: string }>).map((m) => `${m.role}: ${m.content}`),
      ['user: Remember 42.', 'assistant: answer 0', 'user: And now?', 'assistant: answer 1', 'user: Once more?'],
      'C sent the whole conversation, from turns A and B kept',
    )
    assert.equal(servedBy.size, 12, 'request ids are unique across gateways')

    await Promise.all(gateways.map((g) => g.gateway.records.flushed()))
    for (const g of gateways) {
      const listed = await asOperator(g, 'requests.list', { filter: { key_id: info.id }, limit: 100 })
      assert.equal(listed.status, 200)
      assert.equal(listed.body.total, 12, `every gateway's requests on ${g.gateway.instance}`)
      assert.deepEqual(Object.fromEntries(listed.body.items.map((r: { id: string; instance: string }) => [r.id, r.instance])), Object.fromEntries(servedBy))
      const onB = await asOperator(g, 'requests.list', { filter: { key_id: info.id, instance: names[1] } })
      assert.deepEqual(
        onB.body.items.map((r: { instance: string }) => r.instance),
        [names[1], names[1], names[1], names[1]],
      )
      const groups = await asOperator(g, 'analytics.groupBy', { from: 0, to: Date.now() + 60_000, by: 'instance', filter: { key_id: info.id } })
      assert.deepEqual(groups.body.map((x: { value: string; requests: number }) => [x.value, x.requests]).sort(), names.map((n) => [n, 4]).sort())
    }
    const csv = (await asOperator(c, 'requests.export', { filter: { key_id: info.id, instance: 'gateway-c' } })).body.csv as string
    const [header, ...lines] = csv.trimEnd().split('\r\n')
    const column = header.split(',').indexOf('instance')
    assert.ok(column > 0)
    assert.deepEqual(
      lines.map((l) => l.split(',')[column]),
      ['gateway-c', 'gateway-c', 'gateway-c', 'gateway-c'],
    )
    const detail = await asOperator(b, 'requests.get', { id: [...servedBy].find(([, n]) => n === names[0])![0] })
    assert.equal(detail.body.record.instance, names[0])
  })

  it('a dashboard session made on one gateway is valid on the others, and signing out on one ends it on all', async () => {
    const [a, b, c] = gateways
    const setup = await api(a, 'auth.setup', { username: owner.username, password: owner.password })
    assert.equal(setup.status, 200)
    const signedIn = await api(b, 'auth.signIn', owner)
    assert.equal(signedIn.status, 200)
    const session = signedIn.cookie!
    for (const g of [a, b, c]) {
      assert.equal((await api(g, 'auth.status', {}, session)).body.user?.username, 'owner', `signed in on ${g.url}`)
      assert.equal((await api(g, 'keys.list', {}, session)).status, 200)
    }
    assert.equal((await api(c, 'auth.signOut', {}, session)).status, 200)
    for (const g of [a, b, c]) {
      assert.equal((await api(g, 'auth.status', {}, session)).body.user, null, `signed out on ${g.url}`)
      const refused = await api(g, 'keys.list', {}, session)
      assert.equal(refused.status, 401)
      assert.equal(refused.body.error.code, 'unauthenticated')
    }
  })

  it('40 wrong passwords sent at once over three gateways get exactly 5 password checks; the right one is then refused everywhere', async (t) => {
    const [a, b, c] = gateways
    await api(a, 'users.create', { username: 'mia', password: 'member password 1', role: 'member' }, (await api(a, 'auth.signIn', owner)).cookie)
    const started = performance.now()
    const answers = await Promise.all(
      gateways.flatMap((g, i) => Array.from({ length: i === 0 ? 14 : 13 }, () => api(g, 'auth.signIn', { username: 'mia', password: 'a wrong guess!!' }))),
    )
    t.diagnostic(`40 attempts over 3 gateways answered in ${Math.round(performance.now() - started)} ms`)
    assert.equal(answers.length, 40)
    assert.equal(answers.filter((r) => r.status === 401).length, 5, 'checked')
    assert.equal(answers.filter((r) => r.status === 429).length, 35, 'refused before any check')
    for (const r of answers.filter((r) => r.status === 429)) assert.match(r.body.error.message, /^Too many failed sign-ins; try again in \d+ s\.$/)
    for (const g of [a, b, c]) {
      const right = await api(g, 'auth.signIn', { username: 'MIA', password: 'member password 1' })
      assert.equal(right.status, 429, `the right password on ${g.url}`)
      assert.equal(right.body.error.code, 'too_many_attempts')
    }
  })

  it('a gateway older than the database schema refuses to start, saying so', async () => {
    const url = await (await sharedPostgres()).createDatabase()
    const pool = new pg.Pool({ connectionString: url })
    try {
      await pool.query(`CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL)`)
      await pool.query(`INSERT INTO meta (key, value) VALUES ('schema_version', '99')`)
    } finally {
      await pool.end()
    }
    await assert.rejects(start(url), new RegExp(`the database has schema version 99, newer than this build knows \\(${LATEST}\\); upgrade GW Gateway`))
  })
})
