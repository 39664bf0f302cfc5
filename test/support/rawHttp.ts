import net from 'node:net'

export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
  /** Milliseconds from the first byte sent to the connection's close or the whole answer. */
  elapsedMs: number
}

/**
 * Sends bytes exactly as given over a fresh TCP connection (fetch and node:http would normalise
 * or refuse what these tests send) and reads one HTTP/1.1 answer. `pieces` are written `gapMs`
 * apart and the connection stays open after the last one, so a short body is a stalled one.
 */
export function rawRequest(baseUrl: string, pieces: Array<string | Buffer>, opts: { gapMs?: number; timeoutMs?: number } = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const socket = net.connect(Number(port), hostname)
    let data = Buffer.alloc(0)
    let done = false
    const finish = (err?: Error) => {
      if (done) return
      const parsed = parse(data)
      if (!parsed) {
        if (!err && !socket.destroyed) return
        done = true
        clearTimeout(timer)
        socket.destroy()
        return reject(new Error(`no complete HTTP answer (${err?.message ?? 'connection closed'}): ${JSON.stringify(data.toString('latin1').slice(0, 300))}`))
      }
      done = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ ...parsed, elapsedMs: Date.now() - started })
    }
    const timer = setTimeout(() => finish(new Error(`no answer within ${opts.timeoutMs ?? 10_000} ms`)), opts.timeoutMs ?? 10_000)
    socket.on('data', (d: Buffer) => {
      data = Buffer.concat([data, d])
      finish()
    })
    // A server that refuses early may reset the connection while pieces are still going out; what it answered still counts.
    socket.on('error', (err) => finish(err))
    socket.on('close', () => finish(new Error('connection closed')))
    void (async () => {
      for (const piece of pieces) {
        if (socket.destroyed) return
        socket.write(piece)
        if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs))
      }
    })()
  })
}

/** One complete HTTP/1.1 answer (by Content-Length or chunked), or null while more is to come. */
function parse(data: Buffer): Omit<RawResponse, 'elapsedMs'> | null {
  const end = data.indexOf('\r\n\r\n')
  if (end < 0) return null
  const [statusLine, ...lines] = data.toString('latin1', 0, end).split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const rest = data.subarray(end + 4)
  const body = headers['transfer-encoding'] === 'chunked' ? dechunk(rest) : rest.subarray(0, Number(headers['content-length'] ?? 0))
  if (!body || body.length < Number(headers['content-length'] ?? 0)) return null
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8') }
}

/** A chunked body's bytes once its last chunk has arrived. */
function dechunk(data: Buffer): Buffer | null {
  const parts: Buffer[] = []
  for (let at = 0; ;) {
    const eol = data.indexOf('\r\n', at)
    if (eol < 0) return null
    const size = parseInt(data.toString('latin1', at, eol), 16)
    if (size === 0) return Buffer.concat(parts)
    if (data.length < eol + 2 + size + 2) return null
    parts.push(data.subarray(eol + 2, eol + 2 + size))
    at = eol + 2 + size + 2
  }
}
