import { presetInput } from '../../contract/presets'
import type { PriceBook } from '../pricing/priceBook'
import type { ProviderRegistry } from '../providers/registry'
import { lookupModel } from '../pipeline/resolveModel'
import { softCapModelProblem } from '../pipeline/softCap'
import { presetNameOf } from '../pipeline/resolvePreset'
import type { PresetFields } from '../store/presetsRepo'

export class PresetValidationError extends Error {
  constructor(readonly issues: Array<{ field: string; message: string }>) {
    super(`invalid preset: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`)
  }
}

/**
 * Shape and ranges come from the contract; here the parts that need the gateway's knowledge: the
 * model and fallbacks must resolve to a provider, and max_tokens must fit the model's known
 * output limit.
 */
export function validatePreset(input: unknown, registry: ProviderRegistry, priceBook: PriceBook): Required<PresetFields> {
  const parsed = presetInput.safeParse(input)
  if (!parsed.success) {
    throw new PresetValidationError(parsed.error.issues.map((i) => ({ field: i.path.join('.') || 'input', message: i.message })))
  }
  const p = parsed.data
  const issues: Array<{ field: string; message: string }> = []
  const check = (field: string, model: string) => {
    if (presetNameOf(model) !== null) {
      issues.push({ field, message: 'a preset cannot point at another preset' })
      return null
    }
    const found = lookupModel(registry, priceBook, model)
    if (!found) issues.push({ field, message: `unknown model "${model}"; use <provider>/<model> or a model from GET /v1/models` })
    return found
  }
  const main = check('model', p.model)
  p.fallbacks.forEach((f, i) => check(`fallbacks.${i}`, f))
  if (p.equal_candidates && p.fallbacks.length === 0)
    issues.push({ field: 'equal_candidates', message: 'needs at least one fallback: the model and its fallbacks are the equals' })
  if (p.soft_cap) {
    const soft = check('soft_cap.model', p.soft_cap.model)
    const problem = soft && softCapModelProblem(soft)
    if (problem) issues.push({ field: 'soft_cap.model', message: problem })
  }
  const limit = main?.priced?.entry.max_output_tokens
  if (p.max_tokens != null && limit !== undefined && p.max_tokens > limit) {
    issues.push({ field: 'max_tokens', message: `${p.max_tokens} is above ${p.model}'s output limit of ${limit}` })
  }
  if (issues.length) throw new PresetValidationError(issues)
  return {
    name: p.name,
    model: p.model,
    system_prompt: p.system_prompt ?? null,
    temperature: p.temperature ?? null,
    max_tokens: p.max_tokens ?? null,
    top_p: p.top_p ?? null,
    fallbacks: p.fallbacks,
    description: p.description ?? null,
    response_cache_ttl_s: p.response_cache_ttl_s ?? null,
    response_cache_shared: p.response_cache_shared,
    soft_cap: p.soft_cap ?? null,
    equal_candidates: p.equal_candidates,
  }
}
