import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { once } from 'node:events'
import OpenAI from 'openai'
import { gwCli } from '../support/harness'
import { tempDir } from '../support/tempDir'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'

const ROOT = path.resolve(import.meta.dirname, '../..')

describe('gw serve, headless, as a user runs it', () => {
  let fake: FakeOpenAI
  let child: ChildProcess
  let dataDir: string
  let baseURL: string
  before(async () => {
    fake = await startFakeOpenAI()
    dataDir = tempDir()
    await gwCli(['providers', 'set', 'openai', '--base-url', fake.url], { dataDir })
    child = spawn(process.execPath, ['--import', 'tsx', 'src/gateway/cli/gw.ts', 'serve', '--port', '0', '--data-dir', dataDir], {
      cwd: ROOT,
      env: { ...process.env, OPENAI_API_KEY: fake.apiKey },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    for await (const chunk of child.stdout!) {
      out += chunk
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) {
        baseURL = `${m[1]}/v1`
        break
      }
    }
  })
  after(async () => {
    if (child.exitCode === null) child.kill('SIGKILL')
    await fake.close()
  })

  it('serves /healthz without a key and completions with a CLI-made key', async () => {
    const health = await fetch(baseURL.replace('/v1', '/healthz'))
    assert.equal(health.status, 200)
    const { stdout } = await gwCli(['keys', 'create', '--name', 'serve-test'], { dataDir })
    const client = new OpenAI({ baseURL, apiKey: stdout.trim(), maxRetries: 0 })
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `n${i}` }] })),
    )
    assert.equal(answers.length, 20)
  })

  it('flushes every request record on SIGTERM', async () => {
    child.kill('SIGTERM')
    const [code] = await once(child, 'exit')
    assert.equal(code, 0)
    const { stdout } = await gwCli(['requests', 'list', '--json'], { dataDir })
    const records = JSON.parse(stdout)
    assert.equal(records.filter((r: any) => r.outcome === 'ok' && r.model === 'gpt-4o-mini').length, 20)
  })
})
