import type { RequestFilter } from '../../../../contract/requests'
import type { SortKey } from './RequestsTable'

/** Everything the Requests screen shows lives in the hash query, so any view can be linked. */
export const FILTER_KEYS = [
  'key_id',
  'model',
  'preset',
  'provider',
  'status',
  'outcome',
  'user_id',
  'trace_id',
  'session_id',
  'tag',
  'source',
  'instance',
] as const
export type FilterKey = (typeof FILTER_KEYS)[number]

export const SINCE: Array<{ value: string; label: string; ms: number | null }> = [
  { value: '', label: 'Any time', ms: null },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
]

export interface ListState {
  filter: RequestFilter
  sort: SortKey
  order: 'asc' | 'desc'
  page: number
  size: number
}

const SORTS: SortKey[] = ['created_at', 'latency_ms', 'cost_usd', 'total_tokens', 'status']

export function parseDimensions(s: string): Record<string, string> | string {
  const out: Record<string, string> = {}
  for (const part of s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    const at = part.indexOf('=')
    if (at <= 0) return `“${part}” is not name=value`
    out[part.slice(0, at).trim()] = part.slice(at + 1).trim()
  }
  return out
}

export function stateFromQuery(q: URLSearchParams, now = Date.now()): ListState {
  const filter: RequestFilter = {}
  for (const k of FILTER_KEYS) {
    const v = q.get(k)
    if (!v) continue
    if (k === 'status') filter.status = /^\d+$/.test(v) ? Number(v) : (v as '2xx' | '4xx' | '5xx')
    else if (k === 'outcome') filter.outcome = v as RequestFilter['outcome']
    else if (k === 'source') filter.source = v as RequestFilter['source']
    else filter[k] = v
  }
  const since = SINCE.find((s) => s.value === q.get('since'))
  if (since?.ms) filter.from = now - since.ms
  else if (q.get('from')) filter.from = Number(q.get('from'))
  if (q.get('to')) filter.to = Number(q.get('to'))
  const dims = q.get('dim')
  if (dims) {
    const d = parseDimensions(dims)
    if (typeof d !== 'string' && Object.keys(d).length) filter.dimensions = d
  }
  const sort = SORTS.includes(q.get('sort') as SortKey) ? (q.get('sort') as SortKey) : 'created_at'
  const order = q.get('order') === 'asc' ? 'asc' : 'desc'
  const page = Math.max(0, Number(q.get('page') ?? 0) || 0)
  const size = [25, 50, 100].includes(Number(q.get('size'))) ? Number(q.get('size')) : 50
  return { filter, sort, order, page, size }
}
