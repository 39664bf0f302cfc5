import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { ROOT } from '../support/build'
import { gwCli, startTestGateway, type TestGateway } from '../support/harness'

const run = promisify(execFile)

describe('gw CLI against a running gateway (separate processes sharing the data dir)', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it('a key created by the CLI works on the next request, and stops working once revoked', async () => {
    const { stdout } = await gwCli(['keys', 'create', '--name', 'from-cli'], { dataDir: t.dataDir })
    const secret = stdout.trim()
    assert.match(secret, /^gw-[A-Za-z0-9_-]{40,}$/, 'the secret alone on stdout')
    const client = new OpenAI({ baseURL: t.baseURL, apiKey: secret, maxRetries: 0 })
    const res = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    assert.ok(res.choices[0].message.content)
    await gwCli(['keys', 'revoke', 'from-cli'], { dataDir: t.dataDir })
    await assert.rejects(client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }), (e: any) => e.status === 401)
  })

  it('npx gw prints only the key, so a shell captures it into $GW_KEY as the README shows', async () => {
    const { stdout } = await run('sh', ['-c', 'GW_KEY=$(npx --offline gw keys create --name captured --data-dir "$DIR") && printf %s "$GW_KEY"'], {
      cwd: ROOT,
      // On PostgreSQL the test gateway's store is its database, which `gw` finds in GW_DATABASE_URL.
      env: { ...process.env, DIR: t.dataDir, ...(t.databaseUrl ? { GW_DATABASE_URL: t.databaseUrl } : {}) },
    })
    assert.match(stdout, /^gw-[A-Za-z0-9_-]{40,}$/)
    const client = new OpenAI({ baseURL: t.baseURL, apiKey: stdout, maxRetries: 0 })
    const res = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    assert.ok(res.choices[0].message.content)
  })

  it('keys list never shows a secret or hash, and shows when a key was last used', async () => {
    await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'touch' }] })
    await t.records()
    const { stdout } = await gwCli(['keys', 'list', '--json'], { dataDir: t.dataDir })
    const keys = JSON.parse(stdout)
    assert.ok(keys.length >= 1)
    for (const k of keys) {
      assert.equal(k.hash, undefined)
      assert.match(k.masked, /^gw-.{8}….{4}$/)
    }
    assert.equal(stdout.includes(t.key), false)
    const used = keys.find((k: any) => k.name === 'test')
    assert.ok(used.last_used_at > Date.now() - 60_000, 'the record batch also stored the last-used time')
  })

  it('requests list --json prints the records newest first with the documented fields', async () => {
    const res: any = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'record me' }] })
    await t.records()
    const { stdout } = await gwCli(['requests', 'list', '--json', '--limit', '5'], { dataDir: t.dataDir })
    const records = JSON.parse(stdout)
    assert.ok(records.length <= 5)
    const r = records.find((x: any) => x.id === res.gw.request_id)
    assert.ok(r)
    for (const field of [
      'id',
      'created_at',
      'status',
      'outcome',
      'key_id',
      'model',
      'preset',
      'provider',
      'upstream_model',
      'attribution',
      'dimensions',
      'ignored',
      'usage',
      'cost',
      'latency_ms',
      'error',
    ]) {
      assert.ok(field in r, `record has ${field}`)
    }
    assert.equal(r.status, 200)
    assert.equal(r.outcome, 'ok')
    assert.equal(r.cost.final_usd, res.gw.cost.final_usd)
    const times = records.map((x: any) => Date.parse(x.created_at))
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    )
  })

  it('a price override set by the CLI applies to the running gateway', async () => {
    await gwCli(['prices', 'set', 'openai/gpt-cli-priced', '--input', '3', '--output', '4'], { dataDir: t.dataDir })
    const res: any = await t.client.chat.completions.create({ model: 'openai/gpt-cli-priced', messages: [{ role: 'user', content: 'x' }] })
    // 12 × $3 + 5 × $4 per 1M
    assert.equal(res.gw.cost.final_usd, 0.000056)
  })

  it('rejects bad arguments with a message and a non-zero exit', async () => {
    await assert.rejects(gwCli(['keys', 'create'], { dataDir: t.dataDir }), (e: any) => /--name/.test(e.stderr) && e.code === 1)
    await assert.rejects(gwCli(['providers', 'set', 'mine', '--base-url', 'http://x'], { dataDir: t.dataDir }), (e: any) => /--kind/.test(e.stderr))
  })
})
