import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { postgresSkipReason, sharedPostgres, startPostgres } from '../support/postgres'
import { accepts } from '../support/freePort'
import { waitUntil } from '../support/waitUntil'

const skip = postgresSkipReason()

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<T>(sql)).rows
  } finally {
    await client.end()
  }
}

/** Whether a process runs (a zombie does not: where PID 1 reaps lazily, a stopped postmaster lingers as one). */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))
  } catch {
    return process.platform !== 'linux'
  }
}

/** Until the postmaster is gone: pg_ctl stop -w returns once postmaster.pid is gone, moments before the postmaster's own exit. */
const gone = (pid: number) => waitUntil(() => !alive(pid), { what: `postmaster ${pid} stopped`, timeoutMs: 2500, intervalMs: 50 })

describe('throwaway PostgreSQL for tests', { skip: skip ?? false }, () => {
  it('creates distinct, empty databases that each answer a query', async () => {
    const server = await sharedPostgres()
    assert.equal(server, await sharedPostgres(), 'one shared server per process')
    const a = await server.createDatabase()
    const b = await server.createDatabase()
    assert.notEqual(a, b)
    for (const url of [a, b]) {
      assert.match(url, new RegExp(`^postgres://gw@127\\.0\\.0\\.1:${server.port}/gw_test_[0-9a-f]+$`))
      assert.deepEqual(await query(url, 'SELECT 1 AS one'), [{ one: 1 }])
      const tables = await query(
        url,
        `SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`,
      )
      assert.deepEqual(tables, [])
    }
    const [[nameA], [nameB]] = await Promise.all([a, b].map((url) => query<{ db: string }>(url, 'SELECT current_database() AS db')))
    assert.notEqual(nameA.db, nameB.db)
    assert.equal(`${server.url.replace(/\/postgres$/, '')}/${nameA.db}`, a)

    const named = await server.createDatabase('gw_named')
    assert.ok(named.endsWith('/gw_named'))
    await assert.rejects(server.createDatabase('gw_named'), /already exists/)
  })

  it('listens on 127.0.0.1 only', async () => {
    const server = await sharedPostgres()
    const [settings] = await query<{ listen: string; addr: string; fsync: string }>(
      server.url,
      `SELECT current_setting('listen_addresses') AS listen, host(inet_server_addr()) AS addr, current_setting('fsync') AS fsync`,
    )
    assert.deepEqual(settings, { listen: '127.0.0.1', addr: '127.0.0.1', fsync: 'off' })
    assert.equal(await accepts('127.0.0.1', server.port), true)
    const elsewhere = Object.values(os.networkInterfaces())
      .flat()
      .filter((i) => i && !i.internal && !i.address.startsWith('fe80:'))
      .map((i) => i!.address)
    // Linux routes all of 127.0.0.0/8 to the loopback interface: 127.0.0.2 is reachable, but not listened on.
    const otherLoopback = process.platform === 'linux' ? ['127.0.0.2'] : []
    for (const host of [...otherLoopback, '::1', ...elsewhere]) assert.equal(await accepts(host, server.port), false, `${host}:${server.port} must not answer`)
  })

  it('stop() stops the server and removes its directory; durable mode keeps fsync on', async () => {
    const server = await startPostgres({ durable: true })
    assert.ok(fs.existsSync(path.join(server.dir, 'data', 'PG_VERSION')))
    const pid = Number(fs.readFileSync(path.join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0])
    assert.ok(alive(pid))
    const [settings] = await query(server.url, `SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sc`)
    assert.deepEqual(settings, { fsync: 'on', sc: 'on' })
    await server.stop()
    assert.equal(fs.existsSync(server.dir), false)
    await gone(pid)
    assert.equal(await accepts('127.0.0.1', server.port), false)
    await server.stop() // a second stop is harmless
  })

  it('stopServer() stops the server keeping its data; startServer() brings it back on the same port', async () => {
    const server = await startPostgres()
    try {
      const url = await server.createDatabase()
      await query(url, `CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)`)
      const pid = Number(fs.readFileSync(path.join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0])
      await server.stopServer()
      await gone(pid)
      assert.equal(await accepts('127.0.0.1', server.port), false)
      await assert.rejects(query(url, 'SELECT 1'), /ECONNREFUSED/)
      await server.startServer()
      assert.deepEqual(await query(url, 'SELECT n FROM kept'), [{ n: 7 }])
    } finally {
      await server.stop()
    }
    assert.equal(fs.existsSync(server.dir), false)
  })

  for (const ending of ['exit', 'SIGTERM'] as const) {
    it(`removes the shared server when its process ends by ${ending === 'exit' ? 'exiting' : 'a SIGTERM'}`, async () => {
      const harness = path.resolve(import.meta.dirname, '../support/postgres.ts')
      const script = `
        import fs from 'node:fs'
        import { sharedPostgres } from ${JSON.stringify(harness)}
        const server = await sharedPostgres()
        const pid = Number(fs.readFileSync(server.dir + '/data/postmaster.pid', 'utf8').split('\\n')[0])
        console.log(JSON.stringify({ dir: server.dir, pid }))
        ${ending === 'exit' ? '' : 'setInterval(() => {}, 1000)'}`
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
      let out = ''
      const started = new Promise<{ dir: string; pid: number }>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString()
          if (out.includes('\n')) resolve(JSON.parse(out))
        })
        child.once('exit', (code) => reject(new Error(`the child exited (${code}) before reporting its server: ${out}`)))
      })
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      const { dir, pid } = await started
      assert.ok(alive(pid))
      if (ending === 'SIGTERM') child.kill('SIGTERM')
      await exited
      assert.equal(fs.existsSync(dir), false, `${dir} removed`)
      await gone(pid)
    })
  }
})
