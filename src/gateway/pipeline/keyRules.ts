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

const rules = new WeakMap<KeyRow, KeyRules>()

const pico = (usd: number | null | undefined) => (usd === null || usd === undefined ? null : usdToPico(usd))

/** Policies are validated on save; parsing again here guards against a hand-edited store. */
export function rulesOf(key: KeyRow): KeyRules {
  let r = rules.get(key)
  if (!r) {
    const policy = keyPolicy.parse(JSON.parse(key.policy))
    r = {
      policy,
      dailyPico: pico(key.daily_limit_usd),
      monthlyPico: pico(key.monthly_limit_usd),
      requestPico: pico(policy.max_cost_per_request_usd),
      sessionPico: pico(policy.max_session_usd),
    }
    rules.set(key, r)
  }
  return r
}
