import { placeholders, type Sql, type SqlValue } from './sql'
import { bumpConfigRev } from './configRev'
import { picoToUsdNumber } from '../../contract/money'
import { COST_PICO_SUM } from './requestsRepo'

export type LedgerKind = 'top_up' | 'adjustment' | 'usage'

export interface LedgerEntry {
  id: number
  key_id: string
  created_at: number
  amount_usd: number
  kind: LedgerKind
  request_id: string | null
  actor: string
  note: string | null
}

export { PICO_PER_USD, picoToUsdNumber, usdToPico } from '../../contract/money'

/** A usage debit: written with its record in a batch, or alone before an answer's end goes out. */
export const DEBIT_ROW = { insert: 'INSERT INTO ledger (key_id, created_at, amount_pico, kind, request_id, actor, note)', conflict: '' }
export const debitValues = (keyId: string, at: number, pico: bigint, requestId: string): SqlValue[] => [keyId, at, -pico, 'usage', requestId, 'gateway', null]
const DEBIT_SQL = `${DEBIT_ROW.insert} VALUES (${placeholders(7)})`

/**
 * The prepaid balance of a key is the sum of its ledger entries: top-ups and adjustments made by
 * people, usage debits written by the gateway with each request record. Sums are read as text:
 * pico-dollars pass 2^53 at $9,007, so a JavaScript number would round them.
 */
export class LedgerRepo {
  /** Usage debits waiting for this turn of the event loop to end, to commit together. */
  private due: Array<{ values: SqlValue[]; settle: (err: unknown) => void }> = []

  constructor(private readonly sql: Sql) {}

  /**
   * Top-ups and adjustments: configuration changes a running gateway must see at once. A top-up
   * makes an unlimited key prepaid from then on.
   */
  credit(keyId: string, amountPico: bigint, kind: 'top_up' | 'adjustment', actor: string, note: string | null, now = Date.now()): Promise<void> {
    return this.sql.write(async (tx) => {
      await tx.run(`INSERT INTO ledger (key_id, created_at, amount_pico, kind, request_id, actor, note) VALUES (?, ?, ?, ?, NULL, ?, ?)`, [
        keyId,
        now,
        amountPico,
        kind,
        actor,
        note,
      ])
      if (kind === 'top_up') await tx.run(`UPDATE keys SET prepaid = 1 WHERE id = ?`, [keyId])
      await bumpConfigRev(tx)
    })
  }

  /**
   * A usage debit before its answer ends, durable once this resolves. The debits of answers
   * ending in the same turn of the event loop commit in one transaction (each commit is most of
   * a debit's cost, and on SQLite it blocks the event loop); if it fails, each of them fails.
   */
  debit(keyId: string, amountPico: bigint, requestId: string, at: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.due.push({ values: debitValues(keyId, at, amountPico, requestId), settle: (err) => (err ? reject(err) : resolve()) })
      if (this.due.length === 1) setImmediate(() => void this.commitDue())
    })
  }

  private async commitDue(): Promise<void> {
    const batch = this.due
    this.due = []
    let failure: unknown = null
    try {
      await this.sql.write(async (tx) => {
        for (const d of batch) await tx.run(DEBIT_SQL, d.values)
      })
    } catch (err) {
      failure = err
    }
    for (const d of batch) d.settle(failure)
  }

  async balance(keyId: string): Promise<bigint> {
    const row = await this.sql.get<{ total: string }>(`SELECT CAST(COALESCE(SUM(amount_pico), 0) AS TEXT) AS total FROM ledger WHERE key_id = ?`, [keyId])
    return BigInt(row!.total)
  }

  async balances(): Promise<Map<string, bigint>> {
    const rows = await this.sql.all<{ key_id: string; total: string }>(`SELECT key_id, CAST(SUM(amount_pico) AS TEXT) AS total FROM ledger GROUP BY key_id`)
    return new Map(rows.map((r) => [r.key_id, BigInt(r.total)]))
  }

  async entries(keyId: string, limit = 100): Promise<LedgerEntry[]> {
    const rows = await this.sql.all<Omit<LedgerEntry, 'amount_usd'> & { amount_pico: string }>(
      `SELECT id, key_id, created_at, CAST(amount_pico AS TEXT) AS amount_pico, kind, request_id, actor, note
       FROM ledger WHERE key_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
      [keyId, limit],
    )
    return rows.map(({ amount_pico, ...r }) => ({ ...r, amount_usd: picoToUsdNumber(BigInt(amount_pico)) }))
  }

  /** Spend of a key since a time in pico-dollars, from its priced request records (keys without a balance spend too). */
  async spendSince(keyId: string, since: number): Promise<bigint> {
    const row = await this.sql.get<{ pico: string }>(`SELECT ${COST_PICO_SUM} AS pico FROM requests WHERE key_id = ? AND created_at >= ?`, [keyId, since])
    return BigInt(row!.pico)
  }
}
