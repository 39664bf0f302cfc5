import { keyPolicy, type KeyPolicy, type SoftCap } from '../../contract/keys'
export type { SoftLimit } from '../../contract/keys'
import { usdToPico } from '../../contract/money'
import type { KeyRow } from '../store/keysRepo'

/**
 * A key's rules as admission applies them: its policy, and every amount of money it limits in
 * whole pico-dollars, the unit balances and spend are counted in. People write them in USD; they
 * are converted here, once per key row read, so no limit is compared as a float.
 */
export interface KeyRules {
  policy: KeyPolicy
  dailyPico: bigint | null
  monthlyPico: bigint | null
  /** `max_cost_per_request_usd`. */
  requestPico: bigint | null
  /** `max_session_usd`. */
  sessionPico: bigint | null
  /** The key's soft cap, where it has one and a spend limit for it to be near. */
  soft: SoftRules | null
}

/** A key's soft cap as admission applies it: its model, and the share of each spend limit it starts at, in pico-dollars. */
export interface SoftRules {
  model: string
  percent: number
  dailyPico: bigint | null
  monthlyPico: bigint | null
  sessionPico: bigint | null
}

const pico = (usd: number | null | undefined) => (usd === null || usd === undefined ? null : usdToPico(usd))

/** Policies are validated on save; parsing again here guards against a hand-edited store. */
function rulesOf(key: KeyRow): KeyRules {
  const policy = keyPolicy.parse(JSON.parse(key.policy))
  const dailyPico = pico(key.daily_limit_usd)
  const monthlyPico = pico(key.monthly_limit_usd)
  const sessionPico = pico(policy.max_session_usd)
  return {
    policy,
    dailyPico,
    monthlyPico,
    requestPico: pico(policy.max_cost_per_request_usd),
    sessionPico,
    soft: policy.soft_cap ? softRules(policy.soft_cap, { dailyPico, monthlyPico, sessionPico }) : null,
  }
}

/** A soft cap over a key's spend limits: null when the key has none for it to be near. */
export function softRules(cap: SoftCap, limits: Pick<KeyRules, 'dailyPico' | 'monthlyPico' | 'sessionPico'>): SoftRules | null {
  const { dailyPico, monthlyPico, sessionPico } = limits
  if (dailyPico === null && monthlyPico === null && sessionPico === null) return null
  const share = (limit: bigint | null) => (limit === null ? null : (limit * BigInt(cap.at_percent)) / 100n)
  return { model: cap.model, percent: cap.at_percent, dailyPico: share(dailyPico), monthlyPico: share(monthlyPico), sessionPico: share(sessionPico) }
}

/** A key as the pipeline reads it: its row, with its rules parsed once, when the keys are loaded, never per request. */
export type Key = KeyRow & { readonly rules: KeyRules }

export const parseKey = (row: KeyRow): Key => ({ ...row, rules: rulesOf(row) })

/** Whether a key limits its sessions (their spend, or their number of requests). */
export const capsSessions = (r: KeyRules): boolean => r.sessionPico !== null || r.policy.max_session_requests !== undefined
