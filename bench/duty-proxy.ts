/**
 * The least a gateway can do that keeps the duties this one has on every request, with nothing
 * else: the Fastify proxy of fastify-proxy.mjs, plus the key checked (its SHA-256 compared in
 * constant time, as the gateway does), the answer read as JSON for its usage and priced, a
 * request record pushed through the gateway's own record writer into a SQLite store with the
 * gateway's schema and indexes (what the Requests screen's filters read), and the gateway's log
 * line written to a file through its own logger. A stream is piped as it comes, its usage read
 * from its tail at the end. No routing, presets, limits, headers or `gw`
 * block. Beside the bare proxy and the gateway (bench/floor.ts) it shows what those duties cost
 * on this machine, whatever else a gateway does.
 * It runs as the gateway does, bundled (`startDutyProxy` in procs.ts), not through tsx, whose
 * loader thread would count in its memory and CPU.
 * Usage: node --import tsx bench/duty-proxy.ts --upstream URL; prints {"url": ..., "key": ...} on stdout.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import Fastify from 'fastify'
import { Pool } from 'undici'
import { generateKey, hashesEqual, hashKey } from '../src/gateway/keys/inferenceKey'
import { openLog } from '../src/gateway/log'
import { newRequestId } from '../src/gateway/pipeline/requestContext'
import { openDatabase } from '../src/gateway/store/db'
import { RecordWriter } from '../src/gateway/store/recordWriter'
import { chatRecord } from './chat-record'

const { values } = parseArgs({ options: { upstream: { type: 'string' } } })
if (!values.upstream) throw new Error('--upstream URL is required')
const upstream = new Pool(values.upstream, { connections: 1024, keepAliveTimeout: 60_000 })

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-duty-proxy-'))
const db = openDatabase(dir)
db.prepare(`INSERT INTO keys (id, name, lookup, hash, last4, created_at) VALUES ('key_bench', 'bench', 'x', 'x', 'xxxx', 0)`).run()
const records = new RecordWriter(db)
records.start()
const log = openLog({ level: 'info', file: path.join(dir, 'gw.log') })
const key = generateKey()

interface Usage {
  prompt_tokens: number
  completion_tokens: number
}
/** What of a stream is kept to read its usage from: more than its last two events. */
const TAIL_CHARS = 2048

const app = Fastify({ logger: false, keepAliveTimeout: 120_000 })
app.post('/v1/chat/completions', async (req, reply) => {
  const started = performance.now()
  const secret = (req.headers.authorization ?? '').slice('Bearer '.length)
  if (!hashesEqual(hashKey(secret), key.hash)) return reply.code(401).send({ error: { message: 'invalid key' } })
  const body = req.body as { model?: unknown; stream?: unknown }
  if (typeof body?.model !== 'string') return reply.code(400).send({ error: { message: 'model is required' } })
  const up = await upstream.request({
    path: req.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-mock-bench' },
    body: JSON.stringify(body),
  })
  const done = (usage: Usage) => {
    const latencyMs = performance.now() - started
    const record = chatRecord(newRequestId(), usage, latencyMs, body.stream === true)
    records.push(record)
    log.logger.info(
      {
        endpoint: 'chat.completions',
        key: 'bench',
        model: body.model,
        provider: 'openai',
        status: up.statusCode,
        outcome: 'ok',
        latency_ms: latencyMs,
        cost_usd: record.cost!.final_usd,
      },
      'request',
    )
  }
  reply.code(up.statusCode)
  if (body.stream === true) {
    // Piped as it comes; the usage is in the last chunk before [DONE], so only the tail is kept.
    let tail = ''
    up.body.on('data', (bytes: Buffer) => void (tail = (tail + bytes.toString('utf8')).slice(-TAIL_CHARS)))
    up.body.on('end', () => {
      const event = tail.split('\n\n').findLast((e) => e.includes('"usage":{'))
      done(event ? (JSON.parse(event.slice('data: '.length)) as { usage: Usage }).usage : { prompt_tokens: 0, completion_tokens: 0 })
    })
    return reply.header('content-type', 'text/event-stream').send(up.body)
  }
  const text = await up.body.text()
  done((JSON.parse(text) as { usage: Usage }).usage)
  return reply.header('content-type', 'application/json').send(text)
})
// The gateway's backlog (server.ts): a thousand connections at once do not overflow it.
await app.listen({ host: '127.0.0.1', port: 0, backlog: 4096 })
const { port } = app.server.address() as import('node:net').AddressInfo
process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${port}`, key: key.secret }) + '\n')
const stop = () =>
  void app
    .close()
    .then(() => records.close())
    .then(() => log.close())
    .then(() => {
      db.close()
      fs.rmSync(dir, { recursive: true, force: true })
      process.exit(0)
    })
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
