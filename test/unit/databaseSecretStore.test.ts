import { it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { DatabaseSecretStore, MissingSecretKey } from '../../src/gateway/secrets/databaseSecretStore'
import { parseSecretKey } from '../../src/gateway/secrets/secretKey'
import { UnreadableSecret } from '../../src/gateway/secrets/secretStore'
import { CONFIG_REV_SQL } from '../../src/gateway/store/configRev'
import { ProviderSecretsRepo } from '../../src/gateway/store/providerSecretsRepo'
import type { Sql } from '../../src/gateway/store/sql'
import { describeEachStore } from '../support/stores'

const newKey = () => parseSecretKey(randomBytes(32).toString('base64'), 'GW_SECRET_KEY')
const secretFor = (provider: string) => `sk-${provider}-${randomBytes(20).toString('hex')}`
const rev = async (sql: Sql) => (await sql.get<{ rev: number }>(CONFIG_REV_SQL))!.rev
/** The table as a dump would print it. */
const tableText = async (sql: Sql) => JSON.stringify(await sql.all(`SELECT * FROM provider_secrets ORDER BY provider_id`))

describeEachStore('provider keys kept in the store, encrypted', (under) => {
  it('are read back as set, hold no plaintext, and bump the configuration revision when they change', async () => {
    const { sql } = await under.open()
    const store = new DatabaseSecretStore(new ProviderSecretsRepo(sql), newKey())
    const secret = secretFor('openai')
    const before = await rev(sql)
    await store.set('openai', secret)
    assert.equal(await rev(sql), before + 1)
    assert.equal(await store.get('openai'), secret)
    assert.equal(await store.get('anthropic'), null)
    assert.equal((await tableText(sql)).includes(secret), false)
    assert.deepEqual(
      (await store.rows()).map((r) => [r.provider_id, r.key_id]),
      [['openai', store.key!.id]],
    )
    assert.equal(await store.delete('openai'), true)
    assert.equal(await rev(sql), before + 2)
    assert.equal(await store.delete('openai'), false)
    assert.equal(await rev(sql), before + 2, 'nothing removed, nothing to reload')
    assert.equal(await store.get('openai'), null)
  })

  it('without GW_SECRET_KEY: storing one is refused naming the variable, and a stored one is unreadable, saying why', async () => {
    const { sql } = await under.open()
    const repo = new ProviderSecretsRepo(sql)
    await new DatabaseSecretStore(repo, newKey()).set('openai', secretFor('openai'))
    const keyless = new DatabaseSecretStore(repo, null)
    await assert.rejects(
      keyless.set('groq', secretFor('groq')),
      (err: Error) => err instanceof MissingSecretKey && /^GW_SECRET_KEY is not set/.test(err.message),
    )
    await assert.rejects(
      keyless.get('openai'),
      (err: Error) =>
        err instanceof UnreadableSecret &&
        err.message === "provider openai's key is stored encrypted, and GW_SECRET_KEY is not set in this gateway's environment",
    )
    assert.match((await keyless.unusableReason())!, /GW_SECRET_KEY is not set/)
    assert.equal(await keyless.get('groq'), null)
  })

  it('refuses a row altered in the database, or moved to another provider', async () => {
    const { sql } = await under.open()
    const store = new DatabaseSecretStore(new ProviderSecretsRepo(sql), newKey())
    await store.set('openai', secretFor('openai'))
    await store.set('groq', secretFor('groq'))
    const row = (await sql.get<{ ciphertext: string }>(`SELECT ciphertext FROM provider_secrets WHERE provider_id = 'openai'`))!
    const altered = Buffer.from(row.ciphertext, 'base64')
    altered[0] ^= 1
    await sql.run(`UPDATE provider_secrets SET ciphertext = ? WHERE provider_id = 'openai'`, [altered.toString('base64')])
    await assert.rejects(store.get('openai'), (err: Error) => err instanceof UnreadableSecret && /provider openai's key does not decrypt/.test(err.message))
    await sql.run(`DELETE FROM provider_secrets WHERE provider_id = 'openai'`)
    await sql.run(`UPDATE provider_secrets SET provider_id = 'openai' WHERE provider_id = 'groq'`)
    await assert.rejects(store.get('openai'), (err: Error) => err instanceof UnreadableSecret && /provider openai's key does not decrypt/.test(err.message))
  })

  it('rotate re-encrypts every key under the new one in one transaction, leaves those already under it, and can run again', async () => {
    const { sql } = await under.open()
    const repo = new ProviderSecretsRepo(sql)
    const old = new DatabaseSecretStore(repo, newKey())
    const secrets = Object.fromEntries(['anthropic', 'groq', 'openai'].map((p) => [p, secretFor(p)]))
    for (const [p, s] of Object.entries(secrets)) await old.set(p, s)
    const next = newKey()
    const before = await rev(sql)
    assert.deepEqual(await old.rotate(next), { rotated: 3, unchanged: 0 })
    assert.equal(await rev(sql), before + 1, 'one change, every gateway reloads')
    const rotated = new DatabaseSecretStore(repo, next)
    for (const [p, s] of Object.entries(secrets)) assert.equal(await rotated.get(p), s)
    assert.ok((await rotated.rows()).every((r) => r.key_id === next.id))
    await assert.rejects(old.get('openai'), new RegExp(`encrypted under key id ${next.id}, GW_SECRET_KEY has key id ${old.key!.id}`))
    // Run again (the old key still in GW_SECRET_KEY, the same new key on stdin): nothing to do.
    const text = await tableText(sql)
    assert.deepEqual(await old.rotate(next), { rotated: 0, unchanged: 3 })
    assert.equal(await tableText(sql), text)
    assert.equal(await rev(sql), before + 1)
  })

  it('rotate stops at a key it cannot decrypt, naming the provider, and changes nothing', async () => {
    const { sql } = await under.open()
    const repo = new ProviderSecretsRepo(sql)
    const current = new DatabaseSecretStore(repo, newKey())
    await current.set('anthropic', secretFor('anthropic'))
    await new DatabaseSecretStore(repo, newKey()).set('groq', secretFor('groq'))
    await current.set('openai', secretFor('openai'))
    const text = await tableText(sql)
    const before = await rev(sql)
    const groqKeyId = (await repo.get('groq'))!.key_id
    await assert.rejects(
      current.rotate(newKey()),
      (err: Error) =>
        err instanceof UnreadableSecret &&
        err.message === `provider groq's key was encrypted under key id ${groqKeyId}, GW_SECRET_KEY has key id ${current.key!.id}: nothing was rotated`,
    )
    assert.equal(await tableText(sql), text, 'anthropic, rotated before groq stopped it, is as it was')
    assert.equal(await rev(sql), before)
    await assert.rejects(new DatabaseSecretStore(repo, null).rotate(newKey()), MissingSecretKey)
  })
})
