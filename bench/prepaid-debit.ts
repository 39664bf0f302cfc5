/**
 * What a prepaid request pays for its debit being durable before its answer ends: one ledger row
 * inserted and committed synchronously on the gateway's main connection (WAL, synchronous=NORMAL),
 * alone and beside the record thread committing each debit's request record on its own
 * connection (the two share SQLite's single write lock, so a debit may wait for a batch's
 * commit). Once the thread runs, it alone runs the WAL's automatic checkpoints
 * (RecordWriter.checkpointHere).
 * Usage: node --import tsx bench/prepaid-debit.ts [--debits 20000]
 */
import fs from 'node:fs'
import { setImmediate as tick } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { openDatabase } from '../src/gateway/store/db'
import { KeysRepo } from '../src/gateway/store/keysRepo'
import { LedgerRepo } from '../src/gateway/store/ledgerRepo'
import { SqliteSql } from '../src/gateway/store/sqliteSql'
import { RecordWriter } from '../src/gateway/store/recordWriter'
import { newRequestId } from '../src/gateway/pipeline/requestContext'
import { recordFixture } from '../test/support/recordFixture'
import { tempDir } from '../test/support/tempDir'

const { values: args } = parseArgs({ options: { debits: { type: 'string', default: '20000' } } })
const DEBITS = Number(args.debits)

const dir = tempDir()
const db = openDatabase(dir)
const sql = new SqliteSql(db)
const keyId = (await new KeysRepo(sql).create('bench', { balanceUsd: 1000 })).info.id
const ledger = new LedgerRepo(sql)

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

async function measure(label: string, beside: (id: string) => void = () => {}): Promise<void> {
  const took: number[] = []
  const t0 = performance.now()
  for (let i = 0; i < DEBITS; i++) {
    const id = newRequestId()
    const d0 = performance.now()
    await ledger.debit(keyId, 4_800_000n, id, Date.now())
    took.push((performance.now() - d0) * 1000)
    beside(id)
    // Let timers run (the writer hands its batches over on them), as the gateway's event loop does.
    if (i % 8 === 0) await tick()
  }
  const elapsed = performance.now() - t0
  const mean = took.reduce((a, b) => a + b, 0) / took.length
  took.sort((a, b) => a - b)
  const f = (us: number) => `${us.toFixed(0)} µs`
  console.log(
    `${label}: mean ${f(mean)}, p50 ${f(pct(took, 0.5))}, p90 ${f(pct(took, 0.9))}, p99 ${f(pct(took, 0.99))}, p99.9 ${f(pct(took, 0.999))}; ` +
      `${((DEBITS / elapsed) * 1000).toFixed(0)} debits/s, ${(((mean * DEBITS) / 1000 / elapsed) * 100).toFixed(0)} % of the loop`,
  )
}

await measure('debit alone, this connection checkpointing')

// With the record thread running, as in the gateway: it checkpoints, this connection does not.
const writer = new RecordWriter(db)
writer.start()
while (!(writer as unknown as { isReady(): boolean }).isReady()) await new Promise((resolve) => setTimeout(resolve, 10))
await measure('debit alone, the record thread checkpointing')
// A prepaid gateway at full speed: every debit's request record goes to the thread, which
// commits a batch every 64 while debits go on (they share SQLite's write lock).
await measure('debit beside its record, at full speed', (id) =>
  writer.push(recordFixture({ id, at: Date.now(), key: null }, { model: 'gpt-4o-mini', provider: 'openai', upstreamModel: 'gpt-4o-mini' })),
)
await writer.close()
db.close()
fs.rmSync(dir, { recursive: true, force: true })
