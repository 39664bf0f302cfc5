import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import OpenAI from 'openai'
import pg from 'pg'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { KeychainSecretStore } from '../../src/gateway/secrets/secretStore'
import { DB_FILE } from '../../src/gateway/store/db'
import { SqliteSql } from '../../src/gateway/store/sqliteSql'
import { PgSql, pgTypes } from '../../src/gateway/store/postgres/pgSql'
import { announceRunning } from '../../src/gateway/http/api/runningGateway'
import { startTestGateway, tempDir, type TestGateway } from '../support/harness'
import { keepTurn } from '../support/keptResponse'
import { postgresSkipReason, sharedPostgres } from '../support/postgres'
import { ROOT } from '../support/build'
import { everyRow } from '../support/storeRows'

const run = promisify(execFile)

/** The local operator, as the CLI and the desktop app call the admin service. */
const operator = { user: { id: 'operator', username: 'cli:test', role: 'admin' as const, created_at: 0 }, sessionToken: null, address: 'local', operator: true }

async function admin(running: RunningGateway, name: string, input: unknown): Promise<any> {
  const { result } = await running.admin.invoke(name, input, operator)
  assert.ok(result.ok, `${name}: ${JSON.stringify(result)}`)
  return result.value
}

/** The real `gw` in a process of its own, with no store of the environment's. */
async function gw(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env }
  for (const k of ['GW_DATA_DIR', 'GW_DATABASE_URL', 'GW_DATABASE_SCHEMA']) delete env[k]
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(ROOT, 'bin/gw.mjs'), ...args], { cwd: ROOT, env })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

/** Every row of the SQLite store in a data dir. */
async function sqliteRows(dataDir: string): Promise<Record<string, unknown[]>> {
  const db = new Database(path.join(dataDir, DB_FILE), { readonly: true })
  try {
    return await everyRow(new SqliteSql(db))
  } finally {
    db.close()
  }
}

/** Every row of the PostgreSQL store in a schema. */
async function postgresRows(url: string, schema: string): Promise<Record<string, unknown[]>> {
  const pool = new pg.Pool({ connectionString: url, types: pgTypes, options: `-c search_path=${schema}` })
  try {
    return await everyRow(new PgSql(pool))
  } finally {
    await pool.end()
  }
}

