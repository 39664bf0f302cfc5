import { keyPolicy, type KeyPolicy } from '../../../contract/keys'
import { describeIssues } from '../../../contract/presets'
import type { Db } from '../../store/db'
import { KeysRepo, toKeyInfo, type KeyInfo, type KeyRow, type KeySettings } from '../../store/keysRepo'
import { LedgerRepo, picoToUsdNumber } from '../../store/ledgerRepo'
import { PresetsRepo } from '../../store/presetsRepo'
import { cliActor, list, nonNegativeUsd, number, parse, table, when, withStore, type Command } from '../shared'

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
} as const

type SettingValues = { [K in keyof typeof settingFlags]?: (typeof settingFlags)[K]['type'] extends 'boolean' ? boolean : string }

const NONE = 'none'

function readSettings(v: SettingValues, current: KeyPolicy, db: Db): KeySettings {
  const settings: KeySettings = {}
  const policy: KeyPolicy = { ...current }
  const optional = <T>(value: string | undefined, parseValue: (s: string) => T, set: (x: T | undefined) => void) => {
    if (value === undefined) return
    set(value === NONE ? undefined : parseValue(value))
  }
  const positiveInt = (flag: string) => (s: string) => number(s, flag, (n) => Number.isInteger(n) && n > 0, 'a positive integer')
  const usd = (flag: string) => (s: string) => nonNegativeUsd(s, flag)!
  if (v['default-preset'] !== undefined) {
    const name = v['default-preset']
    if (name !== NONE && !new PresetsRepo(db).get(name)) throw new Error(`--default-preset: no preset named ${name} (create it with gw presets set)`)
    settings.default_preset = name === NONE ? null : name
  }
  optional(v['allow-models'], (s) => list(s)!, (x) => (policy.allowed_models = x))
  optional(v['allow-providers'], (s) => list(s)!, (x) => (policy.allowed_providers = x))
  if (v['preset-only']) policy.preset_only = true
  if (v['no-preset-only']) delete policy.preset_only
  optional(v['max-tokens'], positiveInt('--max-tokens'), (x) => (policy.max_tokens = x))
  optional(v['max-cost-usd'], usd('--max-cost-usd'), (x) => (policy.max_cost_per_request_usd = x))
  optional(v.rpm, positiveInt('--rpm'), (x) => (policy.rpm = x))
  optional(v['max-session-usd'], usd('--max-session-usd'), (x) => (policy.max_session_usd = x))
  optional(v['max-session-requests'], positiveInt('--max-session-requests'), (x) => (policy.max_session_requests = x))
  optional(v['daily-limit'], usd('--daily-limit'), (x) => (settings.daily_limit_usd = x ?? null))
  optional(v['monthly-limit'], usd('--monthly-limit'), (x) => (settings.monthly_limit_usd = x ?? null))
  for (const k of Object.keys(policy) as Array<keyof KeyPolicy>) if (policy[k] === undefined) delete policy[k]
  const checked = keyPolicy.safeParse(policy)
  if (!checked.success) throw new Error(`invalid policy: ${describeIssues(checked.error)}`)
  settings.policy = checked.data
  return settings
}

function describe(info: KeyInfo, balanceUsd: number | null): string[] {
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
    info.daily_limit_usd !== null && `$${info.daily_limit_usd}/day`,
    info.monthly_limit_usd !== null && `$${info.monthly_limit_usd}/month`,
  ].filter(Boolean)
  return [
    info.id,
    info.name,
    info.masked,
    info.default_preset ?? '-',
    balanceUsd === null ? 'unlimited' : `$${balanceUsd}`,
    rules.join('; ') || '-',
    when(info.last_used_at),
    info.revoked_at ? `revoked ${when(info.revoked_at)}` : 'active',
  ]
}

const withBalance = (db: Db, row: KeyRow) => ({
  ...toKeyInfo(row),
  balance_usd: row.prepaid ? picoToUsdNumber(new LedgerRepo(db).balance(row.id)) : null,
})

export function findKey(db: Db, ref: string | undefined, usage: string): KeyRow {
  if (!ref) throw new Error(usage)
  const key = new KeysRepo(db).find(ref)
  if (!key) throw new Error(`no key matches "${ref}"`)
  return key
}

export const keysCreate: Command = async (args, io) => {
  const { values } = parse(args, { name: { type: 'string' }, balance: { type: 'string' }, ...settingFlags })
  if (!values.name) throw new Error('keys create needs --name NAME')
  return withStore(values['data-dir'], io, (db) => {
    const settings = readSettings(values, {}, db)
    const balanceUsd = nonNegativeUsd(values.balance, '--balance') ?? undefined
    const { secret, info } = new KeysRepo(db).create(values.name!, { ...settings, balanceUsd }, cliActor())
    io.out(values.json ? JSON.stringify({ secret, ...info, balance_usd: balanceUsd ?? null }) : secret)
    return 0
  })
}

export const keysUpdate: Command = async (args, io) => {
  const { values, positionals } = parse(args, settingFlags)
  return withStore(values['data-dir'], io, (db) => {
    const key = findKey(db, positionals[0], 'keys update needs KEY (id, name or gw- prefix)')
    const info = new KeysRepo(db).update(key.id, readSettings(values, toKeyInfo(key).policy, db))
    io.out(values.json ? JSON.stringify(info) : `updated ${info.id} (${info.name})`)
    return 0
  })
}

export const keysList: Command = async (args, io) => {
  const { values } = parse(args, {})
  return withStore(values['data-dir'], io, (db) => {
    const keys = new KeysRepo(db).all().map((row) => withBalance(db, row))
    if (values.json) io.out(JSON.stringify(keys, null, 2))
    else if (keys.length === 0) io.out('No keys yet. Create one with: gw keys create --name NAME')
    else {
      io.out(
        table([
          ['ID', 'NAME', 'KEY', 'DEFAULT PRESET', 'BALANCE', 'POLICY', 'LAST USED', 'STATE'],
          ...keys.map((k) => describe(k, k.balance_usd)),
        ]),
      )
    }
    return 0
  })
}

export const keysRevoke: Command = async (args, io) => {
  const { values, positionals } = parse(args, {})
  return withStore(values['data-dir'], io, (db) => {
    const key = findKey(db, positionals[0], 'keys revoke needs KEY (id, name or gw- prefix)')
    if (!new KeysRepo(db).revoke(key.id)) throw new Error(`key ${key.id} was already revoked`)
    io.out(`revoked ${key.id} (${key.name})`)
    return 0
  })
}
