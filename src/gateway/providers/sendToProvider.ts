import type { Dispatcher } from 'undici'
import { ApiError } from '../errors'
import type { Gateway } from '../gateway'
import type { RequestContext } from '../pipeline/requestContext'
import { envVarFor } from '../secrets/secretStore'
import { callUpstream, joinUrl } from '../upstream/client'
import { redactSecret, upstreamHttpError, upstreamNetworkError } from '../upstream/upstreamErrors'

/** Thrown when the client went away: the request is recorded as aborted, nothing is answered. */
export class ClientAborted extends Error {}

/**
 * One attempt at the request's provider. Returns the response only when it is a 200; any other
 * answer becomes the OpenAI-shaped error the client gets. Every attempt lands in ctx.attempts.
 * The upstream URL always comes from configuration, never from the request.
 */
export async function sendToProvider(
  gw: Gateway,
  ctx: RequestContext,
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  const target = ctx.target!
  const provider = target.provider
  const credential = await gw.registry.credential(provider.id)
  if (!credential && !provider.local) {
    throw new ApiError(
      503,
      'server_error',
      `The gateway has no API key for provider ${provider.id}. Set one with \`gw providers set ${provider.id} --api-key-stdin\` or the ${envVarFor(provider.id)} environment variable.`,
      'provider_not_configured',
      null,
      { 'x-should-retry': 'false' },
    )
  }
  const started = performance.now()
  const attempt = (status: number | null, error: string | null) =>
    ctx.attempts.push({ provider: provider.id, model: target.upstreamModel, status, latency_ms: Math.round(performance.now() - started), error })
  let res: Dispatcher.ResponseData
  try {
    res = await callUpstream(gw.agent, {
      url: joinUrl(provider.baseUrl, path),
      method: 'POST',
      apiKey: credential?.value ?? null,
      body,
      signal,
    })
  } catch (err) {
    if (signal.aborted) {
      attempt(null, 'client closed the connection')
      throw new ClientAborted()
    }
    const e = redactSecret(upstreamNetworkError(provider.id, err), credential?.value ?? null)
    attempt(null, e.message)
    throw e
  }
  if (res.statusCode !== 200) {
    const text = await res.body.text().catch(() => '')
    const e = redactSecret(upstreamHttpError(provider.id, res.statusCode, text, res.headers), credential?.value ?? null)
    attempt(res.statusCode, e.message)
    throw e
  }
  attempt(200, null)
  return res
}
