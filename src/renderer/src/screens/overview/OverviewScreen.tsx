import { useMemo, useState } from 'react'
import { call } from '../../api/client'
import { useQuery } from '../../lib/useQuery'
import { useSession } from '../../lib/session'
import { fillSeries, RANGES, rangeOf, type RangeId } from '../../lib/range'
import { href } from '../../lib/router'
import { PageHeader } from '../../components/Page'
import { Segmented } from '../../components/Segmented'
import { ErrorState, Pending } from '../../components/States'
import { OverviewCharts } from '../../components/Charts'
import { TotalsRow } from './Totals'
import { TopList } from './TopList'
import { Quickstart } from './Quickstart'

export function OverviewScreen() {
  const { isAdmin } = useSession()
  const [rangeId, setRangeId] = useState<RangeId>('24h')
  const [tick, setTick] = useState(0)
  const range = useMemo(() => rangeOf(rangeId), [rangeId, tick])
  const overview = useQuery(() => call('analytics.overview', { from: range.from, to: range.to, bucket: range.bucket, filter: {} }), [range])
  const status = useQuery(() => call('gateway.status', {}), [])
  const keys = useQuery(() => call('keys.list', {}), [])
  const keyName = (id: string) => keys.data?.find((k) => k.id === id)?.name ?? id
  const firstTime = status.data ? status.data.requests === 0 : false
  const series = overview.data
    ? fillSeries(overview.data.series, range, (t) => ({ t, requests: 0, errors: 0, cost_usd: 0, prompt_tokens: 0, completion_tokens: 0, p50_ms: null, p95_ms: null }))
    : []

  return (
    <>
      <PageHeader
        title="Overview"
        subtitle="Spend, traffic and latency across every key you can see."
        actions={
          <>
            <Segmented<RangeId> label="Time range" value={rangeId} onChange={setRangeId} options={RANGES} testId="range" />
            <button type="button" className="btn" onClick={() => setTick((t) => t + 1)} data-testid="overview-refresh">
              Refresh
            </button>
          </>
        }
      />
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
                Charts appear once requests flow through the gateway. Send one from the <a href="#/playground">Playground</a> or with the snippet{firstTime ? ' above' : ' below'}, or pick a longer range.
              </p>
            </div>
          ) : (
            <OverviewCharts series={series} range={range} />
          )}
        </>
      )}
      <div className="grid-2">
        <TopList title="Top models" by="model" range={range} link={(v) => href('requests', { model: v, from: range.from })} />
        <TopList title="Top keys" by="key" range={range} label={keyName} link={(v) => href('keys', v)} />
        <TopList title="Top users" by="user" range={range} link={(v) => href('requests', { user_id: v, from: range.from })} />
        <TopList title="Top tags" by="tag" range={range} link={(v) => href('requests', { tag: v, from: range.from })} />
        <TopList title="Top tools" by="tool" range={range} link={(v) => href('sessions', { tool: v, range: rangeId === '24h' ? undefined : rangeId })} />
      </div>
      {status.data && !firstTime && <Quickstart status={status.data} isAdmin={isAdmin} firstTime={false} />}
    </>
  )
}
