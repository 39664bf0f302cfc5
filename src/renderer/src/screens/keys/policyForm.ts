import type { KeyPolicy } from '../../../../contract/keys'
import { list, numOrUndef } from '../../lib/format'

/** The policy's rules that are lists of globs, typed as comma-separated text. */
const LISTS = ['allowed_models', 'allowed_providers'] as const
/** The policy's numeric ceilings. */
const NUMBERS = ['max_tokens', 'max_cost_per_request_usd', 'rpm', 'max_session_usd', 'max_session_requests'] as const

/** Where the contract puts each soft cap field's error (its model's also takes the cap's own: it needs a spend limit). */
export const softCapPath = { soft_cap_model: 'policy.soft_cap', soft_cap_at: 'policy.soft_cap.at_percent' } as const

/** The policy form's text fields, named as the policy's rules so an error's path finds its field (the soft cap's aside: `softCapPath`). */
export type PolicyDraft = Record<(typeof LISTS)[number] | (typeof NUMBERS)[number] | keyof typeof softCapPath, string>

export function policyDraft(p: KeyPolicy): PolicyDraft {
  const d = {} as PolicyDraft
  for (const k of LISTS) d[k] = (p[k] ?? []).join(', ')
  for (const k of NUMBERS) d[k] = p[k]?.toString() ?? ''
  d.soft_cap_model = p.soft_cap?.model ?? ''
  d.soft_cap_at = p.soft_cap?.at_percent.toString() ?? ''
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
  // Either field makes a soft cap; one left empty is the contract's to name.
  if (d.soft_cap_model.trim() || d.soft_cap_at.trim()) {
    policy.soft_cap = { model: d.soft_cap_model.trim(), at_percent: numOrUndef(d.soft_cap_at) as number }
  }
  return policy
}
