import type { Output } from '../../../../contract'
import { Badge } from '../../components/Page'
import { compact, dateTime, ms, usd } from '../../lib/format'
import { href } from '../../lib/router'

export type RequestRow = Output<'requests.list'>['items'][number]
export type SortKey = 'created_at' | 'latency_ms' | 'cost_usd' | 'total_tokens' | 'status'

const reportedUsage = (r: RequestRow) => r.prompt_tokens !== null || r.completion_tokens !== null

/**
 * Why a request has no cost. Refused before any provider was chosen, it was sent nowhere; failed
 * at a provider before any usage was reported, its cost is unknown (a provider may bill work it
 * never reported), so it counts as unpriced, never $0.
 */
export const noCostReason = (provider: string | null): string =>
  provider === null ? 'Refused before reaching any provider: nothing to bill' : 'No usage reported: what the provider billed, if anything, is unknown'

/** A request without a price is "unpriced", never $0; one sent nowhere has no cost at all; a token count is free. */
export function CostCell({ r }: { r: RequestRow }) {
  // A token count costs exactly $0 because no provider bills it: said so, not shown as a bare $0.
  if (r.endpoint === 'messages.count_tokens') {
    return (
      <span className="muted" title="Token counting is not billed" data-testid="cost-free">
        free
      </span>
    )
  }
  if (r.priced) return <>{usd(r.cost_usd)}</>
  if (r.provider === null) {
    return (
      <span className="muted" title={noCostReason(null)} data-testid="cost-none">
        —
      </span>
    )
  }
  return (
    <span className="muted" title={reportedUsage(r) ? 'No known price for this model' : noCostReason(r.provider)} data-testid="cost-unpriced">
      unpriced
    </span>
  )
}

/** A request the key's soft cap sent to its cheaper model, near one of its spend limits. */
export function SoftCapBadge({ limit, served }: { limit: string; served: string | null }) {
  return (
    <Badge
      kind="warn"
      testId="soft-cap-badge"
      title={`The key's ${limit} spend limit was near: its soft cap sent this request to ${served ?? 'its cheaper model'}`}
    >
      soft cap → {served ?? '?'}
    </Badge>
  )
}

export function StatusBadge({ status, outcome }: { status: number; outcome: string }) {
  const kind = outcome === 'aborted' ? 'warn' : status >= 200 && status < 300 ? 'ok' : 'danger'
  return (
    <Badge kind={kind} title={outcome}>
      {status}
      {outcome === 'aborted' ? ' aborted' : ''}
    </Badge>
  )
}

function SortHeader(props: {
  label: string
  col: SortKey
  sort?: SortKey
  order?: 'asc' | 'desc'
  onSort?: (col: SortKey) => void
  num?: boolean
  wide?: boolean
}) {
  const active = props.sort === props.col
  const className = [props.num && 'num', props.wide && 'col-wide'].filter(Boolean).join(' ') || undefined
  if (!props.onSort)
    return (
      <th scope="col" className={className}>
        {props.label}
      </th>
    )
  return (
    <th scope="col" className={className} aria-sort={active ? (props.order === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <button type="button" className="sort-btn" onClick={() => props.onSort!(props.col)} data-testid={`sort-${props.col}`}>
        {props.label}
        <span aria-hidden="true" className="sort-mark">
          {active ? (props.order === 'asc' ? '▲' : '▼') : '↕'}
        </span>
      </button>
    </th>
  )
}

/** Request records as rows; each opens its detail page. */
export function RequestsTable(props: {
  rows: RequestRow[]
  keyName?: (id: string) => string
  sort?: SortKey
  order?: 'asc' | 'desc'
  onSort?: (col: SortKey) => void
  testId?: string
}) {
  const s = { sort: props.sort, order: props.order, onSort: props.onSort }
  return (
    <div className="table-wrap">
      <table className="table table-requests" data-testid={props.testId ?? 'requests-table'}>
        <thead>
          <tr>
            <SortHeader label="Time" col="created_at" {...s} />
            <SortHeader label="Status" col="status" {...s} />
            <th scope="col">Model</th>
            <th scope="col" className="col-wide">
              Provider
            </th>
            <th scope="col" className="col-wide">
              Key
            </th>
            <SortHeader label="Tokens" col="total_tokens" num wide {...s} />
            <SortHeader label="Cost" col="cost_usd" num {...s} />
            <SortHeader label="Latency" col="latency_ms" num {...s} />
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr key={r.id} data-testid="request-row" data-request-id={r.id}>
              <td className="cell-time">
                <a href={href('requests', r.id)} data-testid="request-link">
                  {dateTime(r.created_at)}
                </a>
                {r.source === 'playground' && (
                  <>
                    {' '}
                    <Badge kind="accent">playground</Badge>
                  </>
                )}
              </td>
              <td className="cell-status">
                <StatusBadge status={r.status} outcome={r.outcome} />
              </td>
              <td className="truncate cell-model" title={r.upstream_model ?? undefined}>
                {r.preset ? (
                  <>
                    <span>{r.model ?? '—'}</span> <span className="muted">via {r.preset}</span>
                  </>
                ) : (
                  (r.model ?? '—')
                )}
                {r.soft_cap && (
                  <div className="soft-cap-line">
                    <SoftCapBadge limit={r.soft_cap} served={r.upstream_model} />
                  </div>
                )}
              </td>
              <td className="col-wide">{r.provider ?? '—'}</td>
              <td className="truncate col-wide">{r.key_id ? <a href={href('keys', r.key_id)}>{props.keyName?.(r.key_id) ?? r.key_id}</a> : '—'}</td>
              <td className="num col-wide">{reportedUsage(r) ? compact((r.prompt_tokens ?? 0) + (r.completion_tokens ?? 0)) : '—'}</td>
              <td className="num cell-cost" data-testid="cell-cost">
                <CostCell r={r} />
              </td>
              <td className="num cell-latency" data-testid="cell-latency">
                {ms(r.latency_ms)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
