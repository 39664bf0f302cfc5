import { before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import { openStore } from '../../src/gateway/store/openStore'
import { postgresClientConfig } from '../../src/gateway/store/postgres/openPostgres'
import { postgresSkipReason, sharedPostgres } from '../support/postgres'
import { gwCli, tempDir } from '../support/harness'

/** The tables of the store in one schema of a database. */
async function tablesIn(url: string, schema: string): Promise<string[]> {
  const pool = new pg.Pool({ connectionString: url })
  try {
    const { rows } = await pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name IN ('keys', 'requests', 'meta') ORDER BY 1`,
      [schema],
    )
    return rows.map((r) => r.table_name)
  } finally {
    await pool.end()
  }
}

/** What `gw` prints when it cannot open the store: one line on stderr, exit 1. */
async function cliError(args: string[]): Promise<string> {
  const err = await gwCli(['keys', 'list', ...args], { dataDir: tempDir() }).then(
    () => assert.fail('the command succeeded'),
    (e: { code: number; stderr: string }) => e,
  )
  assert.equal(err.code, 1)
  return err.stderr
}

describe('connecting to PostgreSQL', { skip: postgresSkipReason() ?? false }, () => {
  let url: string
  let port: number
  before(async () => {
    const server = await sharedPostgres()
    url = await server.createDatabase()
    port = server.port
  })

  it('--database-schema puts the store in that schema, created when missing', async () => {
    const store = await openStore({ dataDir: tempDir(), databaseUrl: url, databaseSchema: 'team_a' })
    await store.keys.create('in team_a')
    await store.close()
    assert.deepEqual(await tablesIn(url, 'team_a'), ['keys', 'meta', 'requests'])
    assert.deepEqual(await tablesIn(url, 'public'), [])
  })

  it('a search_path in the URL options does the same', async () => {
    const store = await openStore({ dataDir: tempDir(), databaseUrl: `${url}?options=-csearch_path%3Dteam_b` })
    assert.equal((await store.keys.all()).length, 0, 'an empty store of its own, not team_a')
    await store.close()
    assert.deepEqual(await tablesIn(url, 'team_b'), ['keys', 'meta', 'requests'])
  })

  it('takes sslmode and a password from the URL as node-postgres does, and the schema as the search_path', () => {
    const config = postgresClientConfig({ url: 'postgres://gw:s%40cret@db.internal:5432/gw?sslmode=require', schema: 'gw' })
    assert.equal(config.connectionString, 'postgres://gw:s%40cret@db.internal:5432/gw?sslmode=require')
    assert.equal(config.options, '-c search_path=gw')
    const parsed = new pg.Client(config) as unknown as { password: string; ssl: unknown }
    assert.equal(parsed.password, 's@cret')
    assert.ok(parsed.ssl, 'sslmode=require turns TLS on')
  })

  it('a wrong URL, an unreachable server, a refused login or a missing database is one line naming it, without the password', async () => {
    const lines = [
      await cliError(['--database-url', 'mysql://db/gw']),
      await cliError(['--database-url', `postgres://gw:secret@127.0.0.1:1/gw`]),
      await cliError(['--database-url', `postgres://nobody:secret@127.0.0.1:${port}/postgres`]),
      await cliError(['--database-url', `postgres://gw:secret@127.0.0.1:${port}/no_such_database`]),
      await cliError(['--database-url', url, '--database-schema', 'Bad-Name']),
    ]
    assert.deepEqual(
      lines.map((l) => l.split('\n').filter(Boolean).length),
      [1, 1, 1, 1, 1],
      lines.join(''),
    )
    assert.match(lines[0], /^gw: --database-url: "mysql:\/\/db\/gw" is not a postgres:\/\/ or postgresql:\/\/ URL/)
    assert.match(
      lines[1],
      /^gw: cannot open the PostgreSQL store at postgres:\/\/gw:\*\*\*@127\.0\.0\.1:1\/gw: no PostgreSQL server answers at 127\.0\.0\.1:1 \(connection refused\)/,
    )
    assert.match(lines[2], /^gw: cannot open the PostgreSQL store at .*: the server refused the login: role "nobody" does not exist/)
    assert.match(lines[3], /^gw: cannot open the PostgreSQL store at .*: database "no_such_database" does not exist/)
    assert.match(lines[4], /^gw: --database-schema: "Bad-Name" is not a schema name/)
    for (const line of lines) assert.ok(!line.includes('secret'), line)
  })
})
