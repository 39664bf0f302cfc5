/**
 * The benchmark's load generator, on undici alone: a keep-alive Pool per target, closed-loop
 * (N connections each sending its next request as soon as the last answered), open-loop (a fixed
 * rate, latency measured from the moment a request was due, so a slow target cannot hide its
 * queueing), one-at-a-time, and concurrent streams with per-chunk timing.
 */
import { Pool } from 'undici'

/** What each request of a run sends, wherever its pool points. */
export interface Call {
  path: string
  headers: Record<string, string>
}

export interface Target extends Call {
  name: string
  origin: string
}

export interface Stats {
  count: number
  errors: number
  seconds: number
  rps: number
  p50: number
  p90: number
  p99: number
  max: number
  firstError?: string
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[i]
}

export const median = (xs: number[]) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b)
  if (s.length === 0) return NaN
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

function summarize(latencies: number[], errors: number, seconds: number, firstError?: string): Stats {
  const s = Float64Array.from(latencies).sort()
  const arr = Array.from(s)
  return {
    count: arr.length,
    errors,
    seconds,
    rps: arr.length / seconds,
    p50: percentile(arr, 50),
    p90: percentile(arr, 90),
    p99: percentile(arr, 99),
    max: arr.length ? arr[arr.length - 1] : NaN,
    ...(firstError ? { firstError } : {}),
  }
}

export function makePool(origin: string, connections: number): Pool {
  return new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 600_000, headersTimeout: 30_000, bodyTimeout: 30_000 })
}

/**
 * One pool per origin of a target served at several (gateways sharing one store), `connections`
 * split among them: `closedLoop` gives its workers the pools in turn, so connection i goes to
 * origin i mod n, as a round-robin load balancer would send them.
 */
export function makePools(origins: string[], connections: number): Pool[] {
  return origins.map((o) => makePool(o, Math.ceil(connections / origins.length)))
}

async function once(pool: Pool, t: Call, body: string): Promise<{ ok: boolean; error?: string }> {
  try {
    const res = await pool.request({ path: t.path, method: 'POST', headers: t.headers, body })
    const text = await res.body.text()
    if (res.statusCode !== 200) return { ok: false, error: `${res.statusCode} ${text.slice(0, 200)}` }
    return { ok: true }
  } catch (err) {
    return { ok: false, error: (err as Error).message }
  }
}

/** Latencies and errors of the requests one run makes, and the run's stats at its end. */
function tally() {
  const lat: number[] = []
  let errors = 0
  let firstError: string | undefined
  return {
    /** Sends one request; its latency counts from `from` (now, or when an open loop meant to send it). */
    async send(pool: Pool, t: Call, body: string, from = performance.now()): Promise<void> {
      const r = await once(pool, t, body)
      if (r.ok) lat.push(performance.now() - from)
      else {
        errors++
        firstError ??= r.error
      }
    },
    stats: (start: number): Stats => summarize(lat, errors, (performance.now() - start) / 1000, firstError),
  }
}

/** One request at a time for `count` requests. */
export async function sequential(pool: Pool, t: Call, body: string, count: number): Promise<Stats> {
  const run = tally()
  const start = performance.now()
  for (let i = 0; i < count; i++) await run.send(pool, t, body)
  return run.stats(start)
}

/** `connections` workers, each with one request in flight, for `ms`; given several pools, worker i sends through pool i mod n. */
export async function closedLoop(pool: Pool | Pool[], t: Call, body: string, connections: number, ms: number): Promise<Stats> {
  const pools = Array.isArray(pool) ? pool : [pool]
  const run = tally()
  const start = performance.now()
  const end = start + ms
  const worker = async (i: number) => {
    const own = pools[i % pools.length]
    while (performance.now() < end) await run.send(own, t, body)
  }
  await Promise.all(Array.from({ length: connections }, (_, i) => worker(i)))
  return run.stats(start)
}

/**
 * Open loop: request i is due at start + i/rate and is sent then (or as soon as the event loop
 * gets to it); its latency counts from when it was due.
 */
export async function openLoop(pool: Pool, t: Call, body: string, rate: number, ms: number): Promise<Stats & { achievedRps: number; maxLagMs: number }> {
  const run = tally()
  let maxLag = 0
  const total = Math.round((rate * ms) / 1000)
  const inflight: Promise<void>[] = []
  const start = performance.now()
  let sent = 0
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now()
      while (sent < total && start + (sent * 1000) / rate <= now) {
        const due = start + (sent * 1000) / rate
        maxLag = Math.max(maxLag, now - due)
        sent++
        inflight.push(run.send(pool, t, body, due))
      }
      if (sent >= total) return resolve()
      setTimeout(tick, Math.max(0, start + (sent * 1000) / rate - performance.now() - 0.5))
    }
    tick()
  })
  const sendSeconds = (performance.now() - start) / 1000
  await Promise.all(inflight)
  return { ...run.stats(start), achievedRps: sent / sendSeconds, maxLagMs: maxLag }
}

