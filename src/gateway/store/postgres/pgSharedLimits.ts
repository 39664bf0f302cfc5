import type { PgSql } from './pgSql'
import type { LimitAdmission, LimitAnswer, LimitRefusal, LimitSettlement, SharedLimitStore } from '../sharedLimitStore'

const ADMIT = `SELECT refusal, CAST(a AS TEXT) AS a, CAST(b AS TEXT) AS b, soft FROM gw_admit(
  ?::text, ?::text, ?::text, ?::bigint, ?::boolean, ?::bigint, ?::bigint, ?::bigint, ?::bigint, ?::bigint, ?::text, ?::bigint, ?::bigint,
  ?::bigint, ?::bigint, ?::bigint, ?::bigint, ?::boolean, ?::bigint, ?::bigint, ?::bigint, ?::bigint)`
const SETTLE = `SELECT CAST(gw_settle(?::text, ?::text, ?::bigint, ?::boolean, ?::bigint, ?::bigint, ?::bigint, ?::text) AS TEXT) AS spent`

/**
 * The limits' functions of migration 14 (`sharedLimitsSchema`; `gw_admit` as migration 22 has it), one statement a call.
 * Admissions and settlements without a debit are committed without waiting for the disk (`fast`:
 * connections with `synchronous_commit=off`): they are visible to every gateway the moment they
 * commit, and a key's row lock is held for the function's run only, not a disk flush. What a
 * crash of the database server itself could lose of them is a reservation, a request counted in
 * its minute or session, or a charge on a spend counter, from its last moments. A prepaid debit is
 * money: it is committed on `durable`, flushed to disk before the answer's end goes out.
 */
export class PgSharedLimits implements SharedLimitStore {
  constructor(
    private readonly fast: PgSql,
    private readonly durable: PgSql,
  ) {}

  async admit(a: LimitAdmission): Promise<LimitAnswer> {
    const row = await this.fast.get<{ refusal: LimitRefusal['refusal'] | null; a: string; b: string; soft: LimitAnswer['soft'] }>(ADMIT, [
      a.requestId,
      a.instanceId,
      a.keyId,
      a.rpm,
      a.prepaid ? 1 : 0,
      a.expectedPico,
      a.dayStart,
      a.dayLimitPico,
      a.monthStart,
      a.monthLimitPico,
      a.sessionId,
      a.sessionRequests,
      a.sessionLimitPico,
      a.unwritten.dayPico,
      a.unwritten.monthPico,
      a.unwritten.sessionPico,
      a.unwritten.sessionRequests,
      a.unwritten.counted ? 1 : 0,
      a.soft?.expectedPico ?? null,
      a.soft?.dayPico ?? null,
      a.soft?.monthPico ?? null,
      a.soft?.sessionPico ?? null,
    ])
    if (!row) throw new Error('gw_admit answered no row')
    return { refusal: row.refusal, a: BigInt(row.a), b: BigInt(row.b), soft: row.soft } as LimitAnswer
  }

  async settle(s: LimitSettlement): Promise<bigint | null> {
    const row = await (s.debit ? this.durable : this.fast).get<{ spent: string | null }>(SETTLE, [
      s.requestId,
      s.keyId,
      s.chargePico,
      s.debit ? 1 : 0,
      s.at,
      s.dayStart,
      s.monthStart,
      s.sessionId,
    ])
    return row?.spent == null ? null : BigInt(row.spent)
  }

  async heartbeat(instanceId: string, name: string): Promise<void> {
    await this.fast.run(
      `INSERT INTO gateway_instances (id, name, started_at, seen_at) VALUES (?, ?, gw_now_ms(), gw_now_ms())
       ON CONFLICT (id) DO UPDATE SET seen_at = EXCLUDED.seen_at, name = EXCLUDED.name`,
      [instanceId, name],
    )
  }

  async leave(instanceId: string): Promise<void> {
    await this.fast.atomically(async (tx) => {
      await tx.run(`DELETE FROM limit_holds WHERE instance_id = ?`, [instanceId])
      await tx.run(`DELETE FROM gateway_instances WHERE id = ?`, [instanceId])
    })
  }

  async reap(silentMs: number, sessionIdleMs: number): Promise<number> {
    return this.fast.atomically(async (tx) => {
      await tx.run(`DELETE FROM gateway_instances WHERE seen_at < gw_now_ms() - ?`, [silentMs])
      const released = await tx.run(`DELETE FROM limit_holds h WHERE NOT EXISTS (SELECT 1 FROM gateway_instances i WHERE i.id = h.instance_id)`)
      await tx.run(`DELETE FROM rate_buckets WHERE second < gw_now_ms() / 1000 - 60`)
      await tx.run(`DELETE FROM session_limits WHERE used_at < gw_now_ms() - ?`, [sessionIdleMs])
      return released
    })
  }
}
