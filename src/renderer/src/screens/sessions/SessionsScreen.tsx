import { useMemo, useState } from 'react'
import type { Output } from '../../../../contract'
import { call } from '../../api/client'
import { useQuery } from '../../lib/useQuery'
import { href, navigate, useRoute } from '../../lib/router'
import { RANGES, rangeOf, type PresetRangeId } from '../../lib/range'
import { ago, compact, dateTime, int } from '../../lib/format'
import { PageHeader } from '../../components/Page'
import { Segmented } from '../../components/Segmented'
import { Field } from '../../components/Field'
import { Empty, Pending } from '../../components/States'
import { SpendText } from './SpendText'

type Session = Output<'sessions.list'>['items'][number]
type Sort = 'last_at' | 'cost_usd' | 'requests'

const SORTS: Array<{ value: Sort; label: string }> = [
  { value: 'last_at', label: 'Latest activity' },
  { value: 'cost_usd', label: 'Highest cost' },
  { value: 'requests', label: 'Most requests' },
]
const PAGE = 50

/** A tool's session id (a UUID) shortened to its first group, as tools show it; ids a caller chose stay whole. The whole id is in its title and on its page. */
export const shortId = (id: string) => (/^[0-9a-f]{8}-[0-9a-f-]{27}$/i.test(id) ? `${id.slice(0, 8)}…` : id)

function SessionRow({ s }: { s: Session }) {
  return (
    <tr data-testid="session-row" data-session-id={s.session_id}>
      <td className="cell-session">
        <a href={href('sessions', s.session_id)} title={s.session_id} data-testid="session-link">
          <code>{shortId(s.session_id)}</code>
        </a>
        <span className="session-tool muted" data-testid="session-tool">
          {s.tools.join(', ') || 'tool not recognised'}
        </span>
      </td>
      <td className="truncate col-wide">{s.keys.length ? s.keys.map((k) => k.name ?? k.id).join(', ') : '—'}</td>
      <td className="cell-last" title={dateTime(s.last_at)}>
        {ago(s.last_at)}
      </td>
      <td className="num cell-requests" data-testid="session-requests">
        {int(s.requests)}
        <span className="phone-label"> {s.requests === 1 ? 'request' : 'requests'}</span>
        {s.errors > 0 && (
          <span className="session-errors" data-testid="session-errors">
            {' '}
            · {int(s.errors)} failed
          </span>
        )}
      </td>
      <td className="num col-wide">{compact(s.prompt_tokens + s.completion_tokens)}</td>
      <td className="num cell-cost" data-testid="session-cost">
        <SpendText costUsd={s.cost_usd} unpriced={s.unpriced} requests={s.requests} />
      </td>
      <td className="truncate col-wide" title={s.models.join(', ')}>
        {s.models.join(', ') || '—'}
      </td>
    </tr>
  )
}

/**
 * Sessions with requests in a range, newest activity first: the coding agents' own sessions (the
 * gateway recognises Claude Code's and Codex's) and any requests sharing a session id.
 */