export interface StreamStats {
  streams: number
  failed: number
  /** Streams that ended with fewer content chunks than the mock sent, or without [DONE]. */
  incomplete: number
  chunksExpected: number
  chunksReceived: number
  ttfcP50: number
  ttfcP99: number
  ttlcP50: number
  ttlcP99: number
  firstError?: string
}

type OneStream = { ok: true; ttfc: number; ttlc: number; content: number } | { ok: false; failed: boolean; content: number; error: string }

/** One streamed request: first chunk = first SSE `data:` event, last = `[DONE]`. */
async function oneStream(pool: Pool, t: Call, body: string, expectedChunks: number): Promise<OneStream> {
  const t0 = performance.now()
  let content = 0
  try {
    const res = await pool.request({ path: t.path, method: 'POST', headers: t.headers, body })
    if (res.statusCode !== 200) return { ok: false, failed: true, content, error: `${res.statusCode} ${(await res.body.text()).slice(0, 200)}` }
    let first = -1
    let buf = ''
    let done = false
    for await (const piece of res.body) {
      buf += (piece as Buffer).toString()
      let at: number
      while ((at = buf.indexOf('\n\n')) >= 0) {
        const ev = buf.slice(0, at)
        buf = buf.slice(at + 2)
        for (const line of ev.split('\n')) {
          if (!line.startsWith('data:')) continue
          if (first < 0) first = performance.now() - t0
          const data = line.slice(5).trim()
          if (data === '[DONE]') {
            done = true
            continue
          }
          const json = JSON.parse(data)
          if (json.error) throw new Error(`error event: ${JSON.stringify(json.error).slice(0, 200)}`)
          for (const c of json.choices ?? []) if (typeof c.delta?.content === 'string' && c.delta.content !== '') content++
        }
      }
    }
    if (!done || content < expectedChunks)
      return { ok: false, failed: false, content, error: `stream ended with ${content}/${expectedChunks} chunks, done=${done}` }
    return { ok: true, ttfc: first, ttlc: performance.now() - t0, content }
  } catch (err) {
    return { ok: false, failed: true, content, error: (err as Error).message }
  }
}

function streamStats(results: OneStream[], expectedChunks: number): StreamStats {
  const done = results.filter((r) => r.ok)
  const a = done.map((r) => r.ttfc).sort((x, y) => x - y)
  const b = done.map((r) => r.ttlc).sort((x, y) => x - y)
  const firstError = results.find((r) => !r.ok)
  return {
    streams: results.length,
    failed: results.filter((r) => !r.ok && r.failed).length,
    incomplete: results.filter((r) => !r.ok && !r.failed).length,
    chunksExpected: results.length * expectedChunks,
    chunksReceived: results.reduce((n, r) => n + r.content, 0),
    ttfcP50: percentile(a, 50),
    ttfcP99: percentile(a, 99),
    ttlcP50: percentile(b, 50),
    ttlcP99: percentile(b, 99),
    ...(firstError && !firstError.ok ? { firstError: firstError.error } : {}),
  }
}

/** `concurrency` streams started at the same moment: the set-up of all of them queues at once. */
export async function streams(pool: Pool, t: Call, body: string, concurrency: number, expectedChunks: number): Promise<StreamStats> {
  const results = await Promise.all(Array.from({ length: concurrency }, () => oneStream(pool, t, body, expectedChunks)))
  return streamStats(results, expectedChunks)
}

/**
 * `concurrency` streams kept open for `ms`: each is replaced by a new one as it ends, and the first
 * ones start spread over one stream's length (`streamMs`) so arrivals are even. Counts the streams
 * started after that ramp, each of which runs beside `concurrency - 1` others.
 */
export async function sustainedStreams(
  pool: Pool,
  t: Call,
  body: string,
  concurrency: number,
  expectedChunks: number,
  streamMs: number,
  ms: number,
): Promise<StreamStats> {
  const start = performance.now()
  const counted: OneStream[] = []
  const lane = async (i: number) => {
    await new Promise((r) => setTimeout(r, (i * streamMs) / concurrency))
    while (performance.now() - start < ms) {
      const afterRamp = performance.now() - start >= streamMs
      const r = await oneStream(pool, t, body, expectedChunks)
      if (afterRamp) counted.push(r)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, (_, i) => lane(i)))
  return streamStats(counted, expectedChunks)
}
