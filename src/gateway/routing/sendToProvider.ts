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
import type { ProviderRegistry } from '../providers/registry'

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

/**
 * One attempt at one provider. Returns the response only when it is a 200; anything else is a
 * ProviderFailure. Every attempt lands in log.attempts. The upstream URL always comes from
 * configuration, never from the request.
 */
export async function sendToProvider(
  registry: ProviderRegistry,
  clock: () => number,
  log: AttemptLog,
  target: Target,
  request: SerialisedRequest,
  signal: ClientAbort,
): Promise<UpstreamResponse> {
  const provider = target.provider
  const adapter = adapterFor(provider.kind)
  const credential = await registry.credential(provider.id)
  const started = performance.now()
  const attempt = (status: number | null, error: string | null) =>
    log.attempts.push({ provider: provider.id, model: target.upstreamModel, status, latency_ms: Math.round(performance.now() - started), error })
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
    attempt(null, e.message)
    throw new ProviderFailure(e, null, null)
  }
  let res: UpstreamResponse
  log.sent = true
  try {
    res = await callUpstream(registry.dispatcher(provider), {
      url: joinUrl(provider.baseUrl, request.path),
      method: 'POST',
      headers: request.headers ? { ...adapter.headers(credential?.value ?? null), ...request.headers } : adapter.headers(credential?.value ?? null),
      body: request.body,
      client: signal,
      deadlines: provider.deadlines,
    })
  } catch (err) {
    if (signal.aborted) {
      attempt(null, 'client closed the connection')
      throw new ClientAborted()
    }
    const e = upstreamNetworkError(provider.id, err)
    attempt(null, e.message)
    throw new ProviderFailure(e, null, null)
  }
  if (res.statusCode !== 200) {
    const text = await res.body.text().catch(() => '')
    const e = adapter.httpError(provider.id, res.statusCode, text, res.headers, registry.redactor)
    attempt(res.statusCode, e.message)
    throw new ProviderFailure(e, res.statusCode, retryAfterMs(res.headers, clock()))
  }
  attempt(200, null)
  return res
}
