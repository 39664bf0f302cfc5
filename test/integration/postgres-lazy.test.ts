import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { ROOT } from '../support/build'
import { tempDir } from '../support/tempDir'

/**
 * What `gw serve` on SQLite loads: PostgreSQL's client (`pg`) and the store's PostgreSQL modules
 * are imported only for a store there or for `gw store copy`. Checked in a process of its own,
 * since this suite's support code loads `pg` itself.
 */
const CHILD = `
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
const src = (f) => pathToFileURL(process.env.SRC + '/' + f).href
const pgLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((m) => m.includes('/node_modules/pg/'))
// gw's own modules, as its entry imports them, then a gateway started on a SQLite file.
await import(src('gateway/cli/runCli.ts'))
const { startGateway } = await import(src('gateway/server.ts'))
const running = await startGateway({ host: '127.0.0.1', port: 0, dataDir: process.env.DATA_DIR, logLevel: 'silent' })
const onSqlite = pgLoaded()
await running.close()
// The detector itself: the PostgreSQL store's module brings the client with it.
await import(src('gateway/store/postgres/openPostgres.ts'))
console.log(JSON.stringify({ onSqlite, withPostgresStore: pgLoaded() }))
`

describe('a gateway on SQLite never loads PostgreSQL', () => {
  it('starts, serves and closes without pg in the process', async () => {
    const dataDir = tempDir()
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', CHILD], {
        cwd: ROOT,
        env: { ...process.env, SRC: path.join(ROOT, 'src'), DATA_DIR: dataDir },
      })
      assert.deepEqual(JSON.parse(stdout.trim().split('\n').at(-1)!), { onSqlite: false, withPostgresStore: true })
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