export function SessionsScreen() {
  const route = useRoute()
  const qs = route.query.toString()
  const q = useMemo(() => new URLSearchParams(qs), [qs])
  const rangeId = (RANGES.some((r) => r.value === q.get('range')) ? q.get('range') : '24h') as PresetRangeId
  const sort = (SORTS.some((s) => s.value === q.get('sort')) ? q.get('sort') : 'last_at') as Sort
  const tool = q.get('tool') ?? ''
  const key = q.get('key') ?? ''
  const page = Math.max(0, Number(q.get('page')) || 0)
  // The range ends now, as of the last refresh: rounded up to the minute, it would otherwise keep
  // ending at the minute the screen opened in, and a refresh would never show what came after.
  const [now, setNow] = useState(() => Date.now())
  const range = useMemo(() => rangeOf(rangeId, now), [rangeId, now])
  const filter = { from: range.from, to: range.to, ...(tool && { source_tool: tool }), ...(key && { key_id: key }) }
  const list = useQuery(() => call('sessions.list', { filter, sort, limit: PAGE, offset: page * PAGE }), [JSON.stringify(filter), sort, page])
  const tools = useQuery(() => call('analytics.groupBy', { from: range.from, to: range.to, by: 'tool', limit: 50, filter: {} }), [range.from, range.to])
  const keys = useQuery(() => call('keys.list', {}), [])
  const go = (patch: Record<string, string | number | undefined>) => {
    const next: Record<string, string> = Object.fromEntries(q)
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined || v === '') delete next[k]
      else next[k] = String(v)
    }
    navigate(href('sessions', next))
  }
  const toolOptions = (tools.data ?? []).flatMap((g) => (g.value === null ? [] : [g.value]))
  if (tool && !toolOptions.includes(tool)) toolOptions.push(tool)
  const filtered = Boolean(tool || key)
  const total = list.data?.total ?? 0
  const first = page * PAGE

  return (
    <>
      <PageHeader
        title="Sessions"
        subtitle={
          <>
            What each coding-agent session cost. Claude Code and Codex sessions are recognised by themselves; other clients group requests with{' '}
            <code>X-Gw-Session-Id</code>.
          </>
        }
        actions={
          <>
            <Segmented<PresetRangeId>
              label="Time range"
              value={rangeId}
              onChange={(v) => go({ range: v === '24h' ? undefined : v, page: undefined })}
              options={RANGES}
              testId="sessions-range"
            />
            <button
              type="button"
              className="btn"
              onClick={() => {
                const next = Date.now()
                // A new end of the range asks again by itself; within the same minute, ask again.
                if (rangeOf(rangeId, next).to !== range.to) return setNow(next)
                list.reload()
                tools.reload()
              }}
              data-testid="sessions-refresh"
            >
              Refresh
            </button>
          </>
        }
      />
      <div className="toolbar sessions-toolbar" data-testid="sessions-filters">
        <Field label="Tool">
          <select value={tool} onChange={(e) => go({ tool: e.target.value, page: undefined })} data-testid="sessions-tool">
            <option value="">Every tool</option>
            {toolOptions.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Key">
          <select value={key} onChange={(e) => go({ key: e.target.value, page: undefined })} data-testid="sessions-key">
            <option value="">Every key</option>
            {(keys.data ?? []).map((k) => (
              <option key={k.id} value={k.id}>
                {k.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Order">
          <select
            value={sort}
            onChange={(e) => go({ sort: e.target.value === 'last_at' ? undefined : e.target.value, page: undefined })}
            data-testid="sessions-sort"
          >
            {SORTS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {list.error || !list.data ? (
        <Pending q={list} label="Loading sessions…" errorTestId="sessions-error" loadingTestId="sessions-loading" />
      ) : list.data.items.length === 0 ? (
        <Empty title={filtered ? 'No sessions match these filters' : 'No sessions in this range'} testId="sessions-empty">
          <p>
            Point Claude Code (<code>ANTHROPIC_BASE_URL</code>) or Codex (a <code>model_providers</code> entry) at the gateway and each run appears here with
            its cost. Any other client groups its requests into a session by sending the same <code>X-Gw-Session-Id</code> header (or <code>gw.session_id</code>
            ) with each.
          </p>
          {filtered && (
            <button type="button" className="btn" onClick={() => go({ tool: undefined, key: undefined, page: undefined })}>
              Clear filters
            </button>
          )}
        </Empty>
      ) : (
        <div className="card" aria-busy={list.loading}>
          <div className="table-wrap">
            <table className="table table-sessions" data-testid="sessions-table">
              <thead>
                <tr>
                  <th scope="col">Session</th>
                  <th scope="col" className="col-wide">
                    Key
                  </th>
                  <th scope="col">Last request</th>
                  <th scope="col" className="num">
                    Requests
                  </th>
                  <th scope="col" className="num col-wide">
                    Tokens
                  </th>
                  <th scope="col" className="num">
                    Cost
                  </th>
                  <th scope="col" className="col-wide">
                    Models
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.data.items.map((s) => (
                  <SessionRow key={s.session_id} s={s} />
                ))}
              </tbody>
            </table>
          </div>
          <div className="pager" data-testid="sessions-pager">
            <span>
              {int(first + 1)}–{int(first + list.data.items.length)} of {int(total)}
            </span>
            <button type="button" className="btn btn-small" disabled={page === 0} onClick={() => go({ page: page - 1 || undefined })}>
              ← Previous
            </button>
            <button type="button" className="btn btn-small" disabled={first + list.data.items.length >= total} onClick={() => go({ page: page + 1 })}>
              Next →
            </button>
          </div>
        </div>
      )}
    </>
  )
}
