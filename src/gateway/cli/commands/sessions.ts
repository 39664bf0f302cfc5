import type { Output } from '../../../contract'
import { operating } from './api'
import { number, parse, since, table, when, type Command } from '../shared'

type Session = Output<'sessions.list'>['items'][number]

/** Spend as the CLI prints it: never $0 for an unknown cost; a partly priced sum is a lower bound. */
function spend(costUsd: number, unpriced: number, requests: number): string {
  if (unpriced === 0) return `$${costUsd}`
  if (unpriced >= requests && costUsd === 0) return 'unpriced'
  return `>= $${costUsd} (${unpriced} unpriced)`
}

const SORTS = { last: 'last_at', first: 'first_at', cost: 'cost_usd', requests: 'requests', tokens: 'tokens' } as const

const keysOf = (s: Session) => s.keys.map((k) => k.name ?? k.id).join(',') || '-'

/** `gw sessions list [--since 24h|DATE] [--tool T] [--key KEY_ID] [--sort last|cost|…] [--limit N]`: newest activity first. */
export const sessionsList: Command = async (args, io) => {
  const { values } = parse(args, {
    since: { type: 'string' },
    tool: { type: 'string' },
    key: { type: 'string' },
    sort: { type: 'string' },
    limit: { type: 'string' },
  })
  const sort = values.sort ?? 'last'
  if (!Object.hasOwn(SORTS, sort)) throw new Error(`--sort must be one of ${Object.keys(SORTS).join(', ')}, got "${sort}"`)
  const limit = values.limit === undefined ? 50 : number(values.limit, '--limit', (n) => Number.isInteger(n) && n > 0 && n <= 200, 'an integer from 1 to 200')
  const filter = {
    ...(values.since !== undefined && { from: since(values.since) }),
    ...(values.tool !== undefined && { source_tool: values.tool }),
    ...(values.key !== undefined && { key_id: values.key }),
  }
  const page = await operating(values, io, (operate) => operate('sessions.list', { filter, sort: SORTS[sort as keyof typeof SORTS], limit }))
  if (values.json) io.out(JSON.stringify(page.items, null, 2))
  else if (page.items.length === 0) io.out('No sessions. Claude Code and Codex sessions are recognised by themselves; other clients set X-Gw-Session-Id.')
  else {
    io.out(
      table([
        ['SESSION', 'TOOL', 'KEY', 'FIRST', 'LAST', 'REQUESTS', 'ERRORS', 'TOKENS', 'COST USD', 'MODELS'],
        ...page.items.map((s) => [
          s.session_id,
          s.tools.join(',') || '-',
          keysOf(s),
          when(s.first_at),
          when(s.last_at),
          String(s.requests),
          String(s.errors),
          `${s.prompt_tokens}/${s.completion_tokens}`,
          spend(s.cost_usd, s.unpriced, s.requests),
          s.models.join(',') || '-',
        ]),
      ]),
    )
    if (page.total > page.items.length) io.out(`${page.items.length} of ${page.total} sessions; --limit shows more`)
  }
  return 0
}

type SessionCache = Output<'sessions.get'>['cache']
type CacheTurn = SessionCache['turns'][number]

/** The prompt-cache doctor's lines: its verdict and figures, then why each miss happened. */
function cacheLines(c: SessionCache): string[] {
  const rate = c.hit_rate === null ? '-' : `${Math.round(c.hit_rate * 100)}%`
  return [
    `cache     ${c.verdict}: ${rate} of ${c.prompt_tokens} prompt tokens read from the cache (${c.cached_tokens} read, ${c.cache_write_tokens} written)`,
    `          saved ${c.saved_usd < 0 ? '-' : ''}$${Math.abs(c.saved_usd)} (net of what writes cost above input); wasted $${c.wasted_usd} on writes never read (${c.wasted_tokens} tokens)`,
    ...c.turns.flatMap((t) => (t.cause ? [`          ${t.cause.text}`] : [])),
  ]
}

/** A turn's cache in the timeline: what it read or wrote, and a miss said so. */
function cacheCell(t: CacheTurn | undefined): string {
  if (!t || t.state === 'none') return '-'
  const wrote = t.cache_write_tokens > 0 ? ` w${t.cache_write_tokens}` : ''
  return `${t.state === 'miss' ? 'MISS ' : ''}r${t.cached_tokens}${wrote}`
}

/**
 * `gw sessions show ID [--limit N] [--offset N]`: the session's totals and its prompt cache, then a
 * page of its requests in order (500 from the first unless said), numbered within the whole
 * session, with the cost so far.
 */
export const sessionsShow: Command = async (args, io) => {
  const { values, positionals } = parse(args, { limit: { type: 'string' }, offset: { type: 'string' } })
  const id = positionals[0]
  if (!id) throw new Error('sessions show needs a session id (see gw sessions list)')
  const limit =
    values.limit === undefined ? 500 : number(values.limit, '--limit', (n) => Number.isInteger(n) && n > 0 && n <= 1000, 'an integer from 1 to 1000')
  const offset = values.offset === undefined ? 0 : number(values.offset, '--offset', (n) => Number.isInteger(n) && n >= 0, 'a non-negative integer')
  const found = await operating(values, io, (operate) => operate('sessions.get', { id, limit, offset }))
  if (values.json) {
    io.out(JSON.stringify(found, null, 2))
    return 0
  }
  const s = found.session
  io.out(
    [
      `session ${s.session_id}${s.derived ? ' (recognised from the tool)' : ''}`,
      `tool      ${s.tools.join(', ') || '-'}`,
      `key       ${keysOf(s)}`,
      `requests  ${s.requests} (${s.errors} errors), ${when(s.first_at)} to ${when(s.last_at)}`,
      `tokens    ${s.prompt_tokens} in, ${s.completion_tokens} out`,
      `cost      ${spend(s.cost_usd, s.unpriced, s.requests)}`,
      `models    ${s.models.join(', ') || '-'}`,
      ...cacheLines(found.cache),
      '',
    ].join('\n'),
  )
  const turns = new Map(found.cache.turns.map((t) => [t.request_id, t]))
  io.out(
    table([
      ['#', 'TIME', 'REQUEST', 'STATUS', 'MODEL', 'TOKENS', 'CACHE', 'COST USD', 'SO FAR USD'],
      ...found.requests.map((r, i) => [
        String(offset + i + 1),
        when(r.created_at),
        r.id,
        String(r.status),
        r.model ?? '-',
        r.prompt_tokens === null ? '-' : `${r.prompt_tokens}/${r.completion_tokens ?? 0}`,
        cacheCell(turns.get(r.id)),
        r.priced ? String(r.cost_usd) : r.provider === null ? '-' : 'unpriced',
        spend(r.cumulative_usd, r.cumulative_unpriced, offset + i + 1),
      ]),
    ]),
  )
  const shown = found.requests.length
  if (shown < s.requests) {
    io.out(
      shown === 0
        ? `no requests past the first ${s.requests}; --offset below ${s.requests} shows some`
        : `requests ${offset + 1}–${offset + shown} of ${s.requests}; --offset and --limit show others`,
    )
  }
  return 0
}
