import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import Database from 'better-sqlite3'
import { openDatabase, DB_FILE } from '../../src/gateway/store/db'
import { KeysRepo } from '../../src/gateway/store/keysRepo'
import { ProvidersRepo } from '../../src/gateway/store/providersRepo'
import { SqliteSql } from '../../src/gateway/store/sqliteSql'
import { BUILT, ROOT, buildApp, serveNodeArgs } from '../support/build'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { tempDir } from '../support/tempDir'

/**
 * What the README promises a request record: committed within this long of the end of its
 * answer (the writer's 50 ms batch delay plus the batch's write time, with room for a loaded
 * machine). A record missing after a kill must belong to an answer delivered this close to it.
 */
const RECORD_BOUND_MS = 250
const CLIENTS = 20

interface Delivered {
  id: string
  prepaid: boolean
  /** When the client had the whole answer (the JSON body, or a stream's [DONE]). */
  at: number
}

/**
 * `kill -9` of a gateway under load, then a restart on the same data dir: no prepaid answer a
 * client received whole is missing its debit, and no record is missing but those of answers
 * delivered within RECORD_BOUND_MS of the kill. Once in steady state, once right after start-up.
 */
describe('a gateway killed with SIGKILL under load', () => {
  let fake: FakeOpenAI
  let dataDir: string
  let keys: { prepaid: { id: string; secret: string }; plain: { id: string; secret: string } }
  let child: ChildProcess | null = null

  const startChild = async (): Promise<{ child: ChildProcess; url: string }> => {
    const c = spawn(process.execPath, [...serveNodeArgs(), BUILT.gw, 'serve', '--port', '0', '--data-dir', dataDir], {
      cwd: ROOT,
      // The log goes to a file: standard output is read only until the gateway says it listens.
      env: { ...process.env, OPENAI_API_KEY: fake.apiKey, GW_LOG_FILE: path.join(dataDir, 'gw.log') },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child = c
    let out = ''
    c.stderr!.on('data', (d: Buffer) => (out += d.toString()))
    for await (const chunk of c.stdout!) {
      out += chunk
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) return { child: c, url: m[1] }
    }
    throw new Error(`the gateway did not start: ${out}`)
  }

  /** CLIENTS loops of requests until `stop`, alternating key, JSON and streamed; only whole answers count. */
  const load = (url: string, stop: { now: boolean }, delivered: Delivered[]) =>
    Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let i = 0; !stop.now; i++) {
          const prepaid = (client + i) % 2 === 0
          const stream = i % 4 >= 2
          try {
            const res = await fetch(`${url}/v1/chat/completions`, {
              method: 'POST',
              headers: { authorization: `Bearer ${(prepaid ? keys.prepaid : keys.plain).secret}`, 'content-type': 'application/json' },
              body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `c${client} r${i}` }], stream }),
            })
            const text = await res.text()
            const whole = res.status === 200 && (stream ? text.endsWith('data: [DONE]\n\n') : JSON.parse(text).gw?.cost?.priced === true)
            if (whole) delivered.push({ id: res.headers.get('x-request-id')!, prepaid, at: Date.now() })
          } catch {
            // The gateway died mid-answer: that answer was not delivered whole.
            return
          }
        }
      }),
    )

  /** Loads a fresh gateway, kills it `afterMs` after it started listening, and checks the store. */
  const killUnderLoad = async (afterMs: number, atLeast: number, report: (line: string) => void) => {
    const { child: c, url } = await startChild()
    const exited = once(c, 'exit')
    const delivered: Delivered[] = []
    const stop = { now: false }
    const clients = load(url, stop, delivered)
    await new Promise((resolve) => setTimeout(resolve, afterMs))
    const killedAt = Date.now()
    c.kill('SIGKILL')
    await exited
    stop.now = true
    await clients

    // What a restart finds: the store opens (WAL recovery) and the gateway serves again.
    const restarted = await startChild()
    const health = await fetch(`${restarted.url}/healthz`)
    assert.equal(health.status, 200)
    restarted.child.kill('SIGKILL')
    await once(restarted.child, 'exit')

    const db = new Database(path.join(dataDir, DB_FILE), { readonly: true })
    try {
      const stored = (sql: string) => new Set(db.prepare(sql).pluck().all() as string[])
      const records = stored(`SELECT id FROM requests`)
      const debits = stored(`SELECT request_id FROM ledger WHERE kind = 'usage'`)
      const duplicated = db.prepare(`SELECT COUNT(*) - COUNT(DISTINCT request_id) FROM ledger WHERE kind = 'usage'`).pluck().get()
      const prepaid = delivered.filter((d) => d.prepaid)
      const unpaid = prepaid.filter((d) => !debits.has(d.id))
      const lost = delivered.filter((d) => !records.has(d.id))
      const lostEarly = lost.filter((d) => d.at < killedAt - RECORD_BOUND_MS)
      const oldest = lost.length ? Math.max(...lost.map((d) => killedAt - d.at)) : 0
      const summary = `${delivered.length} answers delivered (${prepaid.length} prepaid) in ${afterMs} ms; ${lost.length} records lost, the oldest delivered ${oldest} ms before the kill`
      report(summary)
      assert.ok(prepaid.length >= atLeast, `load reached the prepaid key: ${summary}`)
      assert.deepEqual(
        unpaid.map((d) => d.id),
        [],
        `every prepaid answer delivered whole has its debit: ${summary}`,
      )
      assert.equal(duplicated, 0, 'no request is debited twice')
      assert.deepEqual(
        lostEarly.map((d) => `${d.id} delivered ${killedAt - d.at} ms before the kill`),
        [],
        summary,
      )
    } finally {
      db.close()
    }
  }

  before(async () => {
    // The gateway as shipped (out/main/gw.js and its record thread), started as `npm run serve` does.
    buildApp()
    fake = await startFakeOpenAI()
    dataDir = tempDir()
    const db = openDatabase(dataDir)
    const sql = new SqliteSql(db)
    await new ProvidersRepo(sql).upsert('openai', 'openai', fake.url)
    const repo = new KeysRepo(sql)
    const prepaid = await repo.create('prepaid', { balanceUsd: 1000 })
    const plain = await repo.create('plain')
    keys = { prepaid: { id: prepaid.info.id, secret: prepaid.secret }, plain: { id: plain.info.id, secret: plain.secret } }
    db.close()
  })
  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await fake.close()
  })

  it('in steady state', async (t) => {
    await killUnderLoad(2500, 10, (line) => t.diagnostic(line))
  })

  it('right after start-up, before the record thread may be ready', async (t) => {
    await killUnderLoad(700, 3, (line) => t.diagnostic(line))
  })
})
