import type { Dispatcher } from 'undici'
import { callUpstream, joinUrl } from '../upstream/client'
import { envVarFor } from '../secrets/secretStore'
import { parseUpstreamError } from '../upstream/upstreamErrors'
import type { Provider, ProviderRegistry } from './registry'

export type ProviderStatus =
  | { ok: true; models: Array<{ id: string; created: number | null }>; latency_ms: number; checked_at: number }
  | { ok: false; reason: string; checked_at: number }

const PROBE_TIMEOUT_MS = 3000
const TTL_MS = 60_000

/** Reads a provider's model list: OpenAI's envelope, Together's bare array, Gemini's `models/` prefixes. */
export function parseModelList(body: unknown): Array<{ id: string; created: number | null }> {
  const data = Array.isArray(body) ? body : ((body as { data?: unknown })?.data ?? [])
  if (!Array.isArray(data)) return []
  return data
    .filter((m): m is { id: string; created?: unknown } => typeof m?.id === 'string')
    .map((m) => ({ id: m.id.replace(/^models\//, ''), created: typeof m.created === 'number' ? m.created : null }))
}

/**
 * Whether a provider can serve right now: it has a credential (or needs none) and its model list
 * answers. Results are cached for a minute so the model list stays fast.
 */
export class ProviderHealth {
  private cache = new Map<string, Promise<ProviderStatus>>()

  constructor(
    private readonly agent: Dispatcher,
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
    const probe = this.probe(provider)
    this.cache.set(provider.id, probe)
    return probe
  }

  private async probe(provider: Provider): Promise<ProviderStatus> {
    const checked_at = this.now()
    const credential = await this.registry.credential(provider.id)
    if (!credential && !provider.local) {
      return {
        ok: false,
        checked_at,
        reason: `no API key for ${provider.id}: run \`gw providers set ${provider.id} --api-key-stdin\` or set ${envVarFor(provider.id)}`,
      }
    }
    const started = performance.now()
    try {
      const res = await callUpstream(this.agent, {
        url: joinUrl(provider.baseUrl, 'models'),
        method: 'GET',
        apiKey: credential?.value ?? null,
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      })
      const text = await res.body.text()
      if (res.statusCode !== 200) {
        return { ok: false, checked_at, reason: `${provider.id} answered ${res.statusCode}: ${parseUpstreamError(text).message}` }
      }
      return { ok: true, checked_at, latency_ms: Math.round(performance.now() - started), models: parseModelList(JSON.parse(text)) }
    } catch (err) {
      const e = err as Error
      const why = e.name === 'TimeoutError' ? `no answer within ${PROBE_TIMEOUT_MS} ms` : e.message
      return { ok: false, checked_at, reason: `${provider.id} is unreachable at ${provider.baseUrl}: ${why}` }
    }
  }
}
