import fs from 'node:fs'
import type { Input, Output } from '../../../contract'
import { usdToPico } from '../../../contract/money'
import { operate, operating } from './api'
import { nonNegativeUsd, number, parse, table, type CliIo, type Command } from '../shared'

function readRow(file: string, io: CliIo): Promise<unknown> | unknown {
  const parseJson = (text: string) => {
    try {
      return JSON.parse(text) as unknown
    } catch (err) {
      throw new Error(`--file ${file} is not JSON: ${(err as Error).message}`, { cause: err })
    }
  }
  return file === '-' ? io.readStdin().then(parseJson) : parseJson(fs.readFileSync(file, 'utf8'))
}

const positiveInt = (v: string | undefined, flag: string) =>
  v === undefined ? undefined : number(v, flag, (n) => Number.isInteger(n) && n > 0, 'a positive integer')

/**
 * `gw prices set MODEL` with a whole price row from `--file` (JSON, `-` for stdin; the catalog's
 * shape: long_context, schedule, peak…) and/or flags for the common rates, which win over the
 * file's. Either way the row goes through the same schema as the dashboard's.
 */
export const pricesSet: Command = async (args, io) => {
  const { values, positionals } = parse(args, {
    file: { type: 'string' },
    input: { type: 'string' },
    output: { type: 'string' },
    'cached-input': { type: 'string' },
    'cache-write': { type: 'string' },
    'cache-write-1h': { type: 'string' },
    context: { type: 'string' },
    'max-output': { type: 'string' },
    'as-of': { type: 'string' },
    note: { type: 'string' },
  })
  const model = positionals[0]
  if (!model || !/^[^/\s]+\/\S+$/.test(model)) throw new Error('prices set needs PROVIDER/MODEL, e.g. openai/gpt-6-luna')
  const fromFile = values.file === undefined ? {} : await readRow(values.file, io)
  if (typeof fromFile !== 'object' || fromFile === null || Array.isArray(fromFile))
    throw new Error(`--file ${values.file} must hold one JSON object (a price row)`)
  const flags: Record<string, number | undefined> = {
    input: nonNegativeUsd(values.input, '--input') ?? undefined,
    output: nonNegativeUsd(values.output, '--output') ?? undefined,
    cached_input: nonNegativeUsd(values['cached-input'], '--cached-input') ?? undefined,
    cache_write: nonNegativeUsd(values['cache-write'], '--cache-write') ?? undefined,
    cache_write_1h: nonNegativeUsd(values['cache-write-1h'], '--cache-write-1h') ?? undefined,
    context_length: positiveInt(values.context, '--context'),
    max_output_tokens: positiveInt(values['max-output'], '--max-output'),
  }
  const row: Record<string, unknown> = { ...fromFile }
  for (const [k, v] of Object.entries(flags)) if (v !== undefined) row[k] = v
  if (row.input === undefined) throw new Error('prices set needs --input USD (per 1M tokens) or a --file row with "input"')
  await operate(values, io, 'prices.set', { model, row: row as Input<'prices.set'>['row'], as_of: values['as-of'], note: values.note ?? null })
  io.out(`price for ${model} saved`)
  return 0
}

export const pricesList: Command = async (args, io) => {
  const { values } = parse(args, {})
  const { overrides: prices } = await operate(values, io, 'prices.list', {})
  if (values.json) io.out(JSON.stringify(prices, null, 2))
  else if (prices.length === 0) io.out('No price overrides; the built-in catalog applies (see GET /v1/models).')
  else {
    const n = (v: number | undefined) => (v === undefined ? '-' : String(v))
    const extras = (r: (typeof prices)[number]['row']) =>
      [
        r.long_context && `long context >${r.long_context.above_prompt_tokens}`,
        r.schedule?.length && `${r.schedule.length} dated row(s)`,
        r.peak && `peak hours${r.peak.calendar ? ` (${r.peak.calendar} holidays)` : ''}`,
      ]
        .filter(Boolean)
        .join(', ')
    io.out(
      table([
        ['MODEL', 'INPUT', 'CACHED', 'WRITE', 'WRITE 1H', 'OUTPUT', 'ALSO', 'AS OF', 'NOTE'],
        ...prices.map((p) => [
          p.model,
          n(p.row.input),
          n(p.row.cached_input),
          n(p.row.cache_write),
          n(p.row.cache_write_1h),
          n(p.row.output),
          extras(p.row),
          p.as_of,
          p.note ?? '',
        ]),
      ]),
    )
  }
  return 0
}

