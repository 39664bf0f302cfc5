import type { Preset } from '../../../contract/presets'
import { list, number, parse, table, when, type Command } from '../shared'
import { operate } from './api'
import { formatDuration } from '../../../contract/duration'
import { cacheTtl } from './keys'

const row = (p: Preset) => [
  p.name,
  `v${p.version}`,
  p.model,
  p.temperature === null ? '-' : String(p.temperature),
  p.max_tokens === null ? '-' : String(p.max_tokens),
  p.top_p === null ? '-' : String(p.top_p),
  p.fallbacks.length === 0 ? '-' : `${p.fallbacks.join(',')}${p.equal_candidates ? ' (equals)' : ''}`,
  p.response_cache_ttl_s === null ? '-' : `${formatDuration(p.response_cache_ttl_s)}${p.response_cache_shared ? ' shared' : ''}`,
  p.system_prompt ? JSON.stringify(p.system_prompt.length > 40 ? p.system_prompt.slice(0, 39) + '…' : p.system_prompt) : '-',
]
const HEADER = ['NAME', 'VERSION', 'MODEL', 'TEMP', 'MAX TOKENS', 'TOP P', 'FALLBACKS', 'CACHE', 'SYSTEM']

/** Creates or replaces a preset: the flags given are the whole new version. */
export const presetsSet: Command = async (args, io) => {
  const { values, positionals } = parse(args, {
    model: { type: 'string' },
    system: { type: 'string' },
    temperature: { type: 'string' },
    'max-tokens': { type: 'string' },
    'top-p': { type: 'string' },
    fallbacks: { type: 'string' },
    description: { type: 'string' },
    'cache-ttl': { type: 'string' },
    'cache-shared': { type: 'boolean' },
    'soft-cap-model': { type: 'string' },
    'soft-cap-at': { type: 'string' },
    'equal-candidates': { type: 'boolean' },
  })
  const num = (v: string | undefined, flag: string) => (v === undefined ? null : number(v, flag, () => true, 'a number'))
  const softModel = values['soft-cap-model']
  const softAt = num(values['soft-cap-at'], '--soft-cap-at')
  if ((softModel === undefined) !== (softAt === null)) throw new Error('a soft cap needs both --soft-cap-model MODEL and --soft-cap-at PERCENT')
  const saved = await operate(
    values,
    io,
    'presets.save',
    {
      name: positionals[0] ?? '',
      model: values.model ?? '',
      system_prompt: values.system ?? null,
      temperature: num(values.temperature, '--temperature'),
      max_tokens: num(values['max-tokens'], '--max-tokens'),
      top_p: num(values['top-p'], '--top-p'),
      fallbacks: list(values.fallbacks) ?? [],
      description: values.description ?? null,
      response_cache_ttl_s: values['cache-ttl'] === undefined ? null : cacheTtl(values['cache-ttl']),
      response_cache_shared: values['cache-shared'] ?? false,
      soft_cap: softModel === undefined ? null : { model: softModel, at_percent: softAt! },
      equal_candidates: values['equal-candidates'] ?? false,
    },
    { 'soft_cap.model': '--soft-cap-model', 'soft_cap.at_percent': '--soft-cap-at' },
  )
  io.out(values.json ? JSON.stringify(saved) : `preset ${saved.name} saved as version ${saved.version}`)
  return 0
}

export const presetsList: Command = async (args, io) => {
  const { values } = parse(args, {})
  const presets = await operate(values, io, 'presets.list', {})
  if (values.json) io.out(JSON.stringify(presets, null, 2))
  else if (presets.length === 0) io.out('No presets yet. Create one with: gw presets set NAME --model MODEL')
  else io.out(table([HEADER, ...presets.map(row)]))
  return 0
}

export const presetsShow: Command = async (args, io) => {
  const { values, positionals } = parse(args, {})
  const { preset: current, versions, default_of_keys: keys } = await operate(values, io, 'presets.get', { name: positionals[0] ?? '' })
  if (values.json) io.out(JSON.stringify({ ...current, versions, default_of_keys: keys }, null, 2))
  else {
    io.out(table([[...HEADER, 'SAVED', 'BY'], ...versions.map((v) => [...row(v), when(v.created_at), v.created_by ?? '-'])]))
    if (current.system_prompt) io.out(`\nsystem prompt (v${current.version}):\n${current.system_prompt}`)
    io.out(`\ndefault preset of: ${keys.map((k) => `${k.name} (${k.id})`).join(', ') || 'no key'}`)
  }
  return 0
}

export const presetsDelete: Command = async (args, io) => {
  const { values, positionals } = parse(args, {})
  await operate(values, io, 'presets.delete', { name: positionals[0] ?? '' })
  io.out(`deleted preset ${positionals[0]}`)
  return 0
}
