/**
 * What a prepaid request pays for its debit being durable before its answer ends: one ledger row
 * inserted and committed synchronously on the gateway's main connection (WAL, synchronous=NORMAL),
 * alone and while the record thread commits batches of 64 records on its own connection (the two
 * share SQLite's single write lock, so a debit may wait for a batch's commit). Once the thread
 * runs, it alone runs the WAL's automatic checkpoints (RecordWriter.checkpointHere).
 * Usage: node --import tsx bench/prepaid-debit.ts [--debits 5000]
 */
import fs from 'node:fs'
import { parseArgs } from 'node:util'
import { openDatabase } from '../src/gateway/store/db'
import { KeysRepo } from '../src/gateway/store/keysRepo'
import { LedgerRepo } from '../src/gateway/store/ledgerRepo'
import { RecordWriter } from '../src/gateway/store/recordWriter'
import { newRequestId } from '../src/gateway/pipeline/requestContext'
import { recordFixture } from '../test/support/recordFixture'
import { tempDir } from '../test/support/tempDir'

const { values: args } = parseArgs({ options: { debits: { type: 'string', default: '5000' } } })
const DEBITS = Number(args.debits)

const dir = tempDir()
const db = openDatabase(dir)
const keyId = new KeysRepo(db).create('bench', { balanceUsd: 1000 }).info.id
const ledger = new LedgerRepo(db)

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

function measure(label: string, between: () => void): void {
  const took: number[] = []
  for (let i = 0; i < DEBITS; i++) {
    between()
    const t0 = performance.now()
    ledger.debit(keyId, 4_800_000n, newRequestId(), Date.now())
    took.push((performance.now() - t0) * 1000)
  }
  took.sort((a, b) => a - b)
  const f = (us: number) => `${us.toFixed(0)} µs`
  console.log(`${label}: p50 ${f(pct(took, 0.5))}, p90 ${f(pct(took, 0.9))}, p99 ${f(pct(took, 0.99))}, p99.9 ${f(pct(took, 0.999))}, max ${f(took[took.length - 1])}`)
}

measure('debit alone, this connection checkpointing', () => {})

// With the record thread running, as in the gateway: it checkpoints, this connection does not.
const writer = new RecordWriter(db)
writer.start()
while (!(writer as unknown as { isReady(): boolean }).isReady()) await new Promise((resolve) => setTimeout(resolve, 10))
measure('debit alone, the record thread checkpointing', () => {})
// The record thread busy: a full batch handed over before every debit, so its commits overlap them.
let n = 0
measure('debit while the record thread commits batches of 64', () => {
  for (let i = 0; i < 64; i++) writer.push(recordFixture({ id: newRequestId(), at: Date.now(), key: null }, { model: 'gpt-4o-mini', provider: 'openai', upstreamModel: 'gpt-4o-mini' }))
  if (++n % 4 === 0) writer.flush()
})
await writer.close()
db.close()
fs.rmSync(dir, { recursive: true, force: true })
