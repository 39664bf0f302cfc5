import { RequestsRepo } from '../../store/requestsRepo'
import { number, parse, table, withStore, type Command } from '../shared'

export const requestsList: Command = async (args, io) => {
  const { values } = parse(args, { limit: { type: 'string' } })
  const limit = values.limit === undefined ? 100 : number(values.limit, '--limit', (n) => Number.isInteger(n) && n > 0, 'a positive integer')
  return withStore(values['data-dir'], io, (db) => {
    const records = new RequestsRepo(db).list(limit)
    if (values.json) io.out(JSON.stringify(records, null, 2))
    else if (records.length === 0) io.out('No requests recorded yet.')
    else {
      io.out(
        table([
          ['ID', 'TIME', 'STATUS', 'OUTCOME', 'MODEL', 'PRESET', 'PROVIDER', 'TOKENS', 'COST USD', 'MS'],
          ...records.map((r) => [
            r.id,
            r.created_at,
            String(r.status),
            r.outcome,
            r.model ?? '-',
            r.preset ? `${r.preset}@v${r.preset_version}` : '-',
            r.provider ?? '-',
            r.usage ? `${r.usage.prompt_tokens}/${r.usage.completion_tokens}` : '-',
            r.cost?.final_usd != null ? `${r.cost.final_usd}${r.cost.estimated ? ' (est.)' : ''}` : r.cost ? 'unpriced' : '-',
            String(r.latency_ms),
          ]),
        ]),
      )
    }
    return 0
  })
}

export const requestsShow: Command = async (args, io) => {
  const { values, positionals } = parse(args, {})
  return withStore(values['data-dir'], io, (db) => {
    const record = positionals[0] ? new RequestsRepo(db).get(positionals[0]) : undefined
    if (!record) throw new Error(`no request "${positionals[0] ?? ''}"`)
    io.out(JSON.stringify(record, null, 2))
    return 0
  })
}
