import type { Preset } from '../../contract/presets'
import { invalidRequest, modelNotFound } from '../errors'
import type { AliasMatch, AliasTable } from './aliases'
import type { KeyRow } from '../store/keysRepo'

const PRESET_PREFIXES = ['policy/', '@preset/']

/** `policy/<name>` and `@preset/<name>` name a preset; anything else is a model. */
export function presetNameOf(model: string): string | null {
  const prefix = PRESET_PREFIXES.find((p) => model.startsWith(p))
  return prefix ? model.slice(prefix.length) : null
}

/** Where a request goes before its model is resolved. */
export interface Steering {
  /** The preset it runs under, if any. */
  preset: Preset | null
  /** The alias its model matched, when one steered it. */
  alias: AliasMatch | null
  /** The model to resolve: the preset's, the alias's target, or the one requested. */
  model: string
}

function presetNamed(presets: Map<string, Preset>, name: string, asked: string): Preset {
  const preset = presets.get(name)
  if (!preset) throw modelNotFound(asked, `no preset named "${name}"`)
  return preset
}

const presetsRefused = (endpoint: string) => invalidRequest(`presets apply to chat completions, not ${endpoint}`, 'model')

/**
 * The first that applies: a preset the request names; its key's default preset (whatever model it
 * sends: the key's owner chose it for that key, so it outranks aliases, which apply to every key);
 * an alias matching the model (to a model, or to a preset); the model as sent. An alias target is
 * used as is, never aliased again. `withPresets` is false on wires presets do not apply to: there
 * a preset named directly or through an alias is refused, and a key's default is not applied.
 */
export function steer(presets: Map<string, Preset>, aliases: AliasTable, key: KeyRow, model: string, withPresets: boolean, endpoint: string): Steering {
  const named = presetNameOf(model)
  if (named !== null) {
    if (!withPresets) throw presetsRefused(endpoint)
    const preset = presetNamed(presets, named, model)
    return { preset, alias: null, model: preset.model }
  }
  if (withPresets && key.default_preset !== null) {
    const preset = presetNamed(presets, key.default_preset, `@preset/${key.default_preset}`)
    return { preset, alias: null, model: preset.model }
  }
  const alias = aliases.match(model)
  if (!alias) return { preset: null, alias: null, model }
  const aliased = presetNameOf(alias.target)
  if (aliased === null) return { preset: null, alias, model: alias.target }
  if (!withPresets) throw presetsRefused(endpoint)
  const preset = presetNamed(presets, aliased, alias.target)
  return { preset, alias, model: preset.model }
}

/** A preset's system prompt before the caller's own system text, when there is any. */
export const prependSystemPrompt = (prompt: string, text: unknown): string => (typeof text === 'string' && text !== '' ? `${prompt}\n\n${text}` : prompt)

/** Sets on `out` each sampling parameter the preset sets, its token limit under the field `limit`. */
export function withPresetParameters<B extends Record<string, unknown>>(out: B, preset: Preset, limit = 'max_tokens'): B {
  const o = out as Record<string, unknown>
  if (preset.temperature !== null) o.temperature = preset.temperature
  if (preset.top_p !== null) o.top_p = preset.top_p
  if (preset.max_tokens !== null) o[limit] = preset.max_tokens
  return out
}

/** A preset as a token count takes it: its model and system prompt; its sampling parameters are not fields of a count. */
export const countingPreset = (preset: Preset): Preset => ({ ...preset, temperature: null, top_p: null, max_tokens: null })
