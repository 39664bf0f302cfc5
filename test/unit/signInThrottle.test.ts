import { it } from 'node:test'
import assert from 'node:assert/strict'
import { SignInThrottle } from '../../src/gateway/auth/throttle'
import { SignInFailuresRepo } from '../../src/gateway/store/signInFailuresRepo'
import type { Sql } from '../../src/gateway/store/sql'
import { describeEachStore } from '../support/stores'

const WINDOW = 1000

const rows = async (sql: Sql) =>
  (await sql.all<{ throttle_key: string; at: number }>(`SELECT throttle_key, at FROM sign_in_failures ORDER BY id`)).map((r) => r.at)

describeEachStore('the sign-in throttle, counted in the store', (under) => {
  it('allows `limit` failures per key within the window and says how long the next must wait', async () => {
    const { sql } = await under.open()
    const throttle = new SignInThrottle(new SignInFailuresRepo(sql), 2, WINDOW)
    assert.equal(await throttle.reserve(['user:a'], 0), 0)
    assert.equal(await throttle.reserve(['user:a'], 100), 0)
    assert.equal(await throttle.reserve(['user:a'], 200), 800, 'until the first ages out')
    assert.equal(await throttle.reserve(['user:a', 'address:b'], 300), 700, 'a full key holds back the others')
    assert.equal(await throttle.reserve(['address:b'], 300), 0, 'and counted nothing for them')
    assert.equal(await throttle.reserve(['user:a'], 1000), 0, 'the first failure aged out')
    assert.equal(await throttle.reserve(['user:a'], 1050), 1100 - 1050, 'the second and third fill it again')
  })

  it('forgets a user name and an address once a sign-in succeeds', async () => {
    const { sql } = await under.open()
    const throttle = new SignInThrottle(new SignInFailuresRepo(sql), 2, WINDOW)
    const keys = ['user:mia', 'address:127.0.0.1']
    await throttle.reserve(keys, 0)
    await throttle.reserve(['user:other', 'address:10.0.0.1'], 0)
    assert.equal(await throttle.reserve(keys, 1), 0)
    assert.ok((await throttle.reserve(keys, 2)) > 0)
    await throttle.succeed(keys)
    assert.equal(await throttle.reserve(keys, 3), 0)
    assert.equal(await throttle.reserve(['user:other'], 3), 0, "another name's failures stay")
    assert.ok((await throttle.reserve(['user:other'], 4)) > 0)
  })

  it('lets exactly `limit` of 40 parallel attempts through', async (t) => {
    const { sql } = await under.open()
    const throttle = new SignInThrottle(new SignInFailuresRepo(sql), 5, 15 * 60_000)
    await throttle.reserve(['user:warm-up'], 0)
    const started = performance.now()
    const waits = await Promise.all(Array.from({ length: 40 }, () => throttle.reserve(['user:admin', 'address:203.0.113.9'], 5000)))
    t.diagnostic(`40 parallel attempts counted in ${(performance.now() - started).toFixed(1)} ms`)
    assert.equal(waits.filter((w) => w === 0).length, 5)
    assert.ok(
      waits.every((w) => w === 0 || w === 15 * 60_000),
      `${waits}`,
    )
  })

  it('stores the keys only as hashes: a password typed as a user name is not in the store', async () => {
    const { sql } = await under.open()
    await new SignInThrottle(new SignInFailuresRepo(sql)).reserve(['user:correct horse battery', 'address:192.0.2.1'], 0)
    const stored = await sql.all<{ throttle_key: string }>(`SELECT throttle_key FROM sign_in_failures`)
    assert.equal(stored.length, 2)
    for (const { throttle_key } of stored) {
      assert.match(throttle_key, /^[0-9a-f]{64}$/)
      assert.doesNotMatch(throttle_key, /horse|192\.0\.2\.1/)
    }
  })

  it('deletes failures no window counts any more, once a window', async () => {
    const { sql } = await under.open()
    const throttle = new SignInThrottle(new SignInFailuresRepo(sql), 5, WINDOW)
    await throttle.reserve(['user:a'], 0)
    await throttle.reserve(['user:b'], 500)
    await throttle.reserve(['user:c'], 999)
    assert.deepEqual(await rows(sql), [0, 500, 999], 'the first attempt pruned nothing older; the next ones came within its window')
    await throttle.reserve(['user:d'], 1500)
    assert.deepEqual(await rows(sql), [999, 1500], 'a window after the last prune, what is 1000 ms old or more is gone')
  })
})
