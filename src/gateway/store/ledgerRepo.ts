import type { Db } from './db'
import { bumpConfigRev } from './configRev'
import { picoToUsdNumber } from '../../contract/money'

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

/**
 * The prepaid balance of a key is the sum of its ledger entries: top-ups and adjustments made by
 * people, usage debits written by the gateway with each request record.
 */
export class LedgerRepo {
  private readonly insertStmt

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(`INSERT INTO ledger (key_id, created_at, amount_pico, kind, request_id, actor, note) VALUES (?, ?, ?, ?, ?, ?, ?)`)
  }

  /**
   * Top-ups and adjustments: configuration changes a running gateway must see at once. A top-up
   * makes an unlimited key prepaid from then on.
   */
  credit(keyId: string, amountPico: bigint, kind: 'top_up' | 'adjustment', actor: string, note: string | null, now = Date.now()): void {
    this.db.transaction(() => {
      this.insertStmt.run(keyId, now, amountPico, kind, null, actor, note)
      if (kind === 'top_up') this.db.prepare(`UPDATE keys SET prepaid = 1 WHERE id = ?`).run(keyId)
      bumpConfigRev(this.db)
    })()
  }

  /** Usage debits ride in the record writer's batch transaction. */
  debit(keyId: string, amountPico: bigint, requestId: string, at: number): void {
    this.insertStmt.run(keyId, at, -amountPico, 'usage', requestId, 'gateway', null)
  }

  balance(keyId: string): bigint {
    const stmt = this.db.prepare(`SELECT COALESCE(SUM(amount_pico), 0) FROM ledger WHERE key_id = ?`).pluck().safeIntegers(true)
    return stmt.get(keyId) as bigint
  }

  balances(): Map<string, bigint> {
    const rows = this.db.prepare(`SELECT key_id, SUM(amount_pico) AS total FROM ledger GROUP BY key_id`).safeIntegers(true).all() as Array<{
      key_id: string
      total: bigint
    }>
    return new Map(rows.map((r) => [r.key_id, r.total]))
  }

  entries(keyId: string, limit = 100): LedgerEntry[] {
    const rows = this.db
      .prepare(`SELECT * FROM ledger WHERE key_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`)
      .safeIntegers(true)
      .all(keyId, limit) as Array<Omit<LedgerEntry, 'amount_usd' | 'id' | 'created_at'> & { id: bigint; created_at: bigint; amount_pico: bigint }>
    return rows.map(({ amount_pico, id, created_at, ...r }) => ({
      ...r,
      id: Number(id),
      created_at: Number(created_at),
      amount_usd: picoToUsdNumber(amount_pico),
    }))
  }

  /** Spend of a key since a time, from its priced request records (keys without a balance spend too). */
  spendSince(keyId: string, since: number): number {
    return this.db.prepare(`SELECT COALESCE(SUM(cost_usd), 0) FROM requests WHERE key_id = ? AND created_at >= ?`).pluck().get(keyId, since) as number
  }
}
