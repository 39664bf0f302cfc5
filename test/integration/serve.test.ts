import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import OpenAI from 'openai'
import { gwCli } from '../support/harness'
import { startGatewayProcesses, type GatewayProcess } from '../support/gatewayProcesses'
import { tempDir } from '../support/tempDir'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { waitUntil } from '../support/waitUntil'

/** `npm run serve` runs the compiled CLI (out/main/gw.js) with plain Node and its flags, as this test does. */
describe('gw serve, headless, as a user runs it', () => {
  let fake: FakeOpenAI
  let gateway: GatewayProcess
  let dataDir: string
  let baseURL: string
  const logFile = () => path.join(dataDir, 'gw.log')
  before(async () => {
    fake = await startFakeOpenAI()
    dataDir = tempDir()
    await gwCli(['providers', 'set', 'openai', '--base-url', fake.url], { dataDir })
    ;[gateway] = await startGatewayProcesses(1, {
      dataDir,
      env: { OPENAI_API_KEY: fake.apiKey },
      args: ['--log-file', logFile(), '--instance-name', 'serve-1'],
    })
    baseURL = `${gateway.url}/v1`
  })
  after(async () => {
    await gateway?.kill('SIGKILL')
    await fake.close()
  })

  let client: OpenAI
  const ask = (n: number, tag: string) =>
    Promise.all(
      Array.from({ length: n }, (_, i) => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `${tag}${i}` }] })),
    )
  const storedOk = async () => {
    const { stdout } = await gwCli(['requests', 'list', '--json'], { dataDir })
    return JSON.parse(stdout).filter((r: any) => r.outcome === 'ok' && r.model === 'gpt-4o-mini' && r.instance === 'serve-1').length as number
  }

  it('serves /healthz without a key and completions with a CLI-made key', async () => {
    const health = await fetch(baseURL.replace('/v1', '/healthz'))
    assert.equal(health.status, 200)
    const { stdout } = await gwCli(['keys', 'create', '--name', 'serve-test'], { dataDir })
    client = new OpenAI({ baseURL, apiKey: stdout.trim(), maxRetries: 0 })
    assert.equal((await ask(20, 'n')).length, 20)
  })

  it('records requests, named by its --instance-name, from its record thread while it runs', async () => {
    // Records reach the store without a flush only through the thread, once it is up (or
    // after the gateway fell back to writing them itself, which it reports in its log).
    await waitUntil(async () => (await storedOk()) >= 20, { what: 'the records in the store', timeoutMs: 20_000, intervalMs: 100 })
    assert.doesNotMatch(fs.readFileSync(logFile(), 'utf8'), /request records/, 'the built record thread was found and used')
  })

  it('flushes every request record on SIGTERM', async () => {
    await ask(5, 'last')
    assert.equal(await gateway.stop(), 0)
    assert.equal(await storedOk(), 25)
    // The log was flushed on the way out: a line for each of the 25 requests, the last ones too.
    const log = fs
      .readFileSync(logFile(), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    assert.equal(log.filter((l) => l.msg === 'request' && l.status === 200 && l.key === 'serve-test').length, 25)
    assert.equal(log.filter((l) => l.level >= 40).length, 0, 'no warning or error')
    assert.equal(log.at(-1).msg, 'stopped')
    assert.equal(gateway.stderr(), '', 'nothing on stderr (no warnings)')
  })
})
