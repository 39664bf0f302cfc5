/** The ranges that end now. */
export type PresetRangeId = '24h' | '7d' | '30d'
export type RangeId = PresetRangeId | 'custom'

export const RANGES: Array<{ value: PresetRangeId; label: string }> = [
  { value: '24h', label: '24 h' },
  { value: '7d', label: '7 d' },
  { value: '30d', label: '30 d' },
]

const HOUR = 3_600_000
const DAY = 86_400_000

export interface Range {
  id: RangeId
  from: number
  to: number
  bucket: 'hour' | 'day'
  step: number
}

/** The window ending now (rounded up to the next minute, so repeated renders ask the same thing). */
export function rangeOf(id: PresetRangeId, now = Date.now()): Range {
  const to = Math.ceil(now / 60_000) * 60_000
  if (id === '24h') return { id, from: to - DAY, to, bucket: 'hour', step: HOUR }
  if (id === '7d') return { id, from: to - 7 * DAY, to, bucket: 'day', step: DAY }
  return { id, from: to - 30 * DAY, to, bucket: 'day', step: DAY }
}

/**
 * Whole local days from `fromDay` through `toDay` (both `YYYY-MM-DD`, as a date input gives them),
 * in hourly buckets up to two days and daily ones beyond; what is wrong instead when it is no range.
 */
export function customRange(fromDay: string, toDay: string): Range | string {
  const from = new Date(`${fromDay}T00:00:00`).getTime()
  const end = new Date(`${toDay}T00:00:00`)
  end.setDate(end.getDate() + 1)
  const to = end.getTime()
  if (!Number.isFinite(from) || !Number.isFinite(to)) return 'Choose a first and a last day.'
  if (to <= from) return 'The last day comes before the first.'
  const hourly = to - from <= 2 * DAY
  return { id: 'custom', from, to, bucket: hourly ? 'hour' : 'day', step: hourly ? HOUR : DAY }
}

/** `YYYY-MM-DD` of a time, in local time. */
export const dayOf = (t: number) => {
  const d = new Date(t)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}

/** One point per bucket across the range, empty buckets as zeros, so charts show gaps as zero. */
export function fillSeries<P extends { t: number }>(points: P[], range: Range, zero: (t: number) => P): P[] {
  const start = Math.floor(range.from / range.step) * range.step
  const slots = new Map<number, P>()
  for (let t = start; t < range.to; t += range.step) slots.set(t, zero(t))
  for (const p of points) {
    const slot = Math.floor(p.t / range.step) * range.step
    slots.set(slot, p)
  }
  return [...slots.values()].sort((a, b) => a.t - b.t)
}

export function tickLabel(t: number, bucket: 'hour' | 'day', spanDays: number): string {
  const d = new Date(t)
  if (bucket === 'day' || spanDays > 2) return d.toLocaleDateString('en-US', { month: 'short', day: 'numeric' })
  return d.toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit' })
}
