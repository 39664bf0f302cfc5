import type { AttemptLog } from '../pipeline/attemptLog'
import { resolveModel, type ModelSources, type Target } from '../pipeline/resolveModel'

/**
 * The primary target, then the preset's fallbacks in order. A fallback that no longer resolves
 * (its provider was removed) is noted in the attempts and left out rather than failing the request.
 */
export async function candidatesFor(sources: ModelSources, log: AttemptLog, primary: Target, fallbacks: string[]): Promise<Target[]> {
  const out = [primary]
  for (const model of fallbacks) {
    try {
      out.push(await resolveModel(sources, model))
    } catch (err) {
      log.attempts.push({ provider: model, model, status: null, latency_ms: 0, error: `skipped: ${(err as Error).message}` })
    }
  }
  return out
}
