import type { Input } from '../../../contract'
import type { KeyPolicy, KeySummary } from '../../../contract/keys'
import { formatDuration, parseDuration } from '../../../contract/duration'
import { list, nonNegativeUsd, number, parse, table, when, type Command } from '../shared'
import { operate, operating, type Operate } from './api'

/** Flags shared by `keys create` and `keys update`; on update, `none` clears a setting. */
const settingFlags = {
  'default-preset': { type: 'string' },
  'allow-models': { type: 'string' },
  'allow-providers': { type: 'string' },
  'preset-only': { type: 'boolean' },
  'no-preset-only': { type: 'boolean' },
  'max-tokens': { type: 'string' },
  'max-cost-usd': { type: 'string' },
  rpm: { type: 'string' },
  'max-session-usd': { type: 'string' },
  'max-session-requests': { type: 'string' },
  'daily-limit': { type: 'string' },
  'monthly-limit': { type: 'string' },
  'cache-ttl': { type: 'string' },
  'soft-cap-model': { type: 'string' },
  'soft-cap-at': { type: 'string' },
} as const

/** The contract's fields as the flags that set them, so a refusal names what the person typed. */
const FLAGS = {
  name: '--name',
  default_preset: '--default-preset',
  'policy.allowed_models': '--allow-models',
  'policy.allowed_providers': '--allow-providers',
  'policy.max_tokens': '--max-tokens',
  'policy.max_cost_per_request_usd': '--max-cost-usd',
  'policy.rpm': '--rpm',
  daily_limit_usd: '--daily-limit',
  monthly_limit_usd: '--monthly-limit',
  response_cache_ttl_s: '--cache-ttl',
  balance_usd: '--balance',
  'policy.soft_cap': '--soft-cap-model',
  'policy.soft_cap.model': '--soft-cap-model',
  'policy.soft_cap.at_percent': '--soft-cap-at',
}

type SettingValues = { [K in keyof typeof settingFlags]?: (typeof settingFlags)[K]['type'] extends 'boolean' ? boolean : string }
type KeySettings = Pick<Input<'keys.update'>, 'default_preset' | 'policy' | 'daily_limit_usd' | 'monthly_limit_usd' | 'response_cache_ttl_s'>

const NONE = 'none'

/** A `--cache-ttl` duration in seconds; a refusal names the flag. */
export function cacheTtl(s: string): number {
  const seconds = parseDuration(s)
  if (seconds === null || seconds === 0) throw new Error(`--cache-ttl must be a duration such as 90s, 30m, 1h or 7d (or none), not "${s}"`)
  return seconds
}

/** The settings the flags change, over the key's `current` policy (a flag changes one rule, not the others). */
function readSettings(v: SettingValues, current: KeyPolicy): KeySettings {
  const settings: KeySettings = {}
  const policy: KeyPolicy = { ...current }
  const optional = <T>(value: string | undefined, parseValue: (s: string) => T, set: (x: T | undefined) => void) => {
    if (value === undefined) return
    set(value === NONE ? undefined : parseValue(value))
  }
  const positiveInt = (flag: string) => (s: string) => number(s, flag, (n) => Number.isInteger(n) && n > 0, 'a positive integer')
  const usd = (flag: string) => (s: string) => nonNegativeUsd(s, flag)!
  if (v['default-preset'] !== undefined) settings.default_preset = v['default-preset'] === NONE ? null : v['default-preset']
  optional(
    v['allow-models'],
    (s) => list(s)!,
    (x) => (policy.allowed_models = x),
  )
  optional(
    v['allow-providers'],
    (s) => list(s)!,
    (x) => (policy.allowed_providers = x),
  )
  if (v['preset-only']) policy.preset_only = true
  if (v['no-preset-only']) delete policy.preset_only
  optional(v['max-tokens'], positiveInt('--max-tokens'), (x) => (policy.max_tokens = x))
  optional(v['max-cost-usd'], usd('--max-cost-usd'), (x) => (policy.max_cost_per_request_usd = x))
  optional(v.rpm, positiveInt('--rpm'), (x) => (policy.rpm = x))
  optional(v['max-session-usd'], usd('--max-session-usd'), (x) => (policy.max_session_usd = x))
  optional(v['max-session-requests'], positiveInt('--max-session-requests'), (x) => (policy.max_session_requests = x))
  readSoftCap(v, policy, positiveInt('--soft-cap-at'))
  optional(v['daily-limit'], usd('--daily-limit'), (x) => (settings.daily_limit_usd = x ?? null))
  optional(v['monthly-limit'], usd('--monthly-limit'), (x) => (settings.monthly_limit_usd = x ?? null))
  optional(v['cache-ttl'], cacheTtl, (x) => (settings.response_cache_ttl_s = x ?? null))
  for (const k of Object.keys(policy) as Array<keyof KeyPolicy>) if (policy[k] === undefined) delete policy[k]
  settings.policy = policy
  return settings
}

/**
 * `--soft-cap-model M --soft-cap-at PERCENT` set the soft cap; on update either changes its part
 * of the key's cap, and `--soft-cap-model none` removes it.
 */
