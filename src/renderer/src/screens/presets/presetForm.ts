import type { Preset, PresetInput } from '../../../../contract/presets'
import { list, numOrNull } from '../../lib/format'
import { formatDuration, parseDuration } from '../../../../contract/duration'

/** The editor's text fields. */
export interface PresetDraft {
  name: string
  model: string
  system_prompt: string
  temperature: string
  max_tokens: string
  top_p: string
  fallbacks: string
  description: string
  /** A duration (`1h`); empty: the preset turns no cache on. */
  cache_ttl: string
  cache_shared: boolean
  soft_cap_model: string
  soft_cap_at: string
  equal_candidates: boolean
}

export const emptyDraft: PresetDraft = {
  name: '',
  model: '',
  system_prompt: '',
  temperature: '',
  max_tokens: '',
  top_p: '',
  fallbacks: '',
  description: '',
  cache_ttl: '',
  cache_shared: false,
  soft_cap_model: '',
  soft_cap_at: '',
  equal_candidates: false,
}

export function draftOf(p: Preset): PresetDraft {
  const s = (v: number | null) => (v === null ? '' : String(v))
  return {
    name: p.name,
    model: p.model,
    system_prompt: p.system_prompt ?? '',
    temperature: s(p.temperature),
    max_tokens: s(p.max_tokens),
    top_p: s(p.top_p),
    fallbacks: p.fallbacks.join(', '),
    description: p.description ?? '',
    cache_ttl: p.response_cache_ttl_s === null ? '' : formatDuration(p.response_cache_ttl_s),
    cache_shared: p.response_cache_shared,
    soft_cap_model: p.soft_cap?.model ?? '',
    soft_cap_at: p.soft_cap ? String(p.soft_cap.at_percent) : '',
    equal_candidates: p.equal_candidates,
  }
}

export function inputOf(d: PresetDraft): PresetInput {
  return {
    name: d.name.trim(),
    model: d.model,
    system_prompt: d.system_prompt.trim() ? d.system_prompt : null,
    temperature: numOrNull(d.temperature),
    max_tokens: numOrNull(d.max_tokens),
    top_p: numOrNull(d.top_p),
    fallbacks: list(d.fallbacks),
    description: d.description.trim() ? d.description.trim() : null,
    // Text that is no duration stays visible as an error rather than turning the cache off.
    response_cache_ttl_s: d.cache_ttl.trim() === '' ? null : (parseDuration(d.cache_ttl) ?? Number.NaN),
    response_cache_shared: d.cache_shared,
    // Either field makes a soft cap; one left empty is the contract's to name.
    soft_cap: d.soft_cap_model.trim() || d.soft_cap_at.trim() ? { model: d.soft_cap_model.trim(), at_percent: numOrNull(d.soft_cap_at) as number } : null,
    equal_candidates: d.equal_candidates,
  }
}