describe('gw store copy: a desktop store into an empty PostgreSQL database', { skip: postgresSkipReason() ?? false }, () => {
  const cleanup: Array<() => Promise<void> | void> = []
  after(async () => {
    for (const c of cleanup.reverse()) await c()
  })

  it('copies every table exactly; keys, balances, records, presets and stored responses work on the team gateway; a second copy and a bad URL are one line each', async () => {
    // The desktop: a SQLite store whatever GW_TEST_STORE says.
    const desktop: TestGateway = await startTestGateway({ databaseUrl: undefined })
    cleanup.push(() => desktop.fake.close())
    cleanup.push(() => fs.rmSync(desktop.dataDir, { recursive: true, force: true }))
    const d = desktop.running
    const store = d.gateway.store

    const owner = await admin(d, 'auth.setup', { username: 'Owner', password: 'correct horse battery' })
    await admin(d, 'settings.update', { log_bodies: true })
    const prepaid = await admin(d, 'keys.create', { name: 'prepaid', balance_usd: 5 })
    await admin(d, 'keys.topUp', { id: prepaid.key.id, amount_usd: 2.5, note: 'more credit' })
    await admin(d, 'presets.save', { name: 'house', model: 'gpt-4o-mini', system_prompt: 'Be brief.' })
    await admin(d, 'presets.save', { name: 'house', model: 'gpt-4o-mini', system_prompt: 'Be very brief.', temperature: 0.2, description: 'v2' })
    await admin(d, 'aliases.set', { pattern: 'fast-*', to: 'openai/gpt-4o-mini', note: 'cheap and quick' })
    await admin(d, 'prices.setCalendar', {
      name: 'cn',
      calendar: { utc_offset_minutes: 480, holidays: ['2027-02-06'], workdays: ['2027-02-14'], as_of: '2026-12-01', source: 'test' },
    })

    const client = new OpenAI({ baseURL: desktop.baseURL, apiKey: prepaid.secret, maxRetries: 0 })
    const ids: string[] = []
    for (let i = 0; i < 3; i++) {
      const res = await client.chat.completions
        .create({
          model: i === 2 ? 'fast-model' : 'gpt-4o-mini',
          messages: [{ role: 'user', content: `question ${i} — naïve “quotes” 🚀` }],
          gw: { tags: ['copy-test', `n${i}`], extra: { team: 'infra', run: String(i) }, session_id: 'sess-1' },
        } as OpenAI.ChatCompletionCreateParamsNonStreaming)
        .withResponse()
      ids.push(res.response.headers.get('x-request-id')!)
    }
    const streamed = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'stream it' }], stream: true })
      .withResponse()
    for await (const _ of streamed.data) void _
    ids.push(streamed.response.headers.get('x-request-id')!)
    await desktop.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'on the unlimited key' }] })
    const records = await desktop.records(5)
    assert.equal(records.length, 5)
    // A price override, then a repricing of today's records: a cost history and a ledger adjustment.
    await admin(d, 'prices.set', { model: 'openai/gpt-4o-mini', row: { input: 1, output: 2 }, note: 'team rate' })
    const repriced = await admin(d, 'prices.reprice', { since: new Date().toISOString().slice(0, 10) })
    assert.ok(repriced.changed >= 4, JSON.stringify(repriced))
    const first = await keepTurn(store.responses, prepaid.key.id, 'tides')
    const second = await keepTurn(store.responses, prepaid.key.id, 'moons', { previous: first })

    // What the desktop shows, to compare with what the team gateway shows.
    const now = Date.now()
    const shown = async (running: RunningGateway) => {
      const list = await admin(running, 'requests.list', { limit: 500 })
      return {
        key: await admin(running, 'keys.get', { id: prepaid.key.id, ledger_limit: 100 }),
        pico: await running.gateway.store.ledger.balance(prepaid.key.id),
        list,
        details: await Promise.all(list.items.map((r: { id: string }) => admin(running, 'requests.get', { id: r.id }))),
        records: await Promise.all(list.items.map((r: { id: string }) => running.gateway.store.requests.get(r.id))),
        preset: await admin(running, 'presets.get', { name: 'house' }),
        aliases: await admin(running, 'aliases.list', {}),
        prices: await admin(running, 'prices.list', {}),
        settings: await admin(running, 'settings.get', {}),
        users: await admin(running, 'users.list', {}),
        response: await running.gateway.store.responses.get(second, prepaid.key.id, now),
        conversation: await running.gateway.store.responses.conversation(second, prepaid.key.id, now),
      }
    }
    const before = await shown(d)
    assert.equal(before.preset.versions.length, 2)
    assert.ok(before.pico > 0n && before.pico < 7_500_000_000_000n, 'spent from $7.50 of top-ups')
    assert.equal(before.key.ledger.length, 2 + 4 + 4, 'two top-ups, four debits, four repricing adjustments')
    assert.ok(before.details.some((r: any) => r.bodies !== null && r.cost_history.length > 0))
    assert.equal(before.conversation?.length, 4)
    assert.ok(ids.every((id) => before.list.items.some((r: { id: string }) => r.id === id)))
    const unlimitedId = (await admin(d, 'keys.list', {})).find((k: { name: string }) => k.name === 'test').id
    await d.close()
    // An amount no JavaScript number holds (2^53 + 1 pico-dollars), as only the store writes it.
    const raw = new Database(path.join(desktop.dataDir, DB_FILE))
    raw
      .prepare(`INSERT INTO ledger (key_id, created_at, amount_pico, kind, actor, note) VALUES (?, ?, ?, 'adjustment', 'test', 'past 2^53')`)
      .run(unlimitedId, Date.now(), 9_007_199_254_740_993n)
    raw.close()
    const rowsBefore = await sqliteRows(desktop.dataDir)
    assert.deepEqual(
      Object.entries(rowsBefore).filter(([, rows]) => rows.length === 0),
      [],
      'the desktop store has something in every table',
    )

    // The copy, as an operator runs it.
    const server = await sharedPostgres()
    const url = await server.createDatabase()
    const copy = await gw(['store', 'copy', '--from-data-dir', desktop.dataDir, '--to', url, '--database-schema', 'team'])
    assert.equal(copy.code, 0, copy.stderr)
    assert.equal(copy.stderr, '')
    for (const [t, rows] of Object.entries(rowsBefore)) assert.match(copy.stdout, new RegExp(`^ +${t} +${rows.length}$`, 'm'), `${t} in:\n${copy.stdout}`)
    const total = Object.values(rowsBefore).reduce((n, rows) => n + rows.length, 0)
    assert.match(copy.stdout, new RegExp(`^copied ${total} rows in 17 tables in [\\d.]+ s, in one transaction\\.$`, 'm'))
    assert.match(copy.stdout, /^not copied: sessions \(1 row\): dashboard sign-ins/m)
    assert.match(copy.stdout, /^not copied: provider_secrets \(0 rows\): provider API keys, which a desktop keeps in its OS keychain/m)

    // Byte for byte: every row of every table, in order, JSON and bodies as text.
    assert.deepEqual(await postgresRows(url, 'team'), rowsBefore)

    // The team's gateway on that database: same provider (the fake), same answers.
    const teamDir = tempDir()
    cleanup.push(() => fs.rmSync(teamDir, { recursive: true, force: true }))
    const team = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir: teamDir, logLevel: 'silent', databaseUrl: url, databaseSchema: 'team' },
      { env: { OPENAI_API_KEY: desktop.fake.apiKey }, secrets: new KeychainSecretStore('GW Gateway test'), routing: { maxRetries: 0 } },
    )
    cleanup.push(() => team.close())
    const afterCopy = await shown(team)
    assert.deepEqual(afterCopy, before)
    assert.equal(afterCopy.pico, before.pico)
    assert.equal(await team.gateway.store.ledger.balance(unlimitedId), 9_007_199_254_740_993n)

    // The owner signs in with their password.
    const signIn = await team.admin.invoke(
      'auth.signIn',
      { username: 'owner', password: 'correct horse battery' },
      { ...operator, operator: false, user: null },
    )
    assert.ok(signIn.result.ok, JSON.stringify(signIn.result))
    assert.equal((signIn.result as any).value.id, owner.id)

    // The old secrets authenticate; a new request is recorded after the copied ones, its debit after their ledger.
    const teamClient = new OpenAI({ baseURL: `${team.url}/v1`, apiKey: prepaid.secret, maxRetries: 0 })
    const answer = await teamClient.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello team' }] }).withResponse()
    assert.equal(answer.data.choices[0].message.role, 'assistant')
    const newId = answer.response.headers.get('x-request-id')!
    const unlimited = new OpenAI({ baseURL: `${team.url}/v1`, apiKey: desktop.key, maxRetries: 0 })
    await unlimited.chat.completions.create({ model: 'fast-model', messages: [{ role: 'user', content: 'alias still there' }] })
    await team.gateway.records.flushed()
    const newest = await admin(team, 'requests.list', { limit: 500 })
    assert.equal(newest.total, 7)
    assert.equal(newest.items[1].id, newId)
    assert.deepEqual(
      newest.items.slice(2).map((r: any) => r.id),
      before.list.items.map((r: any) => r.id),
    )
    // Identity sequences moved past the copied ids: a top-up and a repricing insert new rows.
    await admin(team, 'keys.topUp', { id: prepaid.key.id, amount_usd: 1 })
    await admin(team, 'prices.set', { model: 'openai/gpt-4o-mini', row: { input: 2, output: 4 } })
    const again = await admin(team, 'prices.reprice', { since: new Date().toISOString().slice(0, 10) })
    assert.ok(again.changed >= 6, JSON.stringify(again))
    const key = await admin(team, 'keys.get', { id: prepaid.key.id, ledger_limit: 100 })
    assert.ok(key.ledger.length > before.key.ledger.length + 2)

    // A second copy into the same database is refused, saying what is there; nothing changes.
    const refused = await gw(['store', 'copy', '--from-data-dir', desktop.dataDir, '--to', url, '--database-schema', 'team'])
    assert.equal(refused.code, 1)
    assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr)
    assert.match(
      refused.stderr,
      /^gw: the database at postgres:\/\/gw@127\.0\.0\.1:\d+\/gw_test_\w+ \(schema team\) already holds 1 user, 2 keys, 1 preset, 1 alias, 1 provider, 1 price override, 1 calendar override, 1 setting, 7 request records, 2 stored responses and 1 dashboard session: a copy goes only into an empty one, and nothing was copied\n$/,
    )
    assert.equal((await admin(team, 'requests.list', { limit: 1 })).total, 7)

    // Into another schema of the same database, which is empty, while a gateway still runs on the data dir: said.
    const announced = announceRunning(desktop.dataDir, 'http://127.0.0.1:1', 'token')
    const other = await gw(['store', 'copy', '--from-data-dir', desktop.dataDir, '--to', url, '--database-schema', 'other'])
    assert.equal(other.code, 0, other.stderr)
    assert.match(other.stdout, /^A gateway is running on .*: what it records from now on is not in the copy\. Stop it before you switch\.$/m)
    announced.withdraw()
    const json = await gw(['store', 'copy', '--from-data-dir', desktop.dataDir, '--to', url, '--database-schema', 'third', '--json'])
    assert.equal(json.code, 0, json.stderr)
    const report = JSON.parse(json.stdout)
    assert.equal(report.rows, total)
    assert.equal(report.tables.requests, 5)
    assert.equal(report.schema, 'third')
    assert.equal(report.gateway_running, false)
    assert.deepEqual(await postgresRows(url, 'third'), rowsBefore)

    // Mistakes are one line each, never a stack.
    const oneLine = async (args: string[], expected: RegExp) => {
      const r = await gw(['store', 'copy', ...args])
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stdout}`)
      assert.equal(r.stdout, '')
      assert.match(r.stderr, expected)
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
    }
    await oneLine(
      ['--from-data-dir', desktop.dataDir, '--to', 'mysql://gw:secret@db/gw'],
      /^gw: --to: "mysql:\/\/gw:\*\*\*@db\/gw" is not a postgres:\/\/ or postgresql:\/\/ URL\n$/,
    )
    await oneLine(
      ['--from-data-dir', desktop.dataDir, '--to', 'postgres://gw:secret@127.0.0.1:1/gw'],
      /^gw: cannot open the PostgreSQL store at postgres:\/\/gw:\*\*\*@127\.0\.0\.1:1\/gw: no PostgreSQL server answers at 127\.0\.0\.1:1 \(connection refused\)\n$/,
    )
    await oneLine(
      ['--from-data-dir', path.join(desktop.dataDir, 'nothing-here'), '--to', url],
      /^gw: there is no store in .*nothing-here \(no gateway\.db\)\n$/,
    )
    await oneLine(['--to', url], /^gw: store copy needs --from-data-dir DIR --to postgres:\/\/… \[--database-schema S\]\n$/)
    await oneLine(['--from-data-dir', desktop.dataDir, '--to', url, '--database-schema', 'Bad-Name'], /^gw: --database-schema: "Bad-Name" is not a schema name/)
  })
})
