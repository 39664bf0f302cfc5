import type { Alias } from '../../../contract/aliases'
import { parse, table, type CliIo, type Command } from '../shared'
import { invokeAsOperator } from './api'

/** Runs an alias operation; a refusal becomes the CLI's error line, with the field it names. */
async function run(dataDir: string | undefined, io: CliIo, name: string, input: unknown): Promise<unknown> {
  const { result } = await invokeAsOperator(dataDir, io, name, input)
  if (!result.ok) throw new Error(result.error.message)
  return result.value
}

export const aliasesSet: Command = async (args, io) => {
  const { values, positionals } = parse(args, { to: { type: 'string' }, note: { type: 'string' } })
  const saved = (await run(values['data-dir'], io, 'aliases.set', { pattern: positionals[0] ?? '', to: values.to ?? '', note: values.note })) as Alias
  io.out(values.json ? JSON.stringify(saved) : `alias ${saved.pattern} → ${saved.target} saved`)
  return 0
}

export const aliasesList: Command = async (args, io) => {
  const { values } = parse(args, {})
  const aliases = (await run(values['data-dir'], io, 'aliases.list', {})) as Alias[]
  if (values.json) io.out(JSON.stringify(aliases, null, 2))
  else if (aliases.length === 0) io.out("No aliases yet. Create one with: gw aliases set 'claude-haiku-*' --to PROVIDER/MODEL")
  else io.out(table([['PATTERN', 'TARGET', 'NOTE'], ...aliases.map((a) => [a.pattern, a.target, a.note ?? '-'])]))
  return 0
}

export const aliasesRemove: Command = async (args, io) => {
  const { values, positionals } = parse(args, {})
  await run(values['data-dir'], io, 'aliases.remove', { pattern: positionals[0] ?? '' })
  io.out(`alias ${positionals[0]} removed`)
  return 0
}
