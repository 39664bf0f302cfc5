import type { Preset } from '../../contract/presets'
import { ApiError } from '../errors'
import type { SoftCapTarget } from './admit'
import { softRules, type Key, type SoftLimit, type SoftRules } from './keyRules'
import { usd } from './refusals'
import { resolveModel, targetName, type ModelSources, type Target } from './resolveModel'
import type { SoftCapSwitch } from '../store/requestsRepo'

/**
 * The soft cap in effect for a request: the key's own, else its preset's (over the key's spend
 * limits), with its model resolved as any requested model is; null when there is none (or no
 * spend limit for it to be near), the request is not a chat (an embedding has no cheaper chat
 * model), it already asks for that model, or the model no longer resolves (its provider removed):
 * then the hard limits alone hold it. Null at once (no promise to wait for) for a request without
 * a soft cap: most requests pay two property reads.
 */
export function softCapFor(sources: ModelSources, key: Key, preset: Preset | null, primary: Target, chat: boolean): Promise<SoftCapTarget | null> | null {
  if (!chat) return null
  const rules: SoftRules | null = key.rules.soft ?? (preset?.soft_cap ? softRules(preset.soft_cap, key.rules) : null)
  return rules === null ? null : resolveSoftCap(sources, rules, primary)
}

async function resolveSoftCap(sources: ModelSources, rules: SoftRules, primary: Target): Promise<SoftCapTarget | null> {
  let target: Target
  try {
    target = await resolveModel(sources, rules.model)
  } catch (err) {
    if (err instanceof ApiError) return null
    throw err
  }
  if (target.provider.id === primary.provider.id && target.upstreamModel === primary.upstreamModel) return null
  return { rules, target }
}

/**
 * Why `target` cannot be a soft cap's model, or null when it can: a soft cap reserves what its
 * requests may cost, so its model needs a price, and it stands in for chat models only.
 */
export function softCapModelProblem(target: Pick<Target, 'provider' | 'upstreamModel' | 'priced'>): string | null {
  const id = targetName(target)
  if (!target.priced) return `${id} has no known price, and a soft cap reserves what its requests may cost; set one with \`gw prices set\``
  if (target.priced.entry.kind === 'embedding') return `${id} is an embedding model; a soft cap needs a chat model`
  return null
}

const limitName = (limit: SoftLimit) => (limit === 'session' ? "this session's" : `the key's ${limit}`)

/** What the record and `gw.routing` say of a request a soft cap sent to its model. */
export function softCapSwitch(key: Key, soft: SoftCapTarget, limit: SoftLimit, asked: Target): SoftCapSwitch {
  const rules = key.rules
  const { percent, model } = soft.rules
  const limitPico = limit === 'daily' ? rules.dailyPico! : limit === 'monthly' ? rules.monthlyPico! : rules.sessionPico!
  const instead = targetName(asked)
  const near = limit === 'session' ? `reached ${percent} % of it, or this request could pass it on ${instead}` : `reached ${percent} % of it`
  return {
    limit,
    at_percent: percent,
    instead_of: instead,
    reason: `soft cap: ${limitName(limit)} spend limit of ${usd(limitPico)} is near (spend and reservations ${near}); served by ${model} instead of ${instead}`,
  }
}
