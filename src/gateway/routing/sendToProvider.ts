import { ApiError } from '../errors'
import type { ClientAbort } from '../upstream/clientAbort'
import type { AttemptLog } from '../pipeline/attemptLog'
import type { Target } from '../pipeline/resolveModel'
import { envVarFor } from '../secrets/secretStore'
import { callUpstream, joinUrl, type UpstreamResponse } from '../upstream/client'
import { upstreamNetworkError } from '../upstream/upstreamErrors'
import { retryAfterMs } from './routingConfig'
import type { SerialisedRequest } from '../providers/adapter'
import { adapterFor } from '../providers/kinds'
import type { Provider, ProviderRegistry } from '../providers/registry'

/** Thrown when the client went away: the request is recorded as aborted, nothing is answered. */
export class ClientAborted extends Error {}

/** One failed attempt: the error the client would get, and what routing needs to decide on a retry. */
export class ProviderFailure extends Error {
  constructor(
    readonly error: ApiError,
    /** The provider's HTTP status; null when it never answered (connection error, timeout) or was not called. */
    readonly upstreamStatus: number | null,
    readonly retryAfterMs: number | null,
  ) {
    super(error.message)
  }
}

/** A call to a provider: a path under its configured base URL, never a URL from the request. */
export interface ProviderCall {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  /** JSON text, serialised by the caller. */
  body?: string
  /** Headers the caller sent for the provider (a wire's pass-through ones); they win over the adapter's. */
  headers?: Record<string, string>
}

/** Hears how each attempt went: the provider's status (null when it never answered, or was not called) and the error, if any. */
export interface AttemptReport {
  /** The call is about to go out: the provider was reached, or tried (not when no credential stopped it). */
  sending(): void
  ended(status: number | null, error: string | null): void
}

/**
 * One call to one provider, with its credential and its deadlines, ended when the client goes
 * away. Returns the response only when it is a 200; anything else is a ProviderFailure (a
 * ClientAborted when the client left). Every attempt is reported to `report`.
 */
export async function callProvider(
  registry: ProviderRegistry,
  clock: () => number,
  provider: Provider,
  call: ProviderCall,
  signal: ClientAbort,
  report: AttemptReport,
): Promise<UpstreamResponse> {
  const adapter = adapterFor(provider.kind)
  const known = registry.knownCredential(provider.id)
  const credential = known !== undefined ? known : await registry.credential(provider.id)
  if (!credential && !provider.local) {
    const problem = await registry.credentialProblem(provider.id)
    const e = new ApiError(
      503,
      'server_error',
      problem
        ? `The gateway has no usable API key for provider ${provider.id}: ${problem}.`
        : `The gateway has no API key for provider ${provider.id}. Set one with \`gw providers set ${provider.id} --api-key-stdin\` or the ${envVarFor(provider.id)} environment variable.`,
      'provider_not_configured',
      null,
      { 'x-should-retry': 'false' },
    )
    report.ended(null, e.message)
    throw new ProviderFailure(e, null, null)
  }
  let res: UpstreamResponse
  const own = adapter.headers(credential?.value ?? null, call.path)
  report.sending()
  try {
    res = await callUpstream(registry.dispatcher(provider), {
      url: joinUrl(provider.baseUrl, call.path),
      method: call.method,
      headers: call.headers ? { ...own, ...call.headers } : own,
      body: call.body,
      client: signal,
      deadlines: provider.deadlines,
    })
  } catch (err) {
    if (signal.aborted) {
      report.ended(null, 'client closed the connection')
      throw new ClientAborted()
    }
    const e = upstreamNetworkError(provider.id, err)
    report.ended(null, e.message)
    throw new ProviderFailure(e, null, null)
  }
  if (res.statusCode !== 200) {
    const text = await res.body.text().catch(() => '')
    const e = adapter.httpError(provider.id, res.statusCode, text, res.headers, registry.redactor)
    report.ended(res.statusCode, e.message)
    // A wait the provider gave in its error body instead of a header (Google's RetryInfo) is on the error.
    const now = clock()
    throw new ProviderFailure(e, res.statusCode, retryAfterMs(res.headers, now) ?? retryAfterMs(e.headers, now))
  }
  report.ended(200, null)
  return res
}

/**
 * One inference attempt at one provider (`callProvider`, a POST), noted in the request's attempt log.
 */
export function sendToProvider(
  registry: ProviderRegistry,
  clock: () => number,
  log: AttemptLog,
  target: Target,
  request: SerialisedRequest,
  signal: ClientAbort,
): Promise<UpstreamResponse> {
  const started = performance.now()
  // Tracing on: the attempt's span, carried to the provider when the operator asked for it.
  const carried = log.trace?.attempt(log.attempts.length, started) ?? null
  const headers = carried ? { ...request.headers, ...carried } : request.headers
  return callProvider(registry, clock, target.provider, { method: 'POST', path: request.path, body: request.body, headers }, signal, {
    sending: () => {
      log.sent = true
    },
    ended: (status, error) =>
      log.attempts.push({ provider: target.provider.id, model: target.upstreamModel, status, latency_ms: Math.round(performance.now() - started), error }),
  })
}
