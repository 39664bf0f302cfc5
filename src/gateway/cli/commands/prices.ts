import { PricesRepo } from '../../store/pricesRepo'
import { nonNegativeUsd, number, parse, table, withStore, type Command } from '../shared'

export const pricesSet: Command = async (args, io) => {
  const { values, positionals } = parse(args, {
    input: { type: 'string' },
    output: { type: 'string' },
    'cached-input': { type: 'string' },
    'cache-write': { type: 'string' },
    context: { type: 'string' },
    note: { type: 'string' },
  })
  const model = positionals[0]
  if (!model || !/^[^/\s]+\/\S+$/.test(model)) throw new Error('prices set needs PROVIDER/MODEL, e.g. openai/gpt-4o-mini')
  const input = nonNegativeUsd(values.input, '--input')
  if (input === null) throw new Error('prices set needs --input USD (per 1M tokens)')
  const context = values.context === undefined ? null : number(values.context, '--context', (n) => Number.isInteger(n) && n > 0, 'a positive integer')
  return withStore(values['data-dir'], io, (db) => {
    new PricesRepo(db).set({
      model,
      input,
      output: nonNegativeUsd(values.output, '--output'),
      cached_input: nonNegativeUsd(values['cached-input'], '--cached-input'),
      cache_write: nonNegativeUsd(values['cache-write'], '--cache-write'),
      context_length: context,
      note: values.note ?? null,
    })
    io.out(`price for ${model} saved`)
    return 0
  })
}

export const pricesList: Command = async (args, io) => {
  const { values } = parse(args, {})
  return withStore(values['data-dir'], io, (db) => {
    const prices = new PricesRepo(db).all()
    if (values.json) io.out(JSON.stringify(prices, null, 2))
    else if (prices.length === 0) io.out('No price overrides; the built-in catalog applies (see GET /v1/models).')
    else {
      const n = (v: number | null) => (v === null ? '-' : String(v))
      io.out(
        table([
          ['MODEL', 'INPUT', 'CACHED', 'WRITE', 'OUTPUT', 'NOTE'],
          ...prices.map((p) => [p.model, n(p.input), n(p.cached_input), n(p.cache_write), n(p.output), p.note ?? '']),
        ]),
      )
    }
    return 0
  })
}

export const pricesRemove: Command = async (args, io) => {
  const { values, positionals } = parse(args, {})
  return withStore(values['data-dir'], io, (db) => {
    if (!positionals[0] || !new PricesRepo(db).remove(positionals[0])) throw new Error(`no price override for "${positionals[0] ?? ''}"`)
    io.out(`price override for ${positionals[0]} removed`)
    return 0
  })
}
