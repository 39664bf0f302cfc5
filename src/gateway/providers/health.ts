import { callUpstream, joinUrl, type UpstreamAgent } from '../upstream/client'
import { envVarFor } from '../secrets/secretStore'
import { parseUpstreamError } from '../upstream/upstreamErrors'
import { adapterFor } from './kinds'
import type { Provider, ProviderRegistry } from './registry'

export type ProviderStatus =
  | { ok: true; models: Array<{ id: string; created: number | null }>; latency_ms: number; checked_at: number }
  | { ok: false; reason: string; fix?: 'api_key'; checked_at: number }

const PROBE_TIMEOUT_MS = 3000
const TTL_MS = 60_000

/** Asks a provider for its model list: the cheapest real call, proving endpoint and credential. */
export async function probeProvider(
  agent: UpstreamAgent,
  registry: ProviderRegistry,
  provider: Provider,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<ProviderStatus> {
  const checked_at = Date.now()
  const credential = await registry.credential(provider.id)
  if (!credential && !provider.local) {
    const problem = await registry.credentialProblem(provider.id)
    // A key is stored but this gateway cannot read it: entering another is not the fix.
    if (problem) return { ok: false, checked_at, reason: `no usable API key for ${provider.id}: ${problem}` }
    // How to give it one depends on where the reader is (the dashboard's key field, the CLI): `fix` says what, each says how.
    return {
      ok: false,
      checked_at,
      fix: 'api_key',
      reason: `no API key for ${provider.id}: none is stored, and ${envVarFor(provider.id)} is not set where the gateway runs`,
    }
  }
  const adapter = adapterFor(provider.kind)
  const started = performance.now()
  try {
    const res = await callUpstream(agent, {
      url: joinUrl(provider.baseUrl, adapter.modelsPath),
      method: 'GET',
      headers: adapter.headers(credential?.value ?? null, adapter.modelsPath),
      signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await res.body.text()
    if (res.statusCode !== 200) {
      return { ok: false, checked_at, reason: `${provider.id} answered ${res.statusCode}: ${parseUpstreamError(text, registry.redactor).message}` }
    }
    let list: unknown
    try {
      list = JSON.parse(text)
    } catch {
      // Not JSON.parse's message: it quotes the body, which is the provider's text.
      return { ok: false, checked_at, reason: `${provider.id} answered 200 with a model list that is not JSON` }
    }
    return { ok: true, checked_at, latency_ms: Math.round(performance.now() - started), models: adapter.parseModels(list) }
  } catch (err) {
    const e = err as Error
    const why = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : e.message
    return { ok: false, checked_at, reason: `${provider.id} is unreachable at ${provider.baseUrl}: ${why}` }
  }
}

/**
 * Whether a provider can serve right now: it has a credential (or needs none) and its model list
 * answers. Results are cached for a minute so the model list stays fast.
 */
export class ProviderHealth {
  private cache = new Map<string, Promise<ProviderStatus>>()

  constructor(
    private readonly agent: UpstreamAgent,
    private readonly registry: ProviderRegistry,
    private readonly now: () => number = Date.now,
  ) {}

  clear(): void {
    this.cache.clear()
  }

  async status(provider: Provider): Promise<ProviderStatus> {
    const cached = this.cache.get(provider.id)
    if (cached) {
      const s = await cached
      if (this.now() - s.checked_at < TTL_MS) return s
    }
    const probe = probeProvider(this.agent, this.registry, provider)
    this.cache.set(provider.id, probe)
    return probe
  }
}
