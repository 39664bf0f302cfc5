/**
 * The least a gateway built on this stack can do: Fastify (the gateway's framework, its default
 * JSON body parser) reads the request's body as JSON, as any gateway must to learn the model,
 * forwards it with undici (a keep-alive pool, as the gateway uses) and sends the answer back,
 * streams piped. No authentication, pricing, records or logs. Beside the bare Node proxy
 * (node-proxy.mjs) it shows what the framework and one parse alone cost on this machine
 * (bench/floor.ts). Plain JavaScript, run without tsx.
 * Usage: node bench/fastify-proxy.mjs --upstream URL; prints {"url": ...} on stdout.
 */
import { parseArgs } from 'node:util'
import Fastify from 'fastify'
import { Pool } from 'undici'

const { values } = parseArgs({ options: { upstream: { type: 'string' } } })
if (!values.upstream) throw new Error('--upstream URL is required')
const upstream = new Pool(values.upstream, { connections: 1024, keepAliveTimeout: 60_000 })

const app = Fastify({ logger: false, keepAliveTimeout: 120_000 })
app.post('/v1/chat/completions', async (req, reply) => {
  const body = /** @type {{ model?: unknown }} */ (req.body)
  if (typeof body?.model !== 'string') return reply.code(400).send({ error: { message: 'model is required' } })
  const up = await upstream.request({
    path: req.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
    body: JSON.stringify(body),
  })
  reply.code(up.statusCode).header('content-type', String(up.headers['content-type'] ?? 'application/json'))
  return reply.send(up.body)
})
await app.listen({ host: '127.0.0.1', port: 0 })
const { port } = /** @type {import('node:net').AddressInfo} */ (app.server.address())
process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${port}` }) + '\n')
const stop = () => void app.close().then(() => process.exit(0))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
