import type { Preset } from '../../../contract/presets'
import { validatePreset } from '../../presets/validatePreset'
import { PresetsRepo } from '../../store/presetsRepo'
import { cliActor, list, modelDirectory, number, parse, table, when, withStore, type Command } from '../shared'

const row = (p: Preset) => [
  p.name,
  `v${p.version}`,
  p.model,
  p.temperature === null ? '-' : String(p.temperature),
  p.max_tokens === null ? '-' : String(p.max_tokens),
  p.top_p === null ? '-' : String(p.top_p),
  p.fallbacks.join(',') || '-',
  p.system_prompt ? JSON.stringify(p.system_prompt.length > 40 ? p.system_prompt.slice(0, 39) + '…' : p.system_prompt) : '-',
]
const HEADER = ['NAME', 'VERSION', 'MODEL', 'TEMP', 'MAX TOKENS', 'TOP P', 'FALLBACKS', 'SYSTEM']

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
  })
  const num = (v: string | undefined, flag: string) => (v === undefined ? null : number(v, flag, () => true, 'a number'))
  return withStore(values['data-dir'], io, (db) => {
    const { registry, priceBook } = modelDirectory(db, io)
    const fields = validatePreset(
      {
        name: positionals[0] ?? '',
        model: values.model ?? '',
        system_prompt: values.system ?? null,
        temperature: num(values.temperature, '--temperature'),
        max_tokens: num(values['max-tokens'], '--max-tokens'),
        top_p: num(values['top-p'], '--top-p'),
        fallbacks: list(values.fallbacks) ?? [],
        description: values.description ?? null,
      },
      registry,
      priceBook,
    )
    const saved = new PresetsRepo(db).save(fields, cliActor())
    io.out(values.json ? JSON.stringify(saved) : `preset ${saved.name} saved as version ${saved.version}`)
    return 0
  })
}

export const presetsList: Command = async (args, io) => {
  const { values } = parse(args, {})
  return withStore(values['data-dir'], io, (db) => {
    const presets = new PresetsRepo(db).all()
    if (values.json) io.out(JSON.stringify(presets, null, 2))
    else if (presets.length === 0) io.out('No presets yet. Create one with: gw presets set NAME --model MODEL')
    else io.out(table([HEADER, ...presets.map(row)]))
    return 0
  })
}

export const presetsShow: Command = async (args, io) => {
  const { values, positionals } = parse(args, {})
  return withStore(values['data-dir'], io, (db) => {
    const repo = new PresetsRepo(db)
    const name = positionals[0] ?? ''
    const current = repo.get(name)
    if (!current) throw new Error(`no preset named "${name}"`)
    const versions = repo.versions(name)
    const keys = repo.keysUsing(name)
    if (values.json) io.out(JSON.stringify({ ...current, versions, default_of_keys: keys }, null, 2))
    else {
      io.out(table([[...HEADER, 'SAVED', 'BY'], ...versions.map((v) => [...row(v), when(v.created_at), v.created_by ?? '-'])]))
      if (current.system_prompt) io.out(`\nsystem prompt (v${current.version}):\n${current.system_prompt}`)
      io.out(`\ndefault preset of: ${keys.map((k) => `${k.name} (${k.id})`).join(', ') || 'no key'}`)
    }
    return 0
  })
}

export const presetsDelete: Command = async (args, io) => {
  const { values, positionals } = parse(args, {})
  return withStore(values['data-dir'], io, (db) => {
    new PresetsRepo(db).delete(positionals[0] ?? '')
    io.out(`deleted preset ${positionals[0]}`)
    return 0
  })
}
