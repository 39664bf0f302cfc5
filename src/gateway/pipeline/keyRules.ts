import { keyPolicy, type KeyPolicy } from '../../contract/keys'
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
}

const pico = (usd: number | null | undefined) => (usd === null || usd === undefined ? null : usdToPico(usd))

/** Policies are validated on save; parsing again here guards against a hand-edited store. */
function rulesOf(key: KeyRow): KeyRules {
  const policy = keyPolicy.parse(JSON.parse(key.policy))
  return {
    policy,
    dailyPico: pico(key.daily_limit_usd),
    monthlyPico: pico(key.monthly_limit_usd),
    requestPico: pico(policy.max_cost_per_request_usd),
    sessionPico: pico(policy.max_session_usd),
  }
}

/** A key as the pipeline reads it: its row, with its rules parsed once, when the keys are loaded, never per request. */
export type Key = KeyRow & { readonly rules: KeyRules }

export const parseKey = (row: KeyRow): Key => ({ ...row, rules: rulesOf(row) })

/** Whether a key limits its sessions (their spend, or their number of requests). */
export const capsSessions = (r: KeyRules): boolean => r.sessionPico !== null || r.policy.max_session_requests !== undefined
