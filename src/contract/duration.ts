/**
 * A duration as people write one for the response cache's TTL (`90s`, `30m`, `1h`, `7d`, or bare
 * seconds), in whole seconds; null when the text is none of these. The header `X-Gw-Cache`, the
 * body's `gw.cache`, the CLI's `--cache-ttl` and the dashboard's key form all read it here.
 */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d{1,9})\s*([smhd]?)\s*$/i.exec(text)
  if (!m) return null
  return Number(m[1]) * UNIT_S[(m[2] || 's').toLowerCase() as keyof typeof UNIT_S]
}

const UNIT_S = { s: 1, m: 60, h: 3_600, d: 86_400 }

/** Whole seconds as the shortest exact duration of one unit (`3600` → `1h`, `90` → `90s`). */
export function formatDuration(seconds: number): string {
  // The largest unit first; seconds divide by `s` always.
  const [unit, size] = Object.entries(UNIT_S)
    .reverse()
    .find(([, size]) => seconds >= size && seconds % size === 0) ?? ['s', 1]
  return `${seconds / size}${unit}`
}
