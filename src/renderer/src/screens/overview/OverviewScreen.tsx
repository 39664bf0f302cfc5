import { useState, type FormEvent } from 'react'
import { call } from '../../api/client'
import { useQuery } from '../../lib/useQuery'
import { useSession } from '../../lib/session'
import { customRange, dayOf, fillSeries, RANGES, rangeOf, type Range, type RangeId } from '../../lib/range'
import { href } from '../../lib/router'
import { PageHeader } from '../../components/Page'
import { Segmented } from '../../components/Segmented'
import { ErrorState, Pending } from '../../components/States'
import { emptyPoint, OverviewCharts } from '../../components/Charts'
import { TotalsRow } from './Totals'
import { CacheTotals } from './CacheTotals'
import { TopList } from './TopList'
import { Quickstart } from './Quickstart'
import { Breakdown } from './Breakdown'

export function OverviewScreen() {
  const { isAdmin } = useSession()
  // The range's end is "now" when it was chosen or refreshed.
  const [range, setRange] = useState<Range>(() => rangeOf('24h'))
  const [custom, setCustom] = useState(false)
  const choose = (id: RangeId) => {
    setCustom(id === 'custom')
    if (id !== 'custom') setRange(rangeOf(id))
  }
  const overview = useQuery(() => call('analytics.overview', { from: range.from, to: range.to, bucket: range.bucket, filter: {} }), [range])
  const status = useQuery(() => call('gateway.status', {}), [])
  const keys = useQuery(() => call('keys.list', {}), [])
  const keyName = (id: string) => keys.data?.find((k) => k.id === id)?.name ?? id
  const firstTime = status.data ? status.data.requests === 0 : false
  const series = overview.data ? fillSeries(overview.data.series, range, emptyPoint) : []

  return (
    <>
      <PageHeader
        title="Overview"
        subtitle="Spend, traffic and latency across every key you can see."
        actions={
          <>
            <Segmented<RangeId>
              label="Time range"
              value={custom ? 'custom' : range.id}
              onChange={choose}
              options={[...RANGES, { value: 'custom', label: 'Custom' }]}
              testId="range"
            />
            <button
              type="button"
              className="btn"
              onClick={() => setRange(range.id === 'custom' ? { ...range } : rangeOf(range.id))}
              data-testid="overview-refresh"
            >
              Refresh
            </button>
          </>
        }
      />
      {custom && <CustomRange initial={range} onApply={setRange} />}
      {status.data && firstTime && <Quickstart status={status.data} isAdmin={isAdmin} firstTime />}
      {status.error && <ErrorState error={status.error} onRetry={status.reload} testId="status-error" />}
      {overview.error || !overview.data ? (
        <Pending q={overview} label="Loading totals…" errorTestId="overview-error" loadingTestId="overview-loading" />
      ) : (
        <>
          <TotalsRow totals={overview.data.totals} />
          {overview.data.totals.requests === 0 ? (
            <div className="card state state-empty" data-testid="overview-empty">
              <p className="state-title">No requests in this range</p>
              <p className="state-body">
                Charts appear once requests flow through the gateway. Send one from the <a href="#/playground">Playground</a> or with the snippet
                {firstTime ? ' above' : ' below'}, or pick a longer range.
              </p>
            </div>
          ) : (
            <>
              <CacheTotals cache={overview.data.cache} />
              <OverviewCharts series={series} range={range} />
            </>
          )}
        </>
      )}
      <div className="grid-2">
        <TopList title="Top models" column="Model" by="model" range={range} link={(v) => href('requests', { model: v, from: range.from })} />
        <TopList title="Top keys" column="Key" by="key" range={range} label={keyName} link={(v) => href('keys', v)} />
        <TopList title="Top users" column="User" by="user" range={range} link={(v) => href('requests', { user_id: v, from: range.from })} />
        <TopList title="Top tags" column="Tag" by="tag" range={range} link={(v) => href('requests', { tag: v, from: range.from })} />
        <TopList
          title="Top tools"
          column="Tool"
          by="tool"
          range={range}
          link={(v) => href('sessions', { tool: v, range: range.id === '24h' || range.id === 'custom' ? undefined : range.id })}
        />
      </div>
      <Breakdown range={range} keyName={keyName} />
      {status.data && !firstTime && <Quickstart status={status.data} isAdmin={isAdmin} firstTime={false} />}
    </>
  )
}

/** From and to days for a custom range, applied together. */
function CustomRange(props: { initial: Range; onApply: (r: Range) => void }) {
  const [from, setFrom] = useState(() => dayOf(props.initial.from))
  const [to, setTo] = useState(() => dayOf(props.initial.to - 1))
  const [error, setError] = useState<string | null>(null)
  const apply = (e: FormEvent) => {
    e.preventDefault()
    const r = customRange(from, to)
    if (typeof r === 'string') setError(r)
    else {
      setError(null)
      props.onApply(r)
    }
  }
  return (
    <form className="card custom-range" onSubmit={apply} data-testid="custom-range">
      <label>
        From <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} required data-testid="custom-from" />
      </label>
      <label>
        To <input type="date" value={to} onChange={(e) => setTo(e.target.value)} required data-testid="custom-to" />
      </label>
      <button type="submit" className="btn btn-primary btn-small" data-testid="custom-apply">
        Show
      </button>
      {error && (
        <p className="field-error" role="alert" data-testid="custom-error">
          {error}
        </p>
      )}
    </form>
  )
}
