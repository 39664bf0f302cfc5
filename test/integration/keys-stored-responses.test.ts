/**
 * What a person sees and can delete of the Responses the gateway keeps for a key: keys.get counts
 * them, keys.deleteResponses (the key detail's button, `gw keys delete-responses`) removes them,
 * a member for their own keys only.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { withStoreSql } from '../support/storeFile'
import { gwCli, startTestGateway, type TestGateway } from '../support/harness'
import { keepTurn } from '../support/keptResponse'

const DAY = 86_400_000

interface Res {
  status: number
  body: any
}

describe('a key’s stored responses', () => {
  let t: TestGateway
  let admin: string
  let member: string
  const ids: Record<string, string> = {}

  const call = async (op: string, input: unknown, cookie: string): Promise<Res> => {
    const res = await fetch(`${t.url}/api/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify(input) })
    return { status: res.status, body: await res.json() }
  }
  const signIn = async (username: string, password: string) => {
    const res = await fetch(`${t.url}/api/auth.signIn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    })
    return res.headers.get('set-cookie')!.split(';')[0]
  }

  before(async () => {
    t = await startTestGateway()
    const setup = await fetch(`${t.url}/api/auth.setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'owner', password: 'correct horse battery' }),
    })
    admin = setup.headers.get('set-cookie')!.split(';')[0]
    assert.equal((await call('users.create', { username: 'mia', password: 'member password 1', role: 'member' }, admin)).status, 200)
    member = await signIn('mia', 'member password 1')
    ids.adminKey = (await call('keys.create', { name: 'owner-key' }, admin)).body.key.id
    ids.memberKey = (await call('keys.create', { name: 'mia-key' }, member)).body.key.id
  })
  after(() => t.close())

  it('keys.get counts the live responses kept for that key alone', async () => {
    const first = await keepTurn(t.running.gateway.store.responses, ids.memberKey, 'tides')
    await keepTurn(t.running.gateway.store.responses, ids.memberKey, 'and the moon?', { previous: first })
    await keepTurn(t.running.gateway.store.responses, ids.memberKey, 'long ago', { ttl: -1 })
    await keepTurn(t.running.gateway.store.responses, ids.adminKey, 'something else')
    assert.equal((await call('keys.get', { id: ids.memberKey }, member)).body.stored_responses, 2, 'the expired one is not counted')
    assert.equal((await call('keys.get', { id: ids.adminKey }, admin)).body.stored_responses, 1)
  })

  it('a member deletes their own key’s responses, not another’s; the count reads 0 after', async () => {
    const kept = await keepTurn(t.running.gateway.store.responses, ids.memberKey, 'to be deleted')
    const before = (await call('keys.get', { id: ids.memberKey }, member)).body.stored_responses
    const refused = await call('keys.deleteResponses', { id: ids.adminKey }, member)
    assert.equal(refused.status, 404, 'another’s key is as absent as one never made')
    assert.equal((await call('keys.get', { id: ids.adminKey }, admin)).body.stored_responses, 1)

    const res = await call('keys.deleteResponses', { id: ids.memberKey }, member)
    assert.equal(res.status, 200)
    assert.deepEqual(res.body, { deleted: before })
    assert.equal((await call('keys.get', { id: ids.memberKey }, member)).body.stored_responses, 0)
    assert.equal(await t.running.gateway.store.responses.get(kept, ids.memberKey, Date.now()), undefined, 'a client can no longer continue it')
    assert.equal(
      (await withStoreSql(t.dataDir, (sql) => sql.get<{ n: number }>(`SELECT count(*) AS n FROM responses WHERE key_id = ?`, [ids.memberKey])))?.n,
      0,
      'the expired one went too',
    )
    assert.deepEqual((await call('keys.deleteResponses', { id: ids.memberKey }, member)).body, { deleted: 0 })
  })

  it('an admin deletes any key’s, a revoked key’s included', async () => {
    await keepTurn(t.running.gateway.store.responses, ids.memberKey, 'after revoking')
    assert.equal((await call('keys.revoke', { id: ids.memberKey }, admin)).status, 200)
    assert.deepEqual((await call('keys.deleteResponses', { id: ids.memberKey }, admin)).body, { deleted: 1 })
    assert.deepEqual((await call('keys.deleteResponses', { id: ids.adminKey }, admin)).body, { deleted: 1 })
  })

  it('gw keys delete-responses KEY deletes them and says how many', async () => {
    const keyId = (await t.running.gateway.store.keys.all()).find((k) => k.name === 'test')!.id
    await keepTurn(t.running.gateway.store.responses, keyId, 'from the CLI')
    await keepTurn(t.running.gateway.store.responses, keyId, 'and again')
    const { stdout } = await gwCli(['keys', 'delete-responses', 'test'], { dataDir: t.dataDir })
    assert.equal(stdout.trim(), `deleted 2 stored responses of ${keyId} (test)`)
    assert.equal(await t.running.gateway.store.responses.countForKey(keyId, Date.now()), 0)
    const json = await gwCli(['keys', 'delete-responses', keyId, '--json'], { dataDir: t.dataDir })
    assert.deepEqual(JSON.parse(json.stdout), { key_id: keyId, deleted: 0 })
    await assert.rejects(gwCli(['keys', 'delete-responses'], { dataDir: t.dataDir }), (e: any) => /needs KEY/.test(e.stderr) && e.code === 1)
  })

  it('a shorter retention set in Settings applies at once to what is already kept', async () => {
    const old = await keepTurn(t.running.gateway.store.responses, ids.adminKey, 'two days ago')
    await withStoreSql(t.dataDir, (sql) => sql.run(`UPDATE responses SET created_at = ? WHERE id = ?`, [Date.now() - 2 * DAY, old]))
    const recent = await keepTurn(t.running.gateway.store.responses, ids.adminKey, 'just now')
    assert.equal((await call('settings.update', { response_retention_days: 1 }, admin)).status, 200)
    assert.equal((await withStoreSql(t.dataDir, (sql) => sql.get<{ n: number }>(`SELECT count(*) AS n FROM responses WHERE id = ?`, [old])))?.n, 0)
    assert.ok(await t.running.gateway.store.responses.get(recent, ids.adminKey, Date.now()))
    await call('settings.update', { response_retention_days: 30 }, admin)
  })
})
