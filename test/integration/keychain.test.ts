import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import OpenAI from 'openai'
import { KeychainSecretStore } from '../../src/gateway/secrets/secretStore'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { gwCli, tempDir } from '../support/harness'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'

const service = `GW Gateway test ${randomBytes(4).toString('hex')}`
const store = new KeychainSecretStore(service)
const unusable = await store.unusableReason()
if (unusable) console.log(`# keychain tests skipped: ${unusable} (run under dbus-run-session with gnome-keyring, as npm test does)`)

describe('provider credentials in the OS keychain', { skip: unusable ?? false }, () => {
  let fake: FakeOpenAI
  let running: RunningGateway
  let dataDir: string
  const env = { GW_KEYCHAIN_SERVICE: service }
  before(async () => {
    fake = await startFakeOpenAI()
    dataDir = tempDir()
    running = await startGateway({ port: 0, dataDir, logLevel: 'silent' }, { env, secrets: store })
  })
  after(async () => {
    await store.delete('vault').catch(() => {})
    await running.close()
    await fake.close()
  })

  it('gw providers set --api-key-stdin stores the key in the keychain; a running gateway uses it at once', async () => {
    const { stdout } = await gwCli(['providers', 'set', 'vault', '--kind', 'openai', '--base-url', fake.url, '--api-key-stdin'], {
      dataDir,
      input: fake.apiKey + '\n',
      env,
    })
    assert.match(stdout, new RegExp(`…${fake.apiKey.slice(-4)}`))
    assert.equal(await store.get('vault'), fake.apiKey)
    const { secret } = await running.gateway.store.keys.create('k')
    await running.gateway.configChanged()
    const client = new OpenAI({ baseURL: `${running.url}/v1`, apiKey: secret, maxRetries: 0 })
    const res: any = await client.chat.completions.create({ model: 'vault/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    assert.equal(res.gw.routing.provider, 'vault')
    assert.equal(fake.received.at(-1)!.headers.authorization, `Bearer ${fake.apiKey}`)
  })

  it('shows only the source and last four characters, and never writes the secret to SQLite', async () => {
    const { stdout } = await gwCli(['providers', 'list', '--json'], { dataDir, env })
    const vault = JSON.parse(stdout).find((p: any) => p.id === 'vault')
    assert.deepEqual(vault.credential, { source: 'keychain', last4: fake.apiKey.slice(-4) })
    assert.equal(stdout.includes(fake.apiKey), false)
    await running.gateway.records.flushed()
    for (const f of fs.readdirSync(dataDir)) {
      assert.equal(fs.readFileSync(path.join(dataDir, f)).includes(fake.apiKey), false, `${f} holds no provider secret`)
    }
  })

  it('a provider error message never carries the secret', async () => {
    fake.script({ kind: 'status', status: 401 })
    const { secret } = await running.gateway.store.keys.create('k2')
    await running.gateway.configChanged()
    const client = new OpenAI({ baseURL: `${running.url}/v1`, apiKey: secret, maxRetries: 0 })
    const err: any = await client.chat.completions.create({ model: 'vault/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((e) => e)
    assert.equal(err.status, 502)
    assert.equal(JSON.stringify(err.error).includes(fake.apiKey), false)
    assert.match(err.error.message, /gw providers set vault --api-key-stdin|VAULT_API_KEY/)
  })
})
