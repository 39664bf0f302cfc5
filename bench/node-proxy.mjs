/**
 * The least a Node proxy can do, as a second floor beside the direct path: `http.createServer`
 * reads the request, forwards it with undici (a keep-alive pool, as the gateway uses), and pipes
 * the answer back as it arrives, SSE included. No authentication, parsing, pricing or records, so
 * what the gateway adds beyond this column is the gateway's own work, and what this column adds
 * beyond direct is the extra hop on this machine.
 * Plain JavaScript, run without tsx, so its CPU and RSS are Node's and undici's alone.
 * Usage: node bench/node-proxy.mjs --upstream URL; prints {"url": ...} on stdout.
 */
import http from 'node:http'
import { pipeline } from 'node:stream/promises'
import { parseArgs } from 'node:util'
import { Pool } from 'undici'

const { values } = parseArgs({ options: { upstream: { type: 'string' } } })
if (!values.upstream) throw new Error('--upstream URL is required')
// As many upstream connections as the gateway's default (`--upstream-connections`, 1,024): scenario D
// opens 1,000 streams at once, and a smaller pool would queue some of them behind whole streams.
const upstream = new Pool(values.upstream, { connections: 1024, keepAliveTimeout: 60_000 })

const server = http.createServer((req, res) => {
  const parts = []
  req.on('data', (d) => parts.push(d))
  req.on('end', () => {
    upstream
      .request({
        path: req.url ?? '/',
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
        body: Buffer.concat(parts),
      })
      .then(async (up) => {
        res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? 'application/json') })
        await pipeline(up.body, res)
      })
      .catch((err) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: err.message, type: 'server_error' } }))
      })
  })
})
server.keepAliveTimeout = 120_000
server.headersTimeout = 125_000
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address()
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${port}` }) + '\n')
})
const stop = () => server.close(() => process.exit(0))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
