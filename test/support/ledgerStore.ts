import { after } from 'node:test'
import { Balances } from '../../src/gateway/pipeline/balances'
import { KeysRepo, type KeySettings } from '../../src/gateway/store/keysRepo'
import { parseKey, type Key } from '../../src/gateway/pipeline/keyRules'
import { LedgerRepo } from '../../src/gateway/store/ledgerRepo'
import type { RecordSink } from '../../src/gateway/store/store'
import { storesUnderTest, type TestStore } from './stores'

/** A record writer with nothing queued: every record is in the store. */
export const nothingQueued: Pick<RecordSink, 'flushed' | 'unwritten'> = { flushed: async () => {}, unwritten: () => [] }

const sqlite = storesUnderTest().find((s) => s.name === 'sqlite')!
after(() => sqlite.closeAll())

/** Keys and their prepaid balances in a fresh SQLite store, as admission and charging read and write them. */
export interface LedgerStore {
  store: TestStore
  ledger: LedgerRepo
  balances: Balances
  /** A key as the key index holds it; `balanceUsd` makes it prepaid with that opening top-up. */
  key(name: string, settings?: KeySettings & { balanceUsd?: number }): Promise<Key>
  /** From now on the store refuses every ledger write (reads still work), as a full disk or a lost connection would. */
  refuseDebits(): Promise<void>
}

export async function ledgerStore(): Promise<LedgerStore> {
  const store = await sqlite.open()
  const keys = new KeysRepo(store.sql)
  const ledger = new LedgerRepo(store.sql)
  return {
    store,
    ledger,
    balances: new Balances(ledger, nothingQueued, Date.now),
    key: async (name, settings) => parseKey((await keys.byId((await keys.create(name, settings)).info.id))!),
    refuseDebits: async () =>
      void (await store.sql.run(`CREATE TRIGGER ledger_refuses BEFORE INSERT ON ledger BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`)),
  }
}
