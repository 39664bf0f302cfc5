const usdFmt = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 })

/** Dollars with enough digits for sub-cent request costs: $0.000435, $12.50. */
export function usd(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—'
  if (n === 0) return '$0.00'
  const abs = Math.abs(n)
  if (abs >= 0.01) return usdFmt.format(n)
  const digits = Math.min(10, Math.max(4, 2 - Math.floor(Math.log10(abs)) + 1))
  return `${n < 0 ? '-' : ''}$${abs.toFixed(digits).replace(/0+$/, '')}`
}

/** Short dollar labels for chart axes: $0, $0.00002, $1.5, $120. */
export function usdAxis(n: number): string {
  if (!n) return '$0'
  const abs = Math.abs(n)
  const text = abs >= 1 ? String(Number(abs.toFixed(2))) : String(Number(abs.toPrecision(2)))
  return `${n < 0 ? '-' : ''}$${text}`
}

/** "1 error", "2 errors". */
export const plural = (n: number, one: string, many = `${one}s`) => `${new Intl.NumberFormat('en-US').format(n)} ${n === 1 ? one : many}`

export const int = (n: number | null | undefined) => (n === null || n === undefined ? '—' : new Intl.NumberFormat('en-US').format(n))

/** A size in the unit that reads best: 820 B, 14.2 KB, 16 KB, 3.5 MB, 256 MB, 1 GB. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`
  const [value, unit] = n < 1024 ** 2 ? [n / 1024, 'KB'] : n < 1024 ** 3 ? [n / 1024 ** 2, 'MB'] : [n / 1024 ** 3, 'GB']
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`
}

export const compact = (n: number) => new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 }).format(n)

export const pct = (n: number | null | undefined) => (n === null || n === undefined ? '—' : `${(n * 100).toFixed(n > 0 && n < 0.01 ? 2 : 1)}%`)

export const ms = (n: number | null | undefined) => (n === null || n === undefined ? '—' : n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`)

export function dateTime(t: number | string | null | undefined): string {
  if (t === null || t === undefined) return '—'
  const d = new Date(t)
  if (Number.isNaN(d.getTime())) return String(t)
  return d.toLocaleString('en-US', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' })
}

export function ago(t: number | null | undefined, now = Date.now()): string {
  if (!t) return 'never'
  const s = Math.round((now - t) / 1000)
  if (s < 45) return 'just now'
  if (s < 3600) return `${Math.round(s / 60)} min ago`
  if (s < 86400) return `${Math.round(s / 3600)} h ago`
  return `${Math.round(s / 86400)} d ago`
}

/** Optional number from a text input: '' → undefined; NaN stays NaN so validation can say so. */
export function numOrUndef(s: string): number | undefined {
  const t = s.trim()
  return t === '' ? undefined : Number(t)
}
export function numOrNull(s: string): number | null {
  const t = s.trim()
  return t === '' ? null : Number(t)
}
export const list = (s: string) =>
  s
    .split(/[,\n]/)
    .map((x) => x.trim())
    .filter(Boolean)

/**
 * How fast the answer came: output tokens per second. A stream is timed from its first byte to its
 * end, so the wait before the first token does not count; a whole answer only has its total time.
 */
export function outputSpeed(tokens: number | null, latencyMs: number | null, ttfbMs: number | null, streamed: boolean): string {
  if (!tokens || latencyMs === null) return '—'
  const fromFirstByte = streamed && ttfbMs !== null
  const seconds = (fromFirstByte ? latencyMs - ttfbMs : latencyMs) / 1000
  if (seconds <= 0) return '—'
  return `${(tokens / seconds).toFixed(1)} tokens/s ${fromFirstByte ? 'after the first byte' : 'over the whole request'}`
}
