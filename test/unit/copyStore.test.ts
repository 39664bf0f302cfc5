import { it } from 'node:test'
import assert from 'node:assert/strict'
import { copyStore, TargetNotEmpty } from '../../src/gateway/store/copyStore'
import { openDatabase, type Db } from '../../src/gateway/store/db'
import { REQUEST_COLUMNS } from '../../src/gateway/store/requestsRepo'
import { placeholders } from '../../src/gateway/store/sql'
import { SqliteSql } from '../../src/gateway/store/sqliteSql'
import { describeEachStore } from '../support/stores'
import { tempDir } from '../support/tempDir'
import { everyRow } from '../support/storeRows'

const T0 = Date.UTC(2026, 10, 25)

/** A desktop store with more rows than a page in the tables paged by composite keys, large bodies, and amounts past 2^53. */
function fill(db: Db): void {
  const run = (text: string, rows: unknown[][]) => {
    const stmt = db.prepare(text)
    db.transaction(() => rows.forEach((r) => stmt.run(...r)))()
  }
  const range = (n: number) => Array.from({ length: n }, (_, i) => i)
  run(`INSERT INTO users (id, username, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?)`, [['u1', 'Owner', 'scrypt$x', 'admin', T0]])
  run(
    `INSERT INTO keys (id, name, lookup, hash, last4, created_at, policy, prepaid, owner_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    range(3).map((i) => [`key_${i}`, `k${i}`, `look${i}`, `hash${i}`, `abc${i}`, T0, '{"max_tokens":100}', i === 0 ? 1 : 0, i === 0 ? 'u1' : null]),
  )
  run(
    `INSERT INTO ledger (key_id, created_at, amount_pico, kind, request_id, actor, note) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    range(1500).map((i) => [
      `key_${i % 3}`,
      T0 + i,
      i === 7 ? 9_007_199_254_740_993n : -BigInt(i * 1_000_003),
      i === 7 ? 'top_up' : 'usage',
      `req_${i}`,
      'gateway',
      null,
    ]),
  )
  run(`INSERT INTO presets (name, version, created_at, updated_at) VALUES (?, ?, ?, ?)`, [
    ['a', 600, T0, T0],
    ['b', 600, T0, T0],
  ])
  run(
    `INSERT INTO preset_versions (name, version, model, temperature, fallbacks, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
    range(1200).map((i) => [i % 2 ? 'a' : 'b', Math.floor(i / 2) + 1, 'gpt-4o-mini', 0.1 + i / 7, '["x"]', T0]),
  )
  run(`INSERT INTO settings (key, value) VALUES (?, ?)`, [['log_bodies', 'true']])
  // Ids against the rowid order: the copy must keep the rowid order, not the id order.
  const requests = range(2600).map((i) => {
    const detail = JSON.stringify({ id: `req_${2600 - i}`, note: 'naïve “quotes” 🚀\u2028', n: i })
    const row: Record<string, unknown> = { id: `req_${2600 - i}`, created_at: T0 + i, endpoint: 'chat.completions', status: 200, outcome: 'ok', detail }
    row.key_id = `key_${i % 3}`
    row.cost_usd = i / 3
    return REQUEST_COLUMNS.map((c) => row[c] ?? (['stream', 'priced', 'session_derived'].includes(c) ? 0 : c === 'source' ? 'api' : null))
  })
  run(`INSERT INTO requests (${REQUEST_COLUMNS.join(', ')}) VALUES (${placeholders(REQUEST_COLUMNS.length)})`, requests)
  run(
    `INSERT INTO request_tags (request_id, tag, created_at) VALUES (?, ?, ?)`,
    range(2600).flatMap((i) => [
      [`req_${2600 - i}`, 'same', T0],
      [`req_${2600 - i}`, `t${i % 5}`, T0 + i],
    ]),
  )
  run(
    `INSERT INTO request_dimensions (request_id, name, value, created_at) VALUES (?, ?, ?, ?)`,
    range(2600).map((i) => [`req_${2600 - i}`, 'team', 'infra', T0]),
  )
  // 60 bodies of about a megabyte: the large-row pages shrink to stay in memory bounds.
  const big = (i: number) => JSON.stringify({ messages: [{ role: 'user', content: `${i}:` + 'x'.repeat(512 * 1024) }] })
  run(
    `INSERT INTO request_bodies (request_id, request, response) VALUES (?, ?, ?)`,
    range(60).map((i) => [`req_${i + 1}`, big(i), big(-i)]),
  )
  run(
    `INSERT INTO request_costs (request_id, repriced_at, old_cost_usd, old_priced, old_cost, new_cost_usd, actor) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    range(5).map((i) => [`req_${i + 1}`, T0 + 1, i / 10, 1, '{}', 0.25, 'cli:me']),
  )
  run(
    `INSERT INTO responses (id, key_id, request_id, previous_response_id, created_at, expires_at, response) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    range(3).map((i) => [`resp_${i}`, 'key_0', `req_${i + 1}`, i ? `resp_${i - 1}` : null, T0, T0 + 1e9, '{"object":"response"}']),
  )
  run(
    `INSERT INTO response_items (response_id, seq, id, part, item) VALUES (?, ?, ?, ?, ?)`,
    range(2100).map((i) => [`resp_${i % 3}`, Math.floor(i / 3), `msg_${i}`, 'input', `{"n":${i}}`]),
  )
}

describeEachStore('copyStore from SQLite', (store) => {
  it('copies every row of every table exactly, page after page, in rowid order for requests; a second copy is refused naming what is there', async () => {
    const db = openDatabase(tempDir())
    fill(db)
    const from = new SqliteSql(db)
    const to = (await store.open()).sql
    const heard: string[] = []
    const report = await copyStore(from, to, (t) => heard.push(`${t.table} ${t.rows}`))
    assert.deepEqual(heard, [
      'users 1',
      'keys 3',
      'ledger 1500',
      'presets 2',
      'preset_versions 1200',
      'aliases 0',
      'providers 0',
      'price_rows 0',
      'price_calendars 0',
      'settings 1',
      'requests 2600',
      'request_tags 5200',
      'request_dimensions 2600',
      'request_bodies 60',
      'request_costs 5',
      'responses 3',
      'response_items 2100',
    ])
    assert.equal(report.rows, 15275)
    assert.deepEqual(
      report.notCopied.map((n) => [n.table, n.rows]),
      [
        ['sessions', 0],
        ['provider_secrets', 0],
        ['response_cache', 0],
      ],
    )
    assert.deepEqual(await everyRow(to), await everyRow(from))
    assert.deepEqual(
      (await to.all<{ id: string }>(`SELECT id FROM requests ORDER BY rowid LIMIT 3`)).map((r) => r.id),
      ['req_2600', 'req_2599', 'req_2598'],
    )
    // The revision moved on, so a gateway already on the target loads the copy.
    assert.ok((await to.get<{ value: string }>(`SELECT value FROM meta WHERE key = 'config_rev'`))!.value !== '0')
    // New rows after the copied ids.
    await to.run(`INSERT INTO ledger (key_id, created_at, amount_pico, kind, actor) VALUES ('key_1', 1, 1, 'adjustment', 't')`)
    assert.equal((await to.get<{ id: number }>(`SELECT max(id) AS id FROM ledger`))!.id, 1501)

    await assert.rejects(copyStore(from, to), (err: Error) => {
      assert.ok(err instanceof TargetNotEmpty)
      assert.equal(err.holds, '1 user, 3 keys, 2 presets, 1 setting, 2600 request records and 3 stored responses')
      return true
    })
    db.close()
  })

  it('copies nothing when a row fails, and refuses a source whose schema it does not know', async () => {
    const db = openDatabase(tempDir())
    fill(db)
    // A ledger entry naming no key (written with foreign keys off): the target refuses it.
    db.pragma('foreign_keys = OFF')
    db.prepare(`INSERT INTO ledger (key_id, created_at, amount_pico, kind, actor) VALUES ('key_gone', 1, 1, 'adjustment', 't')`).run()
    const from = new SqliteSql(db)
    const to = (await store.open()).sql
    await assert.rejects(copyStore(from, to), /^Error: copying ledger: .*(foreign key|FOREIGN KEY).* \(nothing was copied\)$/)
    assert.deepEqual(
      Object.values(await everyRow(to)).filter((rows) => rows.length > 0),
      [],
    )
    db.prepare(`DELETE FROM ledger WHERE key_id = 'key_gone'`).run()

    db.exec(`ALTER TABLE keys ADD COLUMN colour TEXT; CREATE TABLE later (id TEXT)`)
    await assert.rejects(copyStore(from, to), /the source store's schema is not the one this build copies \(column keys\.colour, table later\)/)
    db.close()
  })
})
