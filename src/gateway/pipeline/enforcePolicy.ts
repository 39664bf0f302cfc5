import { picoToUsdNumber } from '../../contract/money'
import { globRegex } from './glob'
import { limitValue, setLimit } from './estimate'
import { ApiError } from '../errors'
import type { KeyRules } from './keyRules'
import type { Target } from './resolveModel'

export const policyViolation = (message: string, param: string | null = null) => new ApiError(403, 'invalid_request_error', message, 'policy_violation', param)

/** `*` matches any run of characters, everything else literally. */
export function globMatch(pattern: string, value: string): boolean {
  return globRegex(pattern).test(value)
}

export interface PolicyInput {
  keyName: string
  requested: string
  target: Target
  presetUsed: boolean
  /** The upstream body; a max_tokens ceiling is injected when the caller set no limit. */
  body: Record<string, unknown>
  /** Token limits apply to chat; embeddings have no output. */
  chat: boolean
  /** The field of the output-token limit where it is not chat's `max_tokens` / `max_completion_tokens`. */
  limitField?: string
  /** Worst-case cost in pico-dollars given the (possibly injected) token limit; null when unpriced. */
  worstCasePico: () => number | null
}

/** A key's rules, checked before anything reaches a provider; the message names the rule broken. */
export function enforcePolicy(rules: KeyRules, p: PolicyInput): void {
  const policy = rules.policy
  const who = `key "${p.keyName}"`
  if (policy.preset_only && !p.presetUsed) {
    throw policyViolation(`${who} may only use presets (model "policy/<name>" or the key's default preset) [rule: preset_only]`, 'model')
  }
  const provider = p.target.provider.id
  if (policy.allowed_providers && !policy.allowed_providers.some((g) => globMatch(g, provider))) {
    throw policyViolation(`${who} may not use provider ${provider} [rule: allowed_providers = ${policy.allowed_providers.join(', ')}]`, 'model')
  }
  const canonical = `${provider}/${p.target.upstreamModel}`
  if (
    policy.allowed_models &&
    !policy.allowed_models.some((g) => globMatch(g, canonical) || globMatch(g, p.target.upstreamModel) || globMatch(g, p.requested))
  ) {
    throw policyViolation(`${who} may not use model ${canonical} [rule: allowed_models = ${policy.allowed_models.join(', ')}]`, 'model')
  }
  if (policy.max_tokens !== undefined && p.chat) {
    const field = p.limitField ?? (p.body.max_completion_tokens !== undefined ? 'max_completion_tokens' : 'max_tokens')
    const asked = limitValue(p.body, field)
    if (asked === undefined || asked === null) setLimit(p.body, field, policy.max_tokens)
    else if (typeof asked === 'number' && asked > policy.max_tokens) {
      throw policyViolation(`${who} allows at most ${policy.max_tokens} output tokens, the request asks for ${asked} [rule: max_tokens]`, field)
    }
  }
  if (rules.requestPico !== null) {
    const worst = p.worstCasePico()
    if (worst === null) {
      throw policyViolation(`${who} has a per-request cost ceiling, and ${canonical} has no known price [rule: max_cost_per_request_usd]`, 'model')
    }
    if (BigInt(worst) > rules.requestPico) {
      throw policyViolation(
        `${who} allows at most $${policy.max_cost_per_request_usd} per request; this one can cost up to $${picoToUsdNumber(BigInt(worst))} (lower ${p.limitField ?? 'max_tokens'}) [rule: max_cost_per_request_usd]`,
        p.limitField ?? 'max_tokens',
      )
    }
  }
}