export const pricesRemove: Command = async (args, io) => {
  const { values, positionals } = parse(args, {})
  if (!positionals[0]) throw new Error('prices remove needs PROVIDER/MODEL')
  await operate(values, io, 'prices.remove', { model: positionals[0] })
  io.out(`price override for ${positionals[0]} removed`)
  return 0
}

type RepriceBatch = Output<'prices.reprice'>

/** `gw prices reprice --since DATE [--model M] [--dry-run]`: every batch of the `prices.reprice` operation in turn. */
export const pricesReprice: Command = async (args, io) => {
  const { values } = parse(args, { since: { type: 'string' }, model: { type: 'string' }, 'dry-run': { type: 'boolean' }, batch: { type: 'string' } })
  const since = values.since
  if (!since) throw new Error('prices reprice needs --since YYYY-MM-DD (UTC)')
  const limit = positiveInt(values.batch, '--batch') ?? 500
  const dryRun = values['dry-run'] ?? false
  const total = { examined: 0, changed: 0, delta_pico: 0n, adjustments: 0 }
  const sample: RepriceBatch['sample'] = []
  await operating(values, io, async (run) => {
    let cursor: string | undefined
    do {
      const b = await run('prices.reprice', { since, model: values.model, dry_run: dryRun, cursor, limit })
      total.examined += b.examined
      total.changed += b.changed
      total.delta_pico += usdToPico(b.delta_usd)
      total.adjustments += b.adjustments
      sample.push(...b.sample.slice(0, 20 - sample.length))
      cursor = b.next_cursor ?? undefined
    } while (cursor)
  })
  if (values.json) {
    io.out(JSON.stringify({ ...total, delta_pico: undefined, delta_usd: Number(total.delta_pico) / 1e12, dry_run: dryRun, sample }, null, 2))
    return 0
  }
  const usd = (v: number | null) => (v === null ? 'unpriced' : `$${v}`)
  if (sample.length)
    io.out(
      table([['REQUEST', 'MODEL', 'WAS', 'NOW', 'PRICE'], ...sample.map((s) => [s.id, s.model ?? '-', usd(s.old_usd), usd(s.new_usd), s.price_source ?? '-'])]),
    )
  io.out(
    `${dryRun ? 'would change' : 'changed'} ${total.changed} of ${total.examined} requests since ${values.since}; ` +
      `difference $${Number(total.delta_pico) / 1e12}; ${dryRun ? 'nothing written' : `${total.adjustments} prepaid ledger adjustment(s)`}`,
  )
  return 0
}

type Refresh = Output<'prices.refresh'>

const rates = (r: Refresh['rows'][number]['listed'] | null) =>
  r === null ? '-' : `${r.input} / ${r.cached_input ?? '-'} / ${r.cache_write ?? '-'} / ${r.output ?? '-'}`

/**
 * `gw prices refresh [--source URL|none] [--yes]`: the listing at the `price_source_url` setting
 * against the price book; the differences are saved, as override rows dated today, only with --yes.
 */
export const pricesRefresh: Command = async (args, io) => {
  const { values } = parse(args, { source: { type: 'string' }, yes: { type: 'boolean' } })
  const diff = await operating(values, io, async (operate) => {
    if (values.source !== undefined) await operate('settings.update', { price_source_url: values.source === 'none' ? null : values.source })
    const preview = await operate('prices.refresh', { apply: false })
    return values.yes && preview.rows.length > 0 ? operate('prices.refresh', { apply: true }) : preview
  })
  if (values.json) {
    io.out(JSON.stringify(diff, null, 2))
    return 0
  }
  if (diff.rows.length) {
    io.out(
      table([
        ['MODEL', 'STATUS', 'NOW (in / cached / write / out)', 'LISTED'],
        ...diff.rows.map((r) => [r.model, r.status, rates(r.current), rates(r.listed)]),
      ]),
    )
  }
  const { counts } = diff
  io.out(`${diff.source}: ${counts.new} new, ${counts.changed} changed, ${counts.unchanged} unchanged, ${counts.skipped} skipped (USD per 1M tokens)`)
  if (diff.applied) io.out(`saved ${diff.rows.length} price override(s) dated today; requests before today keep the rates they ran at`)
  else if (diff.rows.length) io.out(`nothing saved: run again with --yes to apply; until then the catalog of ${diff.catalog_as_of} and your overrides stand`)
  return 0
}
