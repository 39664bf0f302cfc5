import type { Balances, Reservation } from './balances'
import { enforcePolicy, policyViolation } from './enforcePolicy'
import { CHARS_PER_TOKEN_CONSERVATIVE, CHARS_PER_TOKEN_TYPICAL, estimateTokens, requestedMaxTokens, worstCasePico, type SentText } from './estimate'
import type { RequestContext } from './requestContext'
import type { RateLimiter } from './rateLimiter'
import type { SessionHold, SessionSpend } from './sessionSpend'
import type { SharedLimits } from './sharedLimits'
import type { Target } from './resolveModel'
import type { SoftLimit, SoftRules } from './keyRules'
import type { CatalogModel } from '../pricing/types'

/** Output a request is expected to use when it sets no limit, for its balance reservation. */
const EXPECTED_OUTPUT_TOKENS = 1024
/** Output assumed for the cost ceiling when neither the request nor the catalog bounds it. */
const UNBOUNDED_OUTPUT_TOKENS = 32_768

/**
 * What admission holds requests against: the keys' request rates, prepaid balances, period spend
 * and sessions, in this process's memory; or, where several gateways share the store, the limits
 * they hold together in it (null where they cannot: SQLite).
 */
export interface AdmitDeps {
  rateLimiter: RateLimiter
  balances: Balances
  sessions: SessionSpend
  shared: SharedLimits | null
}

export interface AdmitOptions {
  chat: boolean
  prompt: unknown
  /** The body field of the output-token limit where the wire names it otherwise than chat completions (`max_output_tokens`, or a path: `generationConfig.maxOutputTokens`). */
  limitField?: string
  /**
   * A call no provider bills (token counting): no request rate limit, no balance reservation, no
   * cost ceiling or prepaid price rule; the key's model and provider rules still apply.
   */
  free?: boolean
  /** The client's own text of a part of the prompt it sent (estimate.ts's `estimateTokens`). */
  sentText?: SentText
}

/** What admission holds for a request until it is recorded. */
export interface Admission {
  reservation: Reservation | null
  /** The request's place in its session's limits. */
  sessionHold: SessionHold | null
  /** A refusal that came after the session hold was taken: the hold is the record's to release. */
  refused?: unknown
  /** Where the soft cap sent the request instead of the model it asked for, and the limit it was near. */
  soft?: { target: Target; limit: SoftLimit }
}

/** The soft cap in effect for a request (the key's, or its preset's) and its model resolved. */
export interface SoftCapTarget {
  rules: SoftRules
  target: Target
}

export const NOTHING_HELD: Admission = { reservation: null, sessionHold: null }

/**
 * The key's policy for one candidate target; also the prepaid rule that a price must be known.
 * `requested` is the model the policy's globs may match besides the target's own ids: the
 * caller's, except for a model the gateway chose itself (the soft cap's).
 */
function checkPolicy(ctx: RequestContext, target: Target, body: Record<string, unknown>, opts: AdmitOptions, requested = ctx.model ?? ''): void {
  const key = ctx.key
  const entry = target.priced?.entry ?? null
  const free = opts.free === true || (target.provider.local && !entry)
  const maxOutput = () => (opts.chat ? (requestedMaxTokens(body, opts.limitField) ?? entry?.max_output_tokens ?? UNBOUNDED_OUTPUT_TOKENS) : 0)
  enforcePolicy(key.rules, {
    keyName: key.name,
    requested,
    target,
    presetUsed: ctx.preset !== null,
    body,
    chat: opts.chat,
    limitField: opts.limitField,
    worstCasePico: () =>
      free ? 0 : entry ? worstCasePico(entry, estimateTokens(opts.prompt, CHARS_PER_TOKEN_CONSERVATIVE, opts.sentText), maxOutput(), ctx.startedAt) : null,
  })
  if (key.prepaid === 1 && !entry && !free) {
    throw policyViolation(
      `key "${key.name}" spends from a prepaid balance, and ${target.provider.id}/${target.upstreamModel} has no known price; set one with \`gw prices set\``,
      'model',
    )
  }
}

/** Why the key's policy passes over a candidate (a fallback, the soft cap's model), or null when it may serve; `requested` as checkPolicy's. */
export function policyRefusal(ctx: RequestContext, target: Target, body: Record<string, unknown>, opts: AdmitOptions, requested?: string): string | null {
  try {
    checkPolicy(ctx, target, body, opts, requested)
    return null
  } catch (err) {
    return `key policy: ${(err as Error).message}`
  }
}

/**
 * The soft cap's model when it may serve this request: priced (its reservation needs a price) and
 * allowed by the key's policy for this very request (its models, providers, cost ceiling); null
 * otherwise, and the request is held by the hard limits alone.
 */
function softEntry(ctx: RequestContext, soft: Target, body: Record<string, unknown>, opts: AdmitOptions): CatalogModel | null {
  const entry = soft.priced?.entry
  return entry && policyRefusal(ctx, soft, body, opts, soft.requested) === null ? entry : null
}

/**
 * The control stages between resolving the model and calling the provider: rate limit, key
 * policy, balance and spend limits, and the key's soft cap. Any refusal happens here, before a
 * byte goes upstream. `body` is the caller's body after the preset (a max_tokens ceiling may be
 * injected into it). `soft` is the soft cap's model for a key that has one: the request goes there
 * when a spend limit is near, decided in the same step as its reservation (in this process's
 * memory, or in the database's one call), so parallel requests split exactly as they reserve.
 * A refusal is thrown; the admission is returned at once when everything it reads is in this
 * process's memory (most requests: no promise), a promise of it when it waits for the store.
 */
