import { useEffect, useMemo, useState, type FormEvent } from 'react'
import { call } from '../../api/client'
import { toApiError } from '../../api/errors'
import { useQuery } from '../../lib/useQuery'
import { href, navigate, useRoute } from '../../lib/router'
import { int } from '../../lib/format'
import { PageHeader } from '../../components/Page'
import { Empty, Pending } from '../../components/States'
import { RequestsTable, type SortKey } from './RequestsTable'
import { FilterForm } from './FilterForm'
import { FILTER_KEYS, stateFromQuery, type ListState } from './filters'

const INSTANCES_SINCE_MS = 30 * 86_400_000

const LABELS: Record<string, string> = {
  key_id: 'key',
  user_id: 'user',
  trace_id: 'trace',
  session_id: 'session',
  instance: 'gateway',
  dim: 'dimensions',
  since: 'time',
  from: 'from',
  to: 'to',
}

export function RequestsScreen() {
  const route = useRoute()
  const qs = route.query.toString()
  const state = useMemo(() => stateFromQuery(new URLSearchParams(qs)), [qs])
  const keys = useQuery(() => call('keys.list', {}), [])
  const presets = useQuery(() => call('presets.list', {}), [])
  // The gateways to filter by: those that served requests in the range shown, or in the last 30
  // days when it has none (grouped from the analytics index, as the Sessions screen's tools are).
  const { from, to } = state.filter
  const instances = useQuery(() => {
    const now = Date.now()
    return call('analytics.groupBy', { from: from ?? now - INSTANCES_SINCE_MS, to: to ?? now + 60_000, by: 'instance', limit: 100, filter: {} })
  }, [from, to])
  const list = useQuery(
    () => call('requests.list', { filter: state.filter, sort: state.sort, order: state.order, limit: state.size, offset: state.page * state.size }),
    [JSON.stringify(state)],
  )
  const live = state.page === 0 && state.sort === 'created_at' && state.order === 'desc'
  const [tail, setTail] = useState(false)
  const { reload } = list
  // Live tail: the newest page again every 2 s while on, as long as it is the newest page.
  useEffect(() => {
    if (!tail || !live) return
    const t = setInterval(reload, 2000)
    return () => clearInterval(t)
  }, [tail, live, reload])
  const keyName = (id: string) => keys.data?.find((k) => k.id === id)?.name ?? id
  const go = (patch: Record<string, string | number | undefined>) => {
    const q: Record<string, string> = Object.fromEntries(new URLSearchParams(qs))
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined || v === '') delete q[k]
      else q[k] = String(v)
    }
    navigate(href('requests', q))
  }
  const onSort = (col: SortKey) => go({ sort: col, order: state.sort === col && state.order === 'desc' ? 'asc' : 'desc', page: undefined })
  const applied = Object.entries(Object.fromEntries(new URLSearchParams(qs))).filter(
    ([k]) => (FILTER_KEYS as readonly string[]).includes(k) || ['dim', 'since', 'from', 'to'].includes(k),
  )
  const total = list.data?.total ?? 0
  const first = state.page * state.size
  const display = (k: string, v: string) => (k === 'key_id' ? keyName(v) : k === 'from' || k === 'to' ? new Date(Number(v)).toLocaleString() : v)

  return (
    <>
      <PageHeader
        title="Requests"
        subtitle="Every request that passed authentication, whatever happened to it."
        actions={
          <>
            <FindRequest />
            <label className="toggle" title={live ? 'Show new requests as they arrive' : 'Live view follows the newest page, newest first'}>
              <input type="checkbox" checked={tail && live} disabled={!live} onChange={(e) => setTail(e.target.checked)} data-testid="requests-live" /> Live
            </label>
            <ExportCsv input={{ filter: state.filter, sort: state.sort, order: state.order }} disabled={!list.data?.total} />
          </>
        }
      />
      <FilterForm
        key={qs}
        query={route.query}
        keys={keys.data ?? []}
        presets={(presets.data ?? []).map((p) => p.name)}
        instances={(instances.data ?? []).flatMap((g) => (g.value === null ? [] : [g.value]))}
        active={applied.length}
        onApply={(q) =>
          navigate(
            href('requests', { ...q, sort: state.sort === 'created_at' ? undefined : state.sort, order: state.order === 'desc' ? undefined : state.order }),
          )
        }
      />
      {applied.length > 0 && (
        <div className="chips" data-testid="active-filters" aria-label="Active filters">
          {applied.map(([k, v]) => (
            <span className="chip" key={k} data-testid={`chip-${k}`}>
              {LABELS[k] ?? k}: <strong>{display(k, v)}</strong>
              <button type="button" className="btn-icon" aria-label={`Remove filter ${LABELS[k] ?? k}`} onClick={() => go({ [k]: undefined, page: undefined })}>
                ×
              </button>
            </span>
          ))}
        </div>
      )}
      {list.error || !list.data ? (
        <Pending q={list} label="Loading requests…" errorTestId="requests-error" loadingTestId="requests-loading" />
      ) : list.data.items.length === 0 ? (
        applied.length ? (
          <Empty title="No requests match these filters" testId="requests-empty">
            <p>Widen the time range or remove a filter.</p>
            <button type="button" className="btn" onClick={() => navigate('#/requests')}>
              Clear filters
            </button>
          </Empty>
        ) : (
          <Empty title="No requests yet" testId="requests-empty">
            <p>
              Requests appear here as soon as a client calls the gateway with one of your keys. Try the <a href="#/playground">Playground</a>, or copy a snippet
              from the <a href="#/overview">Overview</a>.
            </p>
          </Empty>
        )
      ) : (
        <div className="card" aria-busy={list.loading}>
          <RequestsTable rows={list.data.items} keyName={keyName} sort={state.sort} order={state.order} onSort={onSort} />
          <div className="pager" data-testid="pager">
            <span data-testid="pager-range">
              {int(first + 1)}–{int(first + list.data.items.length)} of {int(total)}
            </span>
            <label className="pager-size">
              Rows per page{' '}
              <select value={state.size} onChange={(e) => go({ size: e.target.value, page: undefined })} data-testid="pager-size">
                {[25, 50, 100].map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
            <button
              type="button"
              className="btn btn-small"
              disabled={state.page === 0}
              onClick={() => go({ page: state.page - 1 || undefined })}
              data-testid="pager-prev"
            >
              ← Previous
            </button>
            <button
              type="button"
              className="btn btn-small"
              disabled={first + list.data.items.length >= total}
              onClick={() => go({ page: state.page + 1 })}
              data-testid="pager-next"
            >
              Next →
            </button>
          </div>
        </div>
      )}
    </>
  )
}

