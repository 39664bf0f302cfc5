import type { Output } from '../../../../contract'
import { compact, ms, pct, plural } from '../../lib/format'
import { spend } from '../../lib/spend'

type Totals = Output<'analytics.overview'>['totals']

export function Stat({ label, value, hint, testId }: { label: string; value: string; hint?: string; testId: string }) {
  return (
    <div className="stat" data-testid={testId}>
      <div className="stat-label">{label}</div>
      <div className="stat-value" data-testid={`${testId}-value`}>
        {value}
      </div>
      {hint && <div className="stat-hint">{hint}</div>}
    </div>
  )
}

export function TotalsRow({ totals }: { totals: Totals }) {
  const tokens = totals.prompt_tokens + totals.completion_tokens
  const spent = spend(totals.cost_usd, totals.unpriced_requests, totals.requests)
  return (
    <div className="stats" data-testid="totals">
      <Stat label="Spend" value={spent.text} hint={spent.note ?? undefined} testId="total-spend" />
      <Stat label="Requests" value={new Intl.NumberFormat('en-US').format(totals.requests)} hint={plural(totals.errors, 'error')} testId="total-requests" />
      <Stat
        label="Tokens"
        value={compact(tokens)}
        hint={`${compact(totals.prompt_tokens)} in · ${compact(totals.completion_tokens)} out`}
        testId="total-tokens"
      />
      {/* No requests, no rate: "0.0%" would claim a clean record that does not exist. */}
      <Stat label="Error rate" value={totals.requests === 0 ? '—' : pct(totals.error_rate)} testId="total-error-rate" />
      <Stat
        label="Latency (median)"
        value={ms(totals.p50_ms)}
        hint={totals.p50_ms === null ? undefined : `p95 ${ms(totals.p95_ms)} · p99 ${ms(totals.p99_ms)}`}
        testId="total-latency"
      />
    </div>
  )
}
