import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import type { Output } from '../../../contract'
import { compact, ms, usd, usdAxis } from '../lib/format'
import { tickLabel, type Range } from '../lib/range'

export type SeriesPoint = Output<'analytics.overview'>['series'][number]

/** A bucket without requests: zeros, and no latency to draw. */
export const emptyPoint = (t: number): SeriesPoint => ({
  t,
  requests: 0,
  errors: 0,
  cost_usd: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  p50_ms: null,
  p95_ms: null,
})

const axis = { stroke: 'var(--muted)', fontSize: 12, tickLine: false }
// One width for every chart's value axis, so the charts' time axes line up bucket for bucket.
const Y_WIDTH = 72
// Hovering one chart shows the same bucket in all of them.
const SYNC = 'overview'
const tooltipStyle = { background: 'var(--surface)', border: '1px solid var(--border)', borderRadius: 6, color: 'var(--text)' }

function Chart(props: { title: string; children: React.ReactElement; testId: string; summary: string }) {
  return (
    <figure className="chart" data-testid={props.testId}>
      <figcaption>{props.title}</figcaption>
      <div className="chart-box" role="img" aria-label={`${props.title}: ${props.summary}`}>
        <ResponsiveContainer width="100%" height={200} minWidth={0} initialDimension={{ width: 400, height: 200 }}>
          {props.children}
        </ResponsiveContainer>
      </div>
    </figure>
  )
}

/** Requests, spend, tokens and latency of one range, one small chart each, on one time axis. */
export function OverviewCharts({ series, range, only }: { series: SeriesPoint[]; range: Range; only?: Array<'requests' | 'spend' | 'tokens' | 'latency'> }) {
  const spanDays = (range.to - range.from) / 86_400_000
  const data = series.map((p) => ({ ...p, ok: p.requests - p.errors, label: tickLabel(p.t, range.bucket, spanDays) }))
  const x = <XAxis dataKey="label" {...axis} minTickGap={24} />
  const grid = <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" vertical={false} />
  const tip = (fmt: (v: number) => string) => (
    <Tooltip contentStyle={tooltipStyle} labelStyle={{ color: 'var(--text)' }} formatter={(v) => fmt(Number(v))} cursor={{ fill: 'var(--surface-2)' }} />
  )
  const sum = (k: keyof SeriesPoint) => series.reduce((s, p) => s + (Number(p[k]) || 0), 0)
  const show = (c: 'requests' | 'spend' | 'tokens' | 'latency') => !only || only.includes(c)
  return (
    <div className="charts">
      {show('requests') && (
        <Chart title="Requests" testId="chart-requests" summary={`${sum('requests')} requests, ${sum('errors')} errors`}>
          <BarChart data={data} syncId={SYNC}>
            {grid}
            {x}
            <YAxis {...axis} width={Y_WIDTH} allowDecimals={false} tickFormatter={compact} />
            {tip((v) => String(v))}
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Bar dataKey="ok" name="Succeeded" stackId="r" fill="var(--chart-1)" isAnimationActive={false} />
            <Bar dataKey="errors" name="Errors" stackId="r" fill="var(--chart-err)" isAnimationActive={false} />
          </BarChart>
        </Chart>
      )}
      {show('spend') && (
        <Chart title="Spend (USD)" testId="chart-spend" summary={`${usd(sum('cost_usd'))} in total`}>
          <BarChart data={data} syncId={SYNC}>
            {grid}
            {x}
            <YAxis {...axis} width={Y_WIDTH} tickFormatter={(v) => usdAxis(Number(v))} />
            {tip(usd)}
            <Bar dataKey="cost_usd" name="Spend" fill="var(--chart-2)" isAnimationActive={false} />
          </BarChart>
        </Chart>
      )}
      {show('tokens') && (
        <Chart title="Tokens" testId="chart-tokens" summary={`${sum('prompt_tokens')} prompt and ${sum('completion_tokens')} completion tokens`}>
          <BarChart data={data} syncId={SYNC}>
            {grid}
            {x}
            <YAxis {...axis} width={Y_WIDTH} tickFormatter={compact} />
            {tip((v) => compact(v))}
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Bar dataKey="prompt_tokens" name="Prompt" stackId="t" fill="var(--chart-1)" isAnimationActive={false} />
            <Bar dataKey="completion_tokens" name="Completion" stackId="t" fill="var(--chart-3)" isAnimationActive={false} />
          </BarChart>
        </Chart>
      )}
      {show('latency') && (
        <Chart title="Latency" testId="chart-latency" summary="p50 and p95 per bucket">
          <LineChart data={data} syncId={SYNC}>
            {grid}
            {x}
            <YAxis {...axis} width={Y_WIDTH} tickFormatter={(v) => ms(Number(v))} />
            {tip(ms)}
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Line
              type="monotone"
              dataKey="p50_ms"
              name="p50"
              stroke="var(--chart-1)"
              dot={{ r: 2.5, fill: 'var(--chart-1)' }}
              connectNulls
              isAnimationActive={false}
            />
            <Line
              type="monotone"
              dataKey="p95_ms"
              name="p95"
              stroke="var(--chart-3)"
              dot={{ r: 2.5, fill: 'var(--chart-3)' }}
              connectNulls
              isAnimationActive={false}
            />
          </LineChart>
        </Chart>
      )}
    </div>
  )
}
