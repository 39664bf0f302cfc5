import { setTimeout as sleep } from 'node:timers/promises'
import { ApiError } from '../errors'
import type { ClientAbort } from '../upstream/clientAbort'
import type { AttemptLog } from '../pipeline/attemptLog'
import type { Target } from '../pipeline/resolveModel'
import type { SerialisedRequest, UpstreamRequest } from '../providers/adapter'
import { ClientAborted, ProviderFailure, sendToProvider } from './sendToProvider'
import type { ProviderRegistry } from '../providers/registry'
import type { UpstreamResponse } from '../upstream/client'
import { coolingError, coolsDown, type Cooldown } from './cooldown'
import { backoffMs, type RoutingConfig } from './routingConfig'

type Verdict = 'retry' | 'next' | 'stop'

/**
 * What to do after a failed attempt. Failures of the moment (timeouts, connection errors, 408,
 * 409, 429, 5xx) are retried on the same provider; failures of that provider for this request
 * (its credential, its quota, the model missing there) go to the next candidate; the caller's
 * own mistakes (400, 413, 422) stop, since every provider would refuse them alike.
 */
function verdict(f: ProviderFailure): Verdict {
  const s = f.upstreamStatus
  if (f.error.code === 'provider_not_configured' || f.error.code === 'provider_insufficient_quota') return 'next'
  if (s === null || s === 408 || s === 409 || s === 429 || s >= 500) return 'retry'
  if (s === 400 || s === 413 || s === 422) return 'stop'
  return 'next'
}

/** What routing decides with: its settings, the providers' cool-downs, the providers themselves, and the gateway's clock. */
export interface RoutingDeps {
  routing: RoutingConfig
  cooldown: Cooldown
  registry: ProviderRegistry
  clock: () => number
}

export interface Routed {
  target: Target
  response: UpstreamResponse
}

/** What a call adds to routing's own rules. */
export interface RouteOptions {
  /** Why a candidate may not be tried (the key's policy), or null. */
  skip?: (target: Target) => string | null
  /** The response cache's answer to a candidate's request, asked before the provider (a call that uses the cache). */
  replay?: (target: Target, request: UpstreamRequest) => Promise<UpstreamResponse | null>
  /**
   * The candidate the request must fit (the model asked for): one that cannot express it throws
   * the caller's error; any other is passed over. The first candidate when not said.
   */
  primary?: Target
}

/**
 * Sends the request to the first candidate that answers: each is retried with backoff while its
 * failures are retryable (honouring retry-after up to a cap), then the next is tried, in order.
 * Candidates cooling down after repeated failures, or refused by `skip` (the key's policy), are
 * passed over and noted in the attempts. A candidate the response cache answers (`replay`) is not
 * called. Only a 200's headers end the routing: a stream that
 * breaks after its first byte reached the client is never retried, so nothing is billed twice.
 */
export async function route(
  deps: RoutingDeps,
  log: AttemptLog,
  candidates: Target[],
  build: (target: Target) => UpstreamRequest,
  signal: ClientAbort,
  { skip = () => null, replay, primary = candidates[0] }: RouteOptions = {},
): Promise<Routed> {
  const config = deps.routing
  let last: ApiError | null = null
  for (const target of candidates) {
    const id = target.provider.id
    const skipped = (why: string) => log.attempts.push({ provider: id, model: target.upstreamModel, status: null, latency_ms: 0, error: `skipped: ${why}` })
    const refused = skip(target)
    if (refused) {
      skipped(refused)
      continue
    }
    const cooling = deps.cooldown.cooling(id)
    if (cooling) {
      skipped(`${id} is cooling down until ${new Date(cooling.until).toISOString()} after ${cooling.failures} failures (${cooling.lastError})`)
      last ??= coolingError(id, cooling, deps.clock())
      continue
    }
    let request: SerialisedRequest
    let built: UpstreamRequest
    try {
      built = build(target)
      // Serialised once for all attempts, and before any: a failure here is the gateway's or the
      // caller's, never the provider's, so it is thrown as is and feeds no cool-down.
      request = { path: built.path, body: built.text ?? JSON.stringify(built.body), headers: built.headers }
    } catch (err) {
      // The caller's request must fit the primary provider; a fallback of another kind that
      // cannot express it (n > 1 on Anthropic, say) is passed over instead.
      if (target === primary || !(err instanceof ApiError)) throw err
      skipped(`the request cannot be sent to ${id}: ${err.message}`)
      last = err
      continue
    }
    if (replay) {
      const response = await replay(target, built)
      if (response) return { target, response }
    }
    for (let retry = 0; ; retry++) {
      try {
        const response = await sendToProvider(deps.registry, deps.clock, log, target, request, signal)
        deps.cooldown.clear(id)
        return { target, response }
      } catch (err) {
        if (err instanceof ClientAborted || !(err instanceof ProviderFailure)) throw err
        const v = verdict(err)
        last = err.error
        if (v === 'stop') throw err.error
        if (coolsDown(err)) deps.cooldown.failure(id, err.error.message)
        const wait = err.retryAfterMs ?? backoffMs(config, retry)
        if (v !== 'retry' || retry >= config.maxRetries || wait > config.retryAfterCapMs || deps.cooldown.cooling(id)) break
        try {
          await sleep(wait, undefined, { signal: signal.abortSignal })
        } catch {
          throw new ClientAborted()
        }
      }
    }
  }
  throw last ?? new ApiError(503, 'server_error', 'no provider could take the request', 'provider_unavailable')
}
