import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import OpenAI from 'openai'
import pg from 'pg'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { parseSecretKey } from '../../src/gateway/secrets/secretKey'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { MemorySecretStore } from '../support/memorySecretStore'
import { pgDump, postgresSkipReason, sharedPostgres } from '../support/postgres'
import { waitUntil } from '../support/waitUntil'
import { gwCli, tempDir } from '../support/harness'

const newKey = () => randomBytes(32).toString('base64')
/** GW_SECRET_KEY of the team's gateways, and the one it is rotated to. */
const KEY_A = newKey()
const KEY_B = newKey()
const ID_A = parseSecretKey(KEY_A, 'GW_SECRET_KEY').id
const ID_B = parseSecretKey(KEY_B, 'GW_SECRET_KEY').id
/** The provider keys: set through the admin API, set through the CLI, and one only in a gateway's environment. */
const VAULT_KEY = `sk-vault-${randomBytes(24).toString('hex')}`
const CLI_KEY = `sk-cli-${randomBytes(24).toString('hex')}`
const ENV_KEY = `sk-env-${randomBytes(24).toString('hex')}`
const SECRETS = [VAULT_KEY, CLI_KEY, ENV_KEY, KEY_A, KEY_B]

/** Whether text shows a secret: whole, or any 16 of its characters in a row. */
function shows(text: string, secret: string): boolean {
  return Array.from({ length: secret.length - 15 }, (_, i) => secret.slice(i, i + 16)).some((run) => text.includes(run))
}
const assertClean = (label: string, text: string) => {
  for (const secret of SECRETS) assert.ok(!shows(text, secret), `${label} shows a secret`)
}

/**
 * Gateways of a team on one PostgreSQL database with GW_SECRET_KEY in their environment: a
 * provider key set through one (its admin API, or `gw providers set … --api-key-stdin`) is kept
 * encrypted in the database and used by the others; rotation re-encrypts every key.
 */
