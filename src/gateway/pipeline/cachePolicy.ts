import type { Preset } from '../../contract/presets'
import type { Key } from './keyRules'

type Obj = Record<string, unknown>

/**
 * Whether a body asks for one answer that does not vary: temperature 0 (Google's in its
 * `generationConfig`) and no more than one choice (`n`, Google's `candidateCount`).
 */
export function deterministic(body: Obj): boolean {
  const generation = (typeof body.generationConfig === 'object' && body.generationConfig !== null ? body.generationConfig : {}) as Obj
  const temperature = body.temperature ?? generation.temperature
  const choices = body.n ?? generation.candidateCount
  return temperature === 0 && (choices === undefined || choices === null || choices === 1)
}

/**
 * How long the response cache keeps this call's answer, in seconds; null when the call does not
 * use the cache. A request's own word wins (`asked`: seconds, or 0 to stay out); a preset with a
 * cache TTL, else a key with one, caches its deterministic requests; nothing else is cached.
 */
export function cacheTtl(asked: number | null, key: Key, preset: Preset | null, body: Obj): number | null {
  if (asked !== null) return asked === 0 ? null : asked
  const ttl = preset?.response_cache_ttl_s ?? key.response_cache_ttl_s
  return ttl !== null && deterministic(body) ? ttl : null
}

/** Whose answers a call may be given: its key's own, or every key's under a preset that shares them. */
export const cacheScope = (key: Key, preset: Preset | null): string => (preset?.response_cache_shared ? `preset:${preset.name}` : key.id)
