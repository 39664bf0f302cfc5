import { ApiError } from '../errors'
import type { Key, SoftLimit } from './keyRules'
import { usd } from './refusals'
import { resolveModel, type ModelSources, type Target } from './resolveModel'
import type { SoftCapSwitch } from '../store/requestsRepo'

/**
 * The model a key's soft cap would send this request to, resolved as any requested model is; null
 * when the key has none (or no spend limit for it to be near), the request is not a chat (an
 * embedding has no cheaper chat model) or is free, it already asks for that model, or the model
 * no longer resolves (its provider removed): then the hard limits alone hold it. Costs nothing to
 * a key without a soft cap.
 */
export async function softTarget(sources: ModelSources, key: Key, primary: Target, chat: boolean): Promise<Target | null> {
  const soft = key.rules.soft
  if (soft === null || !chat) return null
  let target: Target
  try {
    target = await resolveModel(sources, soft.model)
  } catch (err) {
    if (err instanceof ApiError) return null
    throw err
  }
  return target.provider.id === primary.provider.id && target.upstreamModel === primary.upstreamModel ? null : target
}

const limitName = (limit: SoftLimit) => (limit === 'session' ? "this session's" : `the key's ${limit}`)

/** What the record and `gw.routing` say of a request the soft cap sent to its model. */
export function softCapSwitch(key: Key, limit: SoftLimit, asked: Target): SoftCapSwitch {
  const rules = key.rules
  const percent = rules.soft!.percent
  const limitPico = limit === 'daily' ? rules.dailyPico! : limit === 'monthly' ? rules.monthlyPico! : rules.sessionPico!
  const instead = `${asked.provider.id}/${asked.upstreamModel}`
  const near = limit === 'session' ? `reached ${percent} % of it, or this request could pass it on ${instead}` : `reached ${percent} % of it`
  return {
    limit,
    at_percent: percent,
    instead_of: instead,
    reason: `soft cap: ${limitName(limit)} spend limit of ${usd(limitPico)} is near (spend and reservations ${near}); served by ${rules.soft!.model} instead of ${instead}`,
  }
}
