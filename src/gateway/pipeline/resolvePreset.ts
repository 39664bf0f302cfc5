import type { Preset } from '../../contract/presets'
import { modelNotFound } from '../errors'
import type { KeyRow } from '../store/keysRepo'
import type { ChatBody } from '../wires/chat/chatBody'

const PRESET_PREFIXES = ['policy/', '@preset/']

/** `policy/<name>` and `@preset/<name>` name a preset; anything else is a model. */
export function presetNameOf(model: string): string | null {
  const prefix = PRESET_PREFIXES.find((p) => model.startsWith(p))
  return prefix ? model.slice(prefix.length) : null
}

/**
 * The preset a chat request runs under: the one it names, else its key's default (whatever model
 * it sends, so a tool with a hard-coded model can be steered centrally), else none.
 */
export function resolvePreset(presets: Map<string, Preset>, key: KeyRow, model: string): Preset | null {
  const named = presetNameOf(model)
  const name = named ?? key.default_preset
  if (name === null) return null
  const preset = presets.get(name)
  if (!preset) throw modelNotFound(named ? model : `@preset/${name}`, `no preset named "${name}"`)
  return preset
}

/**
 * The preset's model always applies; its system prompt goes first; each parameter it sets wins;
 * the ones it leaves unset pass through from the caller. A preset's max_tokens replaces whichever
 * token limit field the caller used.
 */
export function applyPreset(body: ChatBody, preset: Preset): ChatBody {
  const out: ChatBody = { ...body, model: preset.model }
  if (preset.system_prompt) out.messages = [{ role: 'system', content: preset.system_prompt }, ...body.messages]
  const limit = body.max_completion_tokens !== undefined && body.max_tokens === undefined ? 'max_completion_tokens' : 'max_tokens'
  return withPresetParameters(out, preset, limit)
}

/** Sets on `out` each sampling parameter the preset sets, its token limit under the field `limit`. */
export function withPresetParameters<B extends Record<string, unknown>>(out: B, preset: Preset, limit = 'max_tokens'): B {
  const o = out as Record<string, unknown>
  if (preset.temperature !== null) o.temperature = preset.temperature
  if (preset.top_p !== null) o.top_p = preset.top_p
  if (preset.max_tokens !== null) o[limit] = preset.max_tokens
  return out
}
