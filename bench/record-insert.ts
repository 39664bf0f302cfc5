/**
 * What writing a request record costs as the table grows, with the gateway's request ids (in time
 * order) and with random ids of the same length (what the gateway used before). Writes the same
 * record the benchmark's chat requests produce, in batches of 64 as the record thread does, through
 * the real schema and batch writer, into a fresh SQLite file for each kind of id.
 * Usage: node --import tsx bench/record-insert.ts [--records 250240]
 * Writes bench/results/record-insert.{json,md}.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { openDatabase } from '../src/gateway/store/db'
import { recordBatchWriter, type QueuedRecord } from '../src/gateway/store/recordBatch'
import { chatRecord } from './chat-record'
import { newRequestId } from '../src/gateway/pipeline/requestContext'
import { ROOT } from './procs'

const { values: args } = parseArgs({ options: { records: { type: 'string', default: '250240' } } })
const RECORDS = Number(args.records)
const WINDOW = 50_048 // a multiple of the batch size
const BATCH = 64

const ids = {
  'time-ordered (req_ + time + 72 random bits)': () => newRequestId(),
  'random (req_ + 120 random bits)': () => `req_${randomBytes(15).toString('base64url')}`,
}

const results: Record<string, number[]> = {}
for (const [label, nextId] of Object.entries(ids)) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-record-insert-'))
  const db = openDatabase(dir)
  db.prepare(`INSERT INTO keys (id, name, lookup, hash, last4, created_at) VALUES ('key_bench', 'bench', 'x', 'x', 'xxxx', 0)`).run()
  const write = recordBatchWriter(db)
  const perWindow: number[] = []
  let t0 = performance.now()
  for (let n = BATCH; n <= RECORDS; n += BATCH) {
    const items: QueuedRecord[] = Array.from({ length: BATCH }, () => ({ record: chatRecord(nextId()), debit: null, bodies: null, at: Date.now() }))
    write(items, [['key_bench', Date.now()]])
    if (n % WINDOW === 0) {
      const now = performance.now()
      perWindow.push(((now - t0) * 1000) / WINDOW)
      t0 = now
      process.stderr.write(`${label}: ${n} records, ${perWindow.at(-1)!.toFixed(1)} µs each\n`)
    }
  }
  results[label] = perWindow
  db.close()
  fs.rmSync(dir, { recursive: true, force: true })
}

const windows = Math.floor(RECORDS / WINDOW)
const md = [
  `Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus()[0]?.model}: µs per record written (one transaction per ${BATCH} records), by table size.`,
  '',
  `| Records in the table | ${Object.keys(results).join(' | ')} |`,
  `|---|${Object.keys(results)
    .map(() => '---')
    .join('|')}|`,
  ...Array.from(
    { length: windows },
    (_, i) =>
      `| ${(i * WINDOW).toLocaleString('en')}–${((i + 1) * WINDOW).toLocaleString('en')} | ${Object.values(results)
        .map((r) => r[i].toFixed(1))
        .join(' | ')} |`,
  ),
  '',
].join('\n')
fs.writeFileSync(
  path.join(ROOT, 'bench/results/record-insert.json'),
  JSON.stringify({ date: new Date().toISOString(), node: process.version, records: RECORDS, batch: BATCH, us_per_record: results }, null, 2) + '\n',
)
fs.writeFileSync(path.join(ROOT, 'bench/results/record-insert.md'), md)
process.stdout.write(md)