export function admit(
  deps: AdmitDeps,
  ctx: RequestContext,
  target: Target,
  body: Record<string, unknown>,
  opts: AdmitOptions,
  soft: SoftCapTarget | null = null,
): Admission | Promise<Admission> {
  const key = ctx.key
  if (opts.free) {
    checkPolicy(ctx, target, body, opts)
    return NOTHING_HELD
  }
  const rules = key.rules
  const sessionId = ctx.attribution.attribution.session_id
  const shared = deps.shared?.holds(key, sessionId) ? deps.shared : null
  if (!shared) deps.rateLimiter.check(key.id, key.name, rules.policy.rpm)
  checkPolicy(ctx, target, body, opts)
  const entry = target.priced?.entry ?? null
  const sessionUsd = sessionId !== null && rules.sessionPico !== null
  if (sessionUsd && !entry && !target.provider.local) {
    throw policyViolation(
      `key "${key.name}" has a per-session spend limit, and ${target.provider.id}/${target.upstreamModel} has no known price; set one with \`gw prices set\` [rule: max_session_usd]`,
      'model',
    )
  }
  // Only money limits (a prepaid balance, daily and monthly spend, a session's spend) are held
  // against reservations; estimating one means serialising the whole prompt, which other requests
  // need not pay for.
  let expected = 0
  let softExpected: number | null = null
  const reserves = key.prepaid === 1 || rules.dailyPico !== null || rules.monthlyPico !== null || sessionUsd
  if (reserves) {
    let promptTokens: number | null = null
    const expectedOn = (e: CatalogModel) => {
      const expectedOutput = opts.chat ? Math.min(requestedMaxTokens(body, opts.limitField) ?? EXPECTED_OUTPUT_TOKENS, e.max_output_tokens ?? Infinity) : 0
      promptTokens ??= estimateTokens(opts.prompt, CHARS_PER_TOKEN_TYPICAL, opts.sentText)
      return worstCasePico(e, promptTokens, expectedOutput, ctx.startedAt)
    }
    if (entry) expected = expectedOn(entry)
    const cheaper = soft ? softEntry(ctx, soft.target, body, opts) : null
    if (cheaper) softExpected = expectedOn(cheaper)
  }
  const e: Expected = { sessionId, pico: expected, soft, softPico: softExpected }
  if (shared) return admitShared(shared, ctx, e)
  // A watched session, a key's balance and its period spend are read from the store when not in
  // memory (once a session, after a change, once a period); admission follows in the same turn
  // as the check that all of them are. When all are in memory (most requests), no promise at all.
  if (loadingFor(deps, key, sessionId)) return admitWhenLoaded(deps, ctx, e)
  return admitHeld(deps, ctx, e)
}

/** What a request is expected to cost, reckoned before anything is held: at its model, and at the soft cap's (null: none). */
interface Expected {
  sessionId: string | null
  pico: number
  soft: SoftCapTarget | null
  softPico: number | null
}

/** What is still being read from the store before a request of this key (and session) can be admitted, or null. */
const loadingFor = (deps: AdmitDeps, key: RequestContext['key'], sessionId: string | null) =>
  deps.sessions.loading(key, sessionId) ?? deps.balances.loading(key)

/** Admission where several gateways share the store: the database holds the limits in one call. */
async function admitShared(shared: SharedLimits, ctx: RequestContext, e: Expected): Promise<Admission> {
  const reservation = await shared.admit({
    key: ctx.key,
    requestId: ctx.id,
    startedAt: ctx.startedAt.getTime(),
    endpoint: ctx.endpoint,
    sessionId: e.sessionId,
    tool: ctx.attribution.tool,
    expectedPico: BigInt(e.pico),
    soft: e.softPico === null ? null : { rules: e.soft!.rules, pico: BigInt(e.softPico) },
  })
  const limit = reservation.shared.soft
  return { reservation, sessionHold: null, ...(limit && { soft: { target: e.soft!.target, limit } }) }
}

/** `admitHeld` once everything it reads is in memory. */
async function admitWhenLoaded(deps: AdmitDeps, ctx: RequestContext, e: Expected): Promise<Admission> {
  for (let loading = loadingFor(deps, ctx.key, e.sessionId); loading; loading = loadingFor(deps, ctx.key, e.sessionId)) await loading
  return admitHeld(deps, ctx, e)
}

/** Admission against this process's holds (sessions, balances, period spend), every one of them in memory. */
function admitHeld(deps: AdmitDeps, ctx: RequestContext, e: Expected): Admission {
  const key = ctx.key
  const { sessionId, soft, softPico } = e
  let expected = e.pico
  // The soft cap's decision, in the same turn as the holds it is decided on: the session first, as
  // the database's admission does.
  let limit: SoftLimit | null = null
  if (softPico !== null) {
    const rules = soft!.rules
    limit = deps.sessions.softReached(key, rules, sessionId, BigInt(expected)) ? 'session' : deps.balances.softReached(key, rules)
    if (limit) expected = softPico
  }
  // Held before the balance is; a balance refusal returns the hold, which the request's record releases.
  const sessionHold = deps.sessions.admit(key, sessionId, BigInt(expected), ctx.endpoint)
  try {
    const reservation = deps.balances.admit(key, BigInt(expected))
    // Literals, not a conditional spread (V8's slow path on Node 20, on every request).
    return limit ? { reservation, sessionHold, soft: { target: soft!.target, limit } } : { reservation, sessionHold }
  } catch (refused) {
    return { reservation: null, sessionHold, refused }
  }
}