function readSoftCap(v: SettingValues, policy: KeyPolicy, percent: (s: string) => number): void {
  const model = v['soft-cap-model']
  const at = v['soft-cap-at']
  if (model === undefined && at === undefined) return
  if (model === NONE) {
    if (at !== undefined) throw new Error('--soft-cap-at has no soft cap to set: --soft-cap-model is none')
    delete policy.soft_cap
    return
  }
  const cap = { ...policy.soft_cap }
  if (model !== undefined) cap.model = model
  if (at !== undefined) cap.at_percent = percent(at)
  if (cap.model === undefined) throw new Error('--soft-cap-at needs --soft-cap-model MODEL: the key has no soft cap yet')
  if (cap.at_percent === undefined)
    throw new Error('--soft-cap-model needs --soft-cap-at PERCENT (1 to 99): the share of a spend limit from which requests go to it')
  policy.soft_cap = { model: cap.model, at_percent: cap.at_percent }
}

function describe(info: KeySummary): string[] {
  const p = info.policy
  const rules = [
    p.allowed_models && `models ${p.allowed_models.join(',')}`,
    p.allowed_providers && `providers ${p.allowed_providers.join(',')}`,
    p.preset_only && 'presets only',
    p.max_tokens && `max_tokens ${p.max_tokens}`,
    p.max_cost_per_request_usd && `≤ $${p.max_cost_per_request_usd}/request`,
    p.rpm && `${p.rpm} rpm`,
    p.max_session_usd && `≤ $${p.max_session_usd}/session`,
    p.max_session_requests && `≤ ${p.max_session_requests} requests/session`,
    p.soft_cap && `${p.soft_cap.model} from ${p.soft_cap.at_percent}% of a limit`,
    info.daily_limit_usd !== null && `$${info.daily_limit_usd}/day`,
    info.monthly_limit_usd !== null && `$${info.monthly_limit_usd}/month`,
    info.response_cache_ttl_s !== null && `cache ${formatDuration(info.response_cache_ttl_s)}`,
  ].filter(Boolean)
  return [
    info.id,
    info.name,
    info.masked,
    info.default_preset ?? '-',
    info.balance_usd === null ? 'unlimited' : `$${info.balance_usd}`,
    rules.join('; ') || '-',
    when(info.last_used_at),
    info.revoked_at ? `revoked ${when(info.revoked_at)}` : 'active',
  ]
}

/** The key a person named (id, name or gw- prefix), as the admin service finds it. */
export function findKey(run: Operate, ref: string | undefined, usage: string): Promise<KeySummary> {
  if (!ref) throw new Error(usage)
  return run('keys.find', { ref })
}

export const keysCreate: Command = async (args, io) => {
  const { values } = parse(args, { name: { type: 'string' }, balance: { type: 'string' }, ...settingFlags })
  if (!values.name) throw new Error('keys create needs --name NAME')
  const settings = readSettings(values, {})
  const balanceUsd = nonNegativeUsd(values.balance, '--balance') ?? undefined
  const { secret, key } = await operate(values, io, 'keys.create', { name: values.name, ...settings, balance_usd: balanceUsd }, FLAGS)
  io.out(values.json ? JSON.stringify({ secret, ...key }) : secret)
  return 0
}

export const keysUpdate: Command = async (args, io) => {
  const { values, positionals } = parse(args, settingFlags)
  const info = await operating(
    values,
    io,
    async (run) => {
      const key = await findKey(run, positionals[0], 'keys update needs KEY (id, name or gw- prefix)')
      return run('keys.update', { id: key.id, ...readSettings(values, key.policy) })
    },
    FLAGS,
  )
  io.out(values.json ? JSON.stringify(info) : `updated ${info.id} (${info.name})`)
  return 0
}

export const keysList: Command = async (args, io) => {
  const { values } = parse(args, {})
  const keys = await operate(values, io, 'keys.list', {})
  if (values.json) io.out(JSON.stringify(keys, null, 2))
  else if (keys.length === 0) io.out('No keys yet. Create one with: gw keys create --name NAME')
  else io.out(table([['ID', 'NAME', 'KEY', 'DEFAULT PRESET', 'BALANCE', 'POLICY', 'LAST USED', 'STATE'], ...keys.map(describe)]))
  return 0
}

export const keysRevoke: Command = async (args, io) => {
  const { values, positionals } = parse(args, {})
  const key = await operating(values, io, async (run) => {
    const found = await findKey(run, positionals[0], 'keys revoke needs KEY (id, name or gw- prefix)')
    return run('keys.revoke', { id: found.id })
  })
  io.out(`revoked ${key.id} (${key.name})`)
  return 0
}

export const keysDeleteResponses: Command = async (args, io) => {
  const { values, positionals } = parse(args, {})
  const { key, deleted } = await operating(values, io, async (run) => {
    const found = await findKey(run, positionals[0], 'keys delete-responses needs KEY (id, name or gw- prefix)')
    return { key: found, ...(await run('keys.deleteResponses', { id: found.id })) }
  })
  io.out(values.json ? JSON.stringify({ key_id: key.id, deleted }) : `deleted ${deleted} stored response${deleted === 1 ? '' : 's'} of ${key.id} (${key.name})`)
  return 0
}
