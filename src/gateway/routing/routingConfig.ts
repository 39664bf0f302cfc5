export interface RoutingConfig {
  /** Retries of the same provider after the first attempt, for retryable failures. */
  maxRetries: number
  baseDelayMs: number
  maxDelayMs: number
  /** A provider's retry-after is honoured up to this; longer waits go to the next fallback instead. */
  retryAfterCapMs: number
  /** Consecutive failures after which a provider is skipped for `cooldownMs`. */
  cooldownAfterFailures: number
  cooldownMs: number
}

export const defaultRouting: RoutingConfig = {
  maxRetries: 2,
  baseDelayMs: 250,
  maxDelayMs: 4000,
  retryAfterCapMs: 10_000,
  cooldownAfterFailures: 3,
  cooldownMs: 30_000,
}

/** Exponential backoff with jitter in (0.75, 1], like the official SDKs, so retries from many clients spread out. */
export function backoffMs(config: RoutingConfig, retry: number, random = Math.random): number {
  const exp = Math.min(config.baseDelayMs * 2 ** retry, config.maxDelayMs)
  return Math.round(exp * (1 - 0.25 * random()))
}

/** `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date, counted from `now`), in milliseconds. */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>, now: number): number | null {
  const ms = Number(headers['retry-after-ms'])
  if (headers['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms
  const v = headers['retry-after']
  if (typeof v !== 'string' || v.trim() === '') return null
  const seconds = Number(v)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(v)
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}
