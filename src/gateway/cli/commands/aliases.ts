import { parse, table, type Command } from '../shared'
import { operate } from './api'

export const aliasesSet: Command = async (args, io) => {
  const { values, positionals } = parse(args, { to: { type: 'string' }, note: { type: 'string' } })
  const saved = await operate(values, io, 'aliases.set', { pattern: positionals[0] ?? '', to: values.to ?? '', note: values.note })
  io.out(values.json ? JSON.stringify(saved) : `alias ${saved.pattern} → ${saved.target} saved`)
  return 0
}

export const aliasesList: Command = async (args, io) => {
  const { values } = parse(args, {})
  const aliases = await operate(values, io, 'aliases.list', {})
  if (values.json) io.out(JSON.stringify(aliases, null, 2))
  else if (aliases.length === 0) io.out("No aliases yet. Create one with: gw aliases set 'claude-haiku-*' --to PROVIDER/MODEL")
  else io.out(table([['PATTERN', 'TARGET', 'NOTE'], ...aliases.map((a) => [a.pattern, a.target, a.note ?? '-'])]))
  return 0
}

export const aliasesRemove: Command = async (args, io) => {
  const { values, positionals } = parse(args, {})
  await operate(values, io, 'aliases.remove', { pattern: positionals[0] ?? '' })
  io.out(`alias ${positionals[0]} removed`)
  return 0
}
