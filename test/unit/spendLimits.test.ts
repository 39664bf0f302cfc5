import { it } from 'node:test'
import assert from 'node:assert/strict'
import { ApiError } from '../../src/gateway/errors'
import { Balances } from '../../src/gateway/pipeline/balances'
import { KeysRepo, type KeySettings } from '../../src/gateway/store/keysRepo'
import { parseKey, type Key } from '../../src/gateway/pipeline/keyRules'
import { LedgerRepo, usdToPico } from '../../src/gateway/store/ledgerRepo'
import { RequestsRepo, type RequestRecord } from '../../src/gateway/store/requestsRepo'
import { recordFixture } from '../support/recordFixture'
import { describeEachStore } from '../support/stores'

const costing = (usd: number, at: number, key: string, session: string | null = null): RequestRecord =>
  recordFixture({ at, key, cost: usd, session }, { model: 'gpt-4o-mini', provider: 'openai', upstreamModel: 'gpt-4o-mini' })

/** What a refusal says, or null when the request was admitted. */
function refusal(admit: () => unknown): string | null {
  try {
    admit()
    return null
  } catch (err) {
    if (!(err instanceof ApiError)) throw err
    return err.message
  }
}

const DAY = Date.UTC(2026, 2, 31)
const LAST_MS_OF_MARCH = Date.UTC(2026, 3, 1) - 1

describeEachStore('spend summed by the store', (under) => {
  it('is exact to the pico-dollar over costs whose USD sum drifts as floats', async () => {
    const store = await under.open()
    // $12.345678901234 a thousand times: added as floats the total is 208 pico-dollars off
    // (12345.678901234209); even a compensated float sum is 2 off.
    const many = Array.from({ length: 1000 }, (_, i) => costing(12.345678901234, DAY + i, 'key_a'))
    // Ten times $0.1 in one session: 0.9999999999999999 as floats.
    const tenths = Array.from({ length: 10 }, (_, i) => costing(0.1, DAY + 5000 + i, 'key_b', 'sess'))
    await store.writeRecords([...many, ...tenths])
    const ledger = new LedgerRepo(store.sql)
    assert.equal(await ledger.spendSince('key_a', DAY), 12_345_678_901_234_000n)
    assert.equal(await ledger.spendSince('key_a', DAY + 500), 500n * 12_345_678_901_234n, 'only the records since the time')
    assert.equal(await ledger.spendSince('key_b', DAY), 1_000_000_000_000n)
    assert.equal(await ledger.spendSince('key_c', DAY), 0n, 'nothing spent')
    assert.deepEqual(await new RequestsRepo(store.sql).sessionTotals('key_b', 'sess'), { pico: 1_000_000_000_000n, requests: 10 })
    if (store.name === 'postgres') {
      // Where gateways share limits, a day's or month's counter starts from the same sum in the database.
      const started = await store.sql.get<{ pico: string }>(`SELECT gw_spent_since('key_a', $1)::text AS pico`, [DAY])
      assert.equal(started?.pico, '12345678901234000')
    }
  })
})

describeEachStore('daily and monthly spend limits held in memory', (under) => {
  /** Balances over a fresh store, on a clock the test sets; `queued` stands for the record writer's records not yet written. */
  async function balancesAt(start: number) {
    const store = await under.open()
    const clock = { now: start }
    const queued: RequestRecord[] = []
    const records = { flushed: async () => {}, unwritten: (keyId: string) => queued.filter((r) => r.key_id === keyId) }
    const balances = new Balances(new LedgerRepo(store.sql), records, () => clock.now)
    /** As admission does: what is not in memory is read first, then the request is admitted in the same turn. */
    const admit = async (key: Key) => {
      await balances.loading(key)
      return refusal(() => balances.settle(balances.admit(key, 0n), null))
    }
    /** A request admitted now that was charged `usd`. */
    const spend = async (key: Key, usd: number) => {
      await balances.loading(key)
      balances.settle(balances.admit(key, 0n), usdToPico(usd))
    }
    /** A key as the store has it, with these limits. */
    const keyWith = async (name: string, limits: KeySettings) => {
      const keys = new KeysRepo(store.sql)
      return parseKey((await keys.byId((await keys.create(name, limits)).info.id))!)
    }
    return { store, clock, queued, balances, admit, spend, keyWith }
  }

  it('sums a daily limit from many small costs exactly: ten of $0.1 reach a $1 limit, stored, queued or settled in memory', async () => {
    const { store, queued, admit, spend, keyWith } = await balancesAt(DAY + 3_600_000)
    const key = await keyWith('tenths', { daily_limit_usd: 1 })
    // A pico-dollar more of limit leaves room after the same spend.
    const roomy = await keyWith('roomy', { daily_limit_usd: 1.000000000001 })
    for (const k of [key, roomy]) {
      await store.writeRecords([costing(0.1, DAY, k.id), costing(0.2, DAY + 1, k.id)])
      queued.push(costing(0.1, DAY + 2, k.id), costing(0.2, DAY + 3, k.id))
    }
    assert.equal(await admit(key), null, '$0.6 of $1 spent')
    for (let i = 0; i < 3; i++) await spend(key, 0.1)
    assert.equal(await admit(key), null, '$0.9 of $1 spent')
    await spend(key, 0.1)
    // As floats 0.1 + 0.2 + 0.1 + 0.2 + 0.1 + 0.1 + 0.1 + 0.1 is 0.9999999999999999: short of the limit.
    assert.match((await admit(key))!, /reached its daily spend limit of \$1\.00 \(\$1\.00 spent since 2026-03-31T00:00:00\.000Z\)/)
    for (let i = 0; i < 4; i++) await spend(roomy, 0.1)
    assert.equal(await admit(roomy), null, 'one pico-dollar of the limit left')
    await spend(roomy, 0.000000000001)
    assert.match((await admit(roomy))!, /reached its daily spend limit/)
  })

  it('starts a new day and a new month at midnight UTC on the gateway clock, reading the new period from the store', async () => {
    const { store, clock, admit, spend, balances, keyWith } = await balancesAt(LAST_MS_OF_MARCH - 60_000)
    const daily = await keyWith('daily', { daily_limit_usd: 1 })
    const both = await keyWith('both', { daily_limit_usd: 1, monthly_limit_usd: 1.5 })
    await spend(daily, 1)
    await spend(both, 1)
    clock.now = LAST_MS_OF_MARCH
    assert.match((await admit(daily))!, /reached its daily spend limit of \$1\.00 .* since 2026-03-31T00:00:00\.000Z/)
    assert.match((await admit(both))!, /reached its daily spend limit/)
    clock.now = LAST_MS_OF_MARCH + 1
    // A request of the new day's first millisecond, already written.
    await store.writeRecords([costing(0.5, clock.now, both.id)])
    assert.notEqual(balances.loading(daily), null, 'the new day is read from the store before the next admission')
    assert.equal(await admit(daily), null, 'a new day')
    assert.equal(await admit(both), null, 'a new day and a new month, $0.5 spent in each')
    await spend(both, 0.5)
    assert.match((await admit(both))!, /reached its daily spend limit of \$1\.00 \(\$1\.00 spent since 2026-04-01T00:00:00\.000Z\)/)
    clock.now += 86_400_000
    await spend(both, 0.5)
    assert.match((await admit(both))!, /reached its monthly spend limit of \$1\.5 \(\$1\.5 spent since 2026-04-01T00:00:00\.000Z\)/)
  })
})
