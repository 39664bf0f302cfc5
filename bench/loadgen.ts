/**
 * The benchmark's load generator, on undici alone: a keep-alive Pool per target, closed-loop
 * (N connections each sending its next request as soon as the last answered), open-loop (a fixed
 * rate, latency measured from the moment a request was due, so a slow target cannot hide its
 * queueing), one-at-a-time, and concurrent streams with per-chunk timing.
 */
import { Pool } from 'undici'

export interface Target {
  name: string
  origin: string
  path: string
  headers: Record<string, string>
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

async function once(pool: Pool, t: Target, body: string): Promise<{ ok: boolean; error?: string }> {
  try {
    const res = await pool.request({ path: t.path, method: 'POST', headers: t.headers, body })
    const text = await res.body.text()
    if (res.statusCode !== 200) return { ok: false, error: `${res.statusCode} ${text.slice(0, 200)}` }
    return { ok: true }
  } catch (err) {
    return { ok: false, error: (err as Error).message }
  }
}

/** One request at a time for `count` requests. */
export async function sequential(pool: Pool, t: Target, body: string, count: number): Promise<Stats> {
  const lat: number[] = []
  let errors = 0
  let firstError: string | undefined
  const start = performance.now()
  for (let i = 0; i < count; i++) {
    const t0 = performance.now()
    const r = await once(pool, t, body)
    if (r.ok) lat.push(performance.now() - t0)
    else {
      errors++
      firstError ??= r.error
    }
  }
  return summarize(lat, errors, (performance.now() - start) / 1000, firstError)
}

/** `connections` workers, each with one request in flight, for `ms`. */
export async function closedLoop(pool: Pool, t: Target, body: string, connections: number, ms: number): Promise<Stats> {
  const lat: number[] = []
  let errors = 0
  let firstError: string | undefined
  const start = performance.now()
  const end = start + ms
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now()
      const r = await once(pool, t, body)
      if (r.ok) lat.push(performance.now() - t0)
      else {
        errors++
        firstError ??= r.error
      }
    }
  }
  await Promise.all(Array.from({ length: connections }, worker))
  return summarize(lat, errors, (performance.now() - start) / 1000, firstError)
}

/**
 * Open loop: request i is due at start + i/rate and is sent then (or as soon as the event loop
 * gets to it); its latency counts from when it was due.
 */
export async function openLoop(pool: Pool, t: Target, body: string, rate: number, ms: number): Promise<Stats & { achievedRps: number; maxLagMs: number }> {
  const lat: number[] = []
  let errors = 0
  let firstError: string | undefined
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
        inflight.push(
          once(pool, t, body).then((r) => {
            if (r.ok) lat.push(performance.now() - due)
            else {
              errors++
              firstError ??= r.error
            }
          }),
        )
      }
      if (sent >= total) return resolve()
      setTimeout(tick, Math.max(0, start + (sent * 1000) / rate - performance.now() - 0.5))
    }
    tick()
  })
  const sendSeconds = (performance.now() - start) / 1000
  await Promise.all(inflight)
  const s = summarize(lat, errors, (performance.now() - start) / 1000, firstError)
  return { ...s, achievedRps: sent / sendSeconds, maxLagMs: maxLag }
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

/** `concurrency` streams started together; first chunk = first SSE `data:` event, last = `[DONE]`. */
export async function streams(pool: Pool, t: Target, body: string, concurrency: number, expectedChunks: number): Promise<StreamStats> {
  const ttfc: number[] = []
  const ttlc: number[] = []
  let failed = 0
  let incomplete = 0
  let received = 0
  let firstError: string | undefined
  const one = async () => {
    const t0 = performance.now()
    try {
      const res = await pool.request({ path: t.path, method: 'POST', headers: t.headers, body })
      if (res.statusCode !== 200) {
        failed++
        firstError ??= `${res.statusCode} ${(await res.body.text()).slice(0, 200)}`
        return
      }
      let first = -1
      let buf = ''
      let content = 0
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
      received += content
      if (!done || content < expectedChunks) {
        incomplete++
        firstError ??= `stream ended with ${content}/${expectedChunks} chunks, done=${done}`
        return
      }
      ttfc.push(first)
      ttlc.push(performance.now() - t0)
    } catch (err) {
      failed++
      firstError ??= (err as Error).message
    }
  }
  await Promise.all(Array.from({ length: concurrency }, one))
  const a = ttfc.sort((x, y) => x - y)
  const b = ttlc.sort((x, y) => x - y)
  return {
    streams: concurrency,
    failed,
    incomplete,
    chunksExpected: concurrency * expectedChunks,
    chunksReceived: received,
    ttfcP50: percentile(a, 50),
    ttfcP99: percentile(a, 99),
    ttlcP50: percentile(b, 50),
    ttlcP99: percentile(b, 99),
    ...(firstError ? { firstError } : {}),
  }
}