/** Jumps to a request by its id (the `x-request-id` a client got back). */
function FindRequest() {
  const [id, setId] = useState('')
  const [error, setError] = useState<string | null>(null)
  const find = async (e: FormEvent) => {
    e.preventDefault()
    const wanted = id.trim()
    if (!wanted) return
    try {
      await call('requests.get', { id: wanted })
      navigate(href('requests', wanted))
    } catch (err) {
      const ae = toApiError(err)
      setError(ae.status === 404 ? `No request ${wanted} that you can see.` : ae.message)
    }
  }
  return (
    <form className="find-request" onSubmit={find} role="search">
      <input
        type="search"
        aria-label="Find a request by id"
        placeholder="Request id"
        value={id}
        onChange={(e) => {
          setId(e.target.value)
          setError(null)
        }}
        data-testid="find-request"
      />
      <button type="submit" className="btn btn-small" data-testid="find-request-go">
        Find
      </button>
      {error && (
        <p className="field-error" role="alert" data-testid="find-request-error">
          {error}
        </p>
      )}
    </form>
  )
}

/** Downloads every request the filters match (in the list's order) as a CSV file. */
function ExportCsv(props: { input: { filter: ListState['filter']; sort: ListState['sort']; order: ListState['order'] }; disabled: boolean }) {
  const [busy, setBusy] = useState(false)
  const [note, setNote] = useState<string | null>(null)
  const run = async () => {
    setBusy(true)
    setNote(null)
    try {
      const out = await call('requests.export', props.input)
      const url = URL.createObjectURL(new Blob([out.csv], { type: 'text/csv;charset=utf-8' }))
      const a = document.createElement('a')
      a.href = url
      a.download = `gw-requests-${new Date().toISOString().slice(0, 19).replaceAll(':', '')}.csv`
      a.click()
      setTimeout(() => URL.revokeObjectURL(url), 10_000)
      setNote(out.truncated ? `The first ${int(out.rows)} rows were exported; narrow the filters for the rest.` : `${int(out.rows)} rows exported.`)
    } catch (err) {
      setNote(`Export failed: ${toApiError(err).message}`)
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <button type="button" className="btn btn-small" onClick={run} disabled={busy || props.disabled} data-testid="requests-export">
        {busy ? 'Exporting…' : 'Export CSV'}
      </button>
      {note && (
        <span className="muted" role="status" data-testid="requests-export-note">
          {note}
        </span>
      )}
    </>
  )
}
