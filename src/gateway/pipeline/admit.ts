import { keyPolicy, type KeyPolicy } from '../../contract/keys'
import type { Gateway } from '../gateway'
import type { KeyRow } from '../store/keysRepo'
import { enforcePolicy, policyViolation } from './enforcePolicy'
import { CHARS_PER_TOKEN_CONSERVATIVE, CHARS_PER_TOKEN_TYPICAL, estimateTokens, requestedMaxTokens, worstCasePico } from './estimate'
import type { RequestContext } from './requestContext'

/** Output a request is expected to use when it sets no limit, for its balance reservation. */
const EXPECTED_OUTPUT_TOKENS = 1024
/** Output assumed for the cost ceiling when neither the request nor the catalog bounds it. */
const UNBOUNDED_OUTPUT_TOKENS = 32_768

const policies = new WeakMap<KeyRow, KeyPolicy>()

/** Policies are validated on save; parsing again here guards against a hand-edited store. */
function policyOf(key: KeyRow): KeyPolicy {
  let p = policies.get(key)
  if (!p) {
    p = keyPolicy.parse(JSON.parse(key.policy))
    policies.set(key, p)
  }
  return p
}

/**
 * The control stages between resolving the model and calling the provider: rate limit, key
 * policy, balance and spend limits. Any refusal happens here, before a byte goes upstream.
 * `body` is the upstream body (a max_tokens ceiling may be injected into it).
 */
export function admit(gw: Gateway, ctx: RequestContext, body: Record<string, unknown>, opts: { chat: boolean; prompt: unknown }): void {
  const key = ctx.key
  const target = ctx.target!
  const policy = policyOf(key)
  gw.rateLimiter.check(key.id, key.name, policy.rpm)
  const entry = target.priced?.entry ?? null
  const free = target.provider.local && !entry
  const maxOutput = () => (opts.chat ? (requestedMaxTokens(body) ?? entry?.max_output_tokens ?? UNBOUNDED_OUTPUT_TOKENS) : 0)
  enforcePolicy(policy, {
    keyName: key.name,
    requested: ctx.model ?? '',
    target,
    presetUsed: ctx.preset !== null,
    body,
    chat: opts.chat,
    worstCasePico: () =>
      free ? 0 : entry ? worstCasePico(entry, estimateTokens(opts.prompt, CHARS_PER_TOKEN_CONSERVATIVE), maxOutput(), ctx.startedAt) : null,
  })
  if (key.prepaid === 1 && !entry && !free) {
    throw policyViolation(
      `key "${key.name}" spends from a prepaid balance, and ${target.provider.id}/${target.upstreamModel} has no known price; set one with \`gw prices set\``,
      'model',
    )
  }
  const expectedOutput = opts.chat ? Math.min(requestedMaxTokens(body) ?? EXPECTED_OUTPUT_TOKENS, entry?.max_output_tokens ?? Infinity) : 0
  const expected = entry ? worstCasePico(entry, estimateTokens(opts.prompt, CHARS_PER_TOKEN_TYPICAL), expectedOutput, ctx.startedAt) : 0
  ctx.reservation = gw.balances.admit(key, BigInt(expected))
}
