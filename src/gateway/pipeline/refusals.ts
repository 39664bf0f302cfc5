import { ApiError } from '../errors'
import { picoToUsdNumber } from '../../contract/money'
import type { RequestRecord } from '../store/requestsRepo'

/**
 * The refusals of keys' limits, one wording whichever keeps the limit: this process's memory
 * (one gateway) or the database several gateways share.
 */

/** A pico-dollar amount as a price: `$0.0048`, `$2.00`. */
export const usd = (pico: bigint) => `$${picoToUsdNumber(pico).toFixed(6).replace(/0+$/, '').replace(/\.$/, '.00')}`

const insufficient = (message: string) => new ApiError(402, 'insufficient_quota', message, 'insufficient_balance', null, { 'x-should-retry': 'false' })

export function rateLimited(keyName: string, rpm: number, waitMs: number): ApiError {
  const retryAfter = Math.max(1, Math.ceil(waitMs / 1000))
  return new ApiError(
    429,
    'requests',
    `Rate limit reached for key "${keyName}": ${rpm} requests per minute [rule: rpm]. Please try again in ${retryAfter}s.`,
    'rate_limit_exceeded',
    null,
    { 'retry-after': String(retryAfter) },
  )
}

export function noBalanceLeft(key: { id: string; name: string }, balancePico: bigint, inFlightPico: bigint): ApiError {
  const detail = inFlightPico > 0n ? ` (${usd(balancePico)} left, ${usd(inFlightPico)} reserved by requests in flight)` : ` (${usd(balancePico)} left)`
  return insufficient(`Key "${key.name}" has no prepaid balance left${detail}. Top it up with \`gw balance top-up ${key.id} USD\`.`)
}

export function periodLimitReached(
  keyName: string,
  period: 'daily' | 'monthly',
  limitPico: bigint,
  spentPico: bigint,
  reservedPico: bigint,
  since: number,
): ApiError {
  const flying = reservedPico > 0n ? `, ${usd(reservedPico)} reserved by requests in flight` : ''
  return insufficient(
    `Key "${keyName}" reached its ${period} spend limit of ${usd(limitPico)} (${usd(spentPico)} spent since ${new Date(since).toISOString()}${flying}).`,
  )
}

/**
 * A session's refusal, in the status its tool stops at and shows: no retry can succeed until the
 * key's policy changes. Measured with the real tools: Claude Code (2.1.330, on /v1/messages)
 * prints a 402 once as "API Error: 402 <message>", but asks five more times after a 400 and
 * prefixes a 403 with "Failed to authenticate"; Codex (0.169.0, on /v1/responses) prints a 400's
 * body once, but retries a 402 or 403 five times. Chat completions clients take the 400 as well.
 */
function sessionRefused(endpoint: RequestRecord['endpoint'], message: string): ApiError {
  const status = endpoint === 'messages' ? 402 : 400
  return new ApiError(status, status === 402 ? 'insufficient_quota' : 'invalid_request_error', message, 'policy_violation', null, { 'x-should-retry': 'false' })
}

const setOn = (keyName: string) => `set on key "${keyName}"`

/** `made` counts the requests recorded; `inFlight` those admitted and not yet recorded (0 where they are counted in `made`). */
export function sessionRequestsReached(endpoint: RequestRecord['endpoint'], keyName: string, max: number, made: number, inFlight: number): ApiError {
  const flying = inFlight > 0 ? `, ${inFlight} in flight` : ''
  return sessionRefused(endpoint, `this session reached its limit of ${max} requests ${setOn(keyName)} (${made} made${flying}) [rule: max_session_requests]`)
}

export function sessionSpendReached(
  endpoint: RequestRecord['endpoint'],
  keyName: string,
  limitPico: bigint,
  spentPico: bigint,
  reservedPico: bigint,
): ApiError {
  const flying = reservedPico > 0n ? `, ${usd(reservedPico)} reserved by requests in flight` : ''
  return sessionRefused(
    endpoint,
    `this session reached its ${usd(limitPico)} limit ${setOn(keyName)} (${usd(spentPico)} spent${flying}) [rule: max_session_usd]`,
  )
}

export function sessionRequestTooDear(
  endpoint: RequestRecord['endpoint'],
  keyName: string,
  limitPico: bigint,
  spentPico: bigint,
  reservedPico: bigint,
  expectedPico: bigint,
): ApiError {
  return sessionRefused(
    endpoint,
    `this request could take this session past its ${usd(limitPico)} limit ${setOn(keyName)} (${usd(spentPico)} spent, ${usd(reservedPico)} reserved by requests in flight, about ${usd(expectedPico)} for this one) [rule: max_session_usd]`,
  )
}

/** Why the gateway refused a request, as metrics count refusals: one of a few fixed words. */
export type RefusalReason = 'balance' | 'spend_limit' | 'rpm' | 'session_requests' | 'session_usd' | 'policy' | 'cooldown'

/**
 * The reason of a recorded error, read from its code and the words its message was made with
 * (above, in enforcePolicy.ts and routing/cooldown.ts; refusals.test.ts holds them together);
 * null for an error that is no refusal (a bad request, a provider's failure). Only requests that
 * ended in an error pay for it.
 */
export function refusalReason(error: { code: string | null; message: string }): RefusalReason | null {
  switch (error.code) {
    case 'insufficient_balance':
      return error.message.includes('has no prepaid balance left') ? 'balance' : error.message.includes(' spend limit of ') ? 'spend_limit' : null
    // A provider's own 429 has this code too, without the rule.
    case 'rate_limit_exceeded':
      return error.message.includes('[rule: rpm]') ? 'rpm' : null
    case 'policy_violation':
      return error.message.includes('[rule: max_session_requests]')
        ? 'session_requests'
        : error.message.includes('[rule: max_session_usd]')
          ? 'session_usd'
          : 'policy'
    case 'provider_unavailable':
      return error.message.includes('is cooling down') ? 'cooldown' : null
    default:
      return null
  }
}
