import { number, parse, table, type CliIo, type Command, type StoreFlags } from '../shared'
import { operating } from './api'

/** What the table shows of a record (the contract carries the stored record as a JSON document). */
interface Listed {
  id: string
  created_at: string
  status: number
  outcome: string
  model: string | null
  preset: string | null
  preset_version: number | null
  provider: string | null
  usage: { prompt_tokens: number; completion_tokens: number } | null
  cost: { final_usd: number | null; estimated?: boolean } | null
  latency_ms: number
}

/** The contract's page size limit: a longer list is read page by page. */
const PAGE = 500

/** The newest `limit` records, whole (attribution, usage, cost), newest first. */
function newestRecords(where: StoreFlags, io: CliIo, limit: number) {
  return operating(where, io, async (run) => {
    const ids: string[] = []
    for (let offset = 0; ids.length < limit; offset += PAGE) {
      const page = await run('requests.list', { limit: Math.min(PAGE, limit - ids.length), offset })
      ids.push(...page.items.map((r) => r.id))
      if (page.items.length === 0 || offset + page.items.length >= page.total) break
    }
    const records = []
    for (const id of ids) records.push((await run('requests.get', { id })).record)
    return records
  })
}

export const requestsList: Command = async (args, io) => {
  const { values } = parse(args, { limit: { type: 'string' } })
  const limit = values.limit === undefined ? 100 : number(values.limit, '--limit', (n) => Number.isInteger(n) && n > 0, 'a positive integer')
  const records = (await newestRecords(values, io, limit)) as unknown as Listed[]
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
}

export const requestsShow: Command = async (args, io) => {
  const { values, positionals } = parse(args, {})
  if (!positionals[0]) throw new Error('requests show needs ID')
  const { record } = await operating(values, io, (run) => run('requests.get', { id: positionals[0] }))
  io.out(JSON.stringify(record, null, 2))
  return 0
}
