import type { KeyPolicy } from '../../../../contract/keys'
import { list, numOrUndef } from '../../lib/format'

/** The policy's rules that are lists of globs, typed as comma-separated text. */
const LISTS = ['allowed_models', 'allowed_providers'] as const
/** The policy's numeric ceilings. */
const NUMBERS = ['max_tokens', 'max_cost_per_request_usd', 'rpm', 'max_session_usd', 'max_session_requests'] as const

/** The policy form's text fields, named as the policy's rules so an error's path finds its field. */
export type PolicyDraft = Record<(typeof LISTS)[number] | (typeof NUMBERS)[number], string>

export function policyDraft(p: KeyPolicy): PolicyDraft {
  const d = {} as PolicyDraft
  for (const k of LISTS) d[k] = (p[k] ?? []).join(', ')
  for (const k of NUMBERS) d[k] = p[k]?.toString() ?? ''
  return d
}

/** The policy the form says: an empty field is no rule, not a rule of nothing. */
export function policyOf(d: PolicyDraft, presetOnly: boolean): KeyPolicy {
  const policy: KeyPolicy = {}
  for (const k of LISTS) {
    const globs = list(d[k])
    if (globs.length) policy[k] = globs
  }
  if (presetOnly) policy.preset_only = true
  for (const k of NUMBERS) {
    const n = numOrUndef(d[k])
    if (n !== undefined) policy[k] = n
  }
  return policy
}