describe('provider keys on a server: encrypted in PostgreSQL under GW_SECRET_KEY', { skip: postgresSkipReason() ?? false }, () => {
  let vault: FakeOpenAI
  let cliFake: FakeOpenAI
  let url: string
  const running: RunningGateway[] = []
  const dirs: string[] = []
  let gwKey: string
  let cookie: string

  /** A gateway on the team's database with this environment, logging everything to a file in its data dir. */
  const start = async (env: NodeJS.ProcessEnv) => {
    const dataDir = tempDir()
    dirs.push(dataDir)
    const g = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, databaseUrl: url, logLevel: 'trace', logFile: path.join(dataDir, 'gw.log') },
      { env, secrets: new MemorySecretStore(), routing: { maxRetries: 0, cooldownAfterFailures: 1_000_000 } },
    )
    running.push(g)
    return g
  }
  /** A gateway's log, whole: it is closed first, as its lines are written in batches up to a second apart. */
  const logOf = async (g: RunningGateway) => {
    await g.close()
    return fs.readFileSync(g.config.logFile!, 'utf8')
  }
  /** A chat request through `g` to `model`: the status, and the error message when there is one. */
  const chat = (g: RunningGateway, model: string) =>
    new OpenAI({ baseURL: `${g.url}/v1`, apiKey: gwKey, maxRetries: 0 }).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).then(
      () => ({ status: 200, message: '' }),
      (err: { status?: number; error?: { message?: string } }) => ({ status: err.status ?? 0, message: err.error?.message ?? '' }),
    )
  const api = async (g: RunningGateway, op: string, input: unknown) => {
    const res = await fetch(`${g.url}/api/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify(input) })
    return { status: res.status, body: (await res.json()) as any }
  }
  const cli = (args: string[], env: NodeJS.ProcessEnv, input?: string) =>
    gwCli([...args, '--database-url', url], { dataDir: tempDir(), env, input }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    )
  /** Everything the database holds, as pg_dump prints it. */
  const dump = () => pgDump(url)
  /** The stored provider keys' rows, as they are. */
  const secretRows = async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1 })
    try {
      return (await pool.query(`SELECT * FROM provider_secrets ORDER BY provider_id`)).rows
    } finally {
      await pool.end()
    }
  }

  before(async () => {
    // A careless provider: its errors quote the Authorization header they answer.
    vault = await startFakeOpenAI({ apiKey: VAULT_KEY, quirks: { echoCredential: true } })
    cliFake = await startFakeOpenAI({ apiKey: CLI_KEY })
    url = await (await sharedPostgres()).createDatabase()
    const [a] = await Promise.all([start({ GW_SECRET_KEY: KEY_A }), start({ GW_SECRET_KEY: KEY_A })])
    const setup = await fetch(`${a.url}/api/auth.setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'owner', password: 'correct horse battery' }),
    })
    assert.equal(setup.status, 200)
    cookie = setup.headers.get('set-cookie')!.split(';')[0]
    gwKey = (await a.gateway.store.keys.create('team')).secret
  })
  after(async () => {
    await Promise.all(running.map((g) => g.close()))
    await vault?.close()
    await cliFake?.close()
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
  })

  it('a key set through one gateway’s admin API is used upstream by another within a second, and shown only as its last four', async () => {
    const [a, b] = running
    const set = await api(a, 'providers.set', { id: 'vault', kind: 'openai', base_url: vault.url, api_key: VAULT_KEY })
    assert.equal(set.status, 200, JSON.stringify(set.body))
    assert.deepEqual(set.body.credential, { source: 'database', last4: VAULT_KEY.slice(-4) })
    assert.equal(set.body.key_store, 'the database, encrypted under GW_SECRET_KEY')
    const ms = await waitUntil(async () => (await chat(b, 'vault/gpt-4o-mini')).status === 200, { what: 'the key set through A used on B', timeoutMs: 1000 })
    console.log(`# a key set through gateway A answered on gateway B ${ms} ms later`)
    assert.equal(vault.received.at(-1)!.headers.authorization, `Bearer ${VAULT_KEY}`)
    const listed = await api(b, 'providers.list', {})
    assert.deepEqual(listed.body.find((p: { id: string }) => p.id === 'vault').credential, { source: 'database', last4: VAULT_KEY.slice(-4) })
    assertClean('providers.list', JSON.stringify(listed.body))
    // B's redactor knows the key it decrypted, as it knows a keychain one: an echo of it goes no further.
    vault.script({ kind: 'status', status: 500 })
    const echoed = await chat(b, 'vault/gpt-4o-mini')
    assert.equal(echoed.status, 502)
    assert.match(echoed.message, /\[redacted\]/)
    assertClean('an error the provider quoted the key in', echoed.message)
  })

  it('a key set by `gw providers set --api-key-stdin --database-url` reaches the running gateways within a second', async () => {
    const [, b] = running
    const set = await cli(
      ['providers', 'set', 'clibox', '--kind', 'openai', '--base-url', cliFake.url, '--api-key-stdin'],
      { GW_SECRET_KEY: KEY_A },
      `${CLI_KEY}\n`,
    )
    assert.equal(set.code, 0, set.stderr)
    assert.equal(set.stdout.trim(), `provider clibox saved (key …${CLI_KEY.slice(-4)} stored in the database, encrypted under GW_SECRET_KEY)`)
    const ms = await waitUntil(async () => (await chat(b, 'clibox/gpt-4o-mini')).status === 200, { what: 'the key set by the CLI used on B', timeoutMs: 1000 })
    console.log(`# a key set by the CLI answered on gateway B ${ms} ms later`)
    assert.equal(cliFake.received.at(-1)!.headers.authorization, `Bearer ${CLI_KEY}`)
    const status = await cli(['secrets', 'status', '--json'], { GW_SECRET_KEY: KEY_A })
    assert.equal(status.code, 0, status.stderr)
    const parsed = JSON.parse(status.stdout)
    assert.equal(parsed.store, 'database')
    assert.equal(parsed.key_id, ID_A)
    assert.deepEqual(
      parsed.keys.map((k: any) => [k.provider, k.key_id, k.current]),
      [
        ['clibox', ID_A, true],
        ['vault', ID_A, true],
      ],
    )
  })

  it('holds no plaintext in the database: pg_dump shows the rows, and no key', async () => {
    const text = await dump()
    assert.match(
      text,
      /COPY [\w.]*provider_secrets \(provider_id, key_id, nonce, ciphertext, tag, updated_at\) FROM stdin;\n(clibox|vault)\t/,
      'the dump holds the rows',
    )
    assertClean('pg_dump', text)
  })

  it('<ID>_API_KEY in a gateway’s environment still wins over the stored key', async () => {
    const c = await start({ GW_SECRET_KEY: KEY_A, VAULT_API_KEY: ENV_KEY })
    const answer = await chat(c, 'vault/gpt-4o-mini')
    assert.equal(vault.received.at(-1)!.headers.authorization, `Bearer ${ENV_KEY}`, 'the environment’s key went upstream')
    assert.equal(answer.status, 502, 'which this provider refuses')
    assert.deepEqual((await api(c, 'providers.list', {})).body.find((p: { id: string }) => p.id === 'vault').credential, {
      source: 'env',
      last4: ENV_KEY.slice(-4),
    })
    assertClean('the refusal', answer.message)
  })

  it('without GW_SECRET_KEY: storing a key is refused naming the variable, stored keys are not used (logged once), the environment still works', async () => {
    const d = await start({ CLIBOX_API_KEY: CLI_KEY })
    const refused = await api(d, 'providers.set', { id: 'vault', api_key: `sk-other-${randomBytes(8).toString('hex')}` })
    assert.equal(refused.status, 503)
    assert.equal(refused.body.error.code, 'secret_key_missing')
    assert.equal(refused.body.error.field, 'api_key')
    assert.match(
      refused.body.error.message,
      /^GW_SECRET_KEY is not set in the gateway's environment: on a PostgreSQL store provider keys are kept only encrypted under it/,
    )
    const byCli = await cli(
      ['providers', 'set', 'vault', '--kind', 'openai', '--base-url', vault.url, '--api-key-stdin'],
      { GW_SECRET_KEY: '' },
      `sk-other-${randomBytes(8).toString('hex')}`,
    )
    assert.equal(byCli.code, 1)
    assert.equal(
      byCli.stderr,
      "gw: GW_SECRET_KEY is not set in the gateway's environment: on a PostgreSQL store provider keys are kept only encrypted under it (32 random bytes in base64, the same for every gateway on the database; `openssl rand -base64 32` makes one). Or set VAULT_API_KEY in the gateway's environment.\n",
    )
    assert.equal(await running[1].gateway.secrets.get('vault'), VAULT_KEY, 'the stored key is as it was')

    for (let i = 0; i < 2; i++) {
      const noKey = await chat(d, 'vault/gpt-4o-mini')
      assert.equal(noKey.status, 503)
      assert.equal(
        noKey.message,
        "The gateway has no usable API key for provider vault: provider vault's key is stored encrypted, and GW_SECRET_KEY is not set in this gateway's environment.",
      )
    }
    assert.equal((await chat(d, 'clibox/gpt-4o-mini')).status, 200, 'CLIBOX_API_KEY works')
    const lines = (await logOf(d)).split('\n').filter((l) => l.includes('provider key not usable'))
    assert.equal(lines.length, 1, lines.join('\n'))
    assert.match(lines[0], /"provider":"vault".*GW_SECRET_KEY is not set/)
  })

  it('a malformed GW_SECRET_KEY stops the start in one line naming the variable, never its value', async () => {
    const short = randomBytes(16).toString('base64')
    await assert.rejects(start({ GW_SECRET_KEY: short }), (err: Error) => {
      assert.equal(err.message, 'GW_SECRET_KEY must be 32 random bytes in base64 (`openssl rand -base64 32` makes one); it decodes to 16 bytes')
      return true
    })
    const serve = await cli(['serve', '--port', '0'], { GW_SECRET_KEY: short })
    assert.equal(serve.code, 1)
    assert.equal(serve.stderr, 'gw: GW_SECRET_KEY must be 32 random bytes in base64 (`openssl rand -base64 32` makes one); it decodes to 16 bytes\n')
  })

  it('gw secrets rotate --new-key-stdin re-encrypts every key; a gateway with the new key works, one with the old says which key it needs', async () => {
    const [a] = running
    const before = await secretRows()
    const rotated = await cli(['secrets', 'rotate', '--new-key-stdin'], { GW_SECRET_KEY: KEY_A }, `${KEY_B}\n`)
    assert.equal(rotated.code, 0, rotated.stderr)
    assert.match(rotated.stdout, new RegExp(`^re-encrypted 2 provider keys under key id ${ID_B}, in one transaction\\.`))
    assertClean('the rotation’s output', rotated.stdout + rotated.stderr)
    const after = await secretRows()
    assert.deepEqual(
      after.map((r) => [r.provider_id, r.key_id]),
      before.map((r) => [r.provider_id, ID_B]),
    )
    assert.ok(after.every((r, i) => r.ciphertext !== before[i].ciphertext && r.nonce !== before[i].nonce))
    assertClean('pg_dump after the rotation', await dump())

    // The old key's gateway drops the key it held at the change and says why it has none.
    let refusal = ''
    const ms = await waitUntil(
      async () => {
        const r = await chat(a, 'vault/gpt-4o-mini')
        refusal = r.message
        return r.status === 503
      },
      { what: 'gateway A refusing the rotated key', timeoutMs: 1000 },
    )
    console.log(`# gateway A (old key) stopped using the rotated key ${ms} ms after the rotation`)
    assert.equal(
      refusal,
      `The gateway has no usable API key for provider vault: provider vault's key was encrypted under key id ${ID_B}, GW_SECRET_KEY has key id ${ID_A}.`,
    )
    const probe = await api(a, 'providers.test', { id: 'vault' })
    assert.equal(probe.body.ok, false)
    assert.match(probe.body.reason, new RegExp(`key id ${ID_B}, GW_SECRET_KEY has key id ${ID_A}`))
    assert.match(await logOf(a), new RegExp(`provider vault's key was encrypted under key id ${ID_B}, GW_SECRET_KEY has key id ${ID_A}`))

    const e = await start({ GW_SECRET_KEY: KEY_B })
    assert.equal((await chat(e, 'vault/gpt-4o-mini')).status, 200)
    assert.equal(vault.received.at(-1)!.headers.authorization, `Bearer ${VAULT_KEY}`)
    assert.equal((await chat(e, 'clibox/gpt-4o-mini')).status, 200)
    assert.equal(cliFake.received.at(-1)!.headers.authorization, `Bearer ${CLI_KEY}`)

    // Run again: nothing left to do.
    const again = await cli(['secrets', 'rotate', '--new-key-stdin'], { GW_SECRET_KEY: KEY_A }, KEY_B)
    assert.equal(again.code, 0, again.stderr)
    assert.match(again.stdout, new RegExp(`^re-encrypted 0 provider keys under key id ${ID_B} \\(2 provider keys already under it\\)`))
    assert.deepEqual(await secretRows(), after)

    // From a key the rows are not under: stopped at the first, naming it, nothing changed.
    const wrong = await cli(['secrets', 'rotate', '--new-key-stdin'], { GW_SECRET_KEY: KEY_A }, newKey())
    assert.equal(wrong.code, 1)
    assert.equal(wrong.stderr, `gw: provider clibox's key was encrypted under key id ${ID_B}, GW_SECRET_KEY has key id ${ID_A}: nothing was rotated\n`)
    assert.deepEqual(await secretRows(), after)
    const malformed = await cli(['secrets', 'rotate', '--new-key-stdin'], { GW_SECRET_KEY: KEY_B }, 'not a key')
    assert.equal(malformed.code, 1)
    assert.equal(malformed.stderr, 'gw: --new-key-stdin: must be 32 random bytes in base64 (`openssl rand -base64 32` makes one); it is not base64\n')
  })

  it('holds no plaintext in any gateway’s log (each at trace level), which names the key id it runs with', async () => {
    const logs = await Promise.all(running.map(logOf))
    for (const [i, log] of logs.entries()) assertClean(`log of gateway ${i}`, log)
    assert.match(logs[0], new RegExp(`provider keys: in the database, encrypted under GW_SECRET_KEY \\(key id ${ID_A}\\)`))
    assert.match(logs.at(-1)!, new RegExp(`provider keys: in the database, encrypted under GW_SECRET_KEY \\(key id ${ID_B}\\)`))
  })
})
