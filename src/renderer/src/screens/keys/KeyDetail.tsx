import { useMemo, useState } from 'react'
import type { KeySummary } from '../../../../contract/keys'
import { call } from '../../api/client'
import { useQuery } from '../../lib/useQuery'
import { useSession } from '../../lib/session'
import { dateTime, ago, plural } from '../../lib/format'
import { spend } from '../../lib/spend'
import { href } from '../../lib/router'
import { fillSeries, rangeOf } from '../../lib/range'
import { Badge, Facts, PageHeader, Section } from '../../components/Page'
import { Pending, PendingPage } from '../../components/States'
import { emptyPoint, OverviewCharts } from '../../components/Charts'
import { RequestsTable } from '../requests/RequestsTable'
import { DefaultPresetForm, LimitsForm, PolicyForm, ResponseCacheForm } from './KeySettings'
import { BalancePanel } from './BalancePanel'
import { RevokeKeyDialog } from './RevokeKey'
import { StoredResponses } from './StoredResponses'

function Usage({ keyId }: { keyId: string }) {
  // The range ends now, as of the last refresh (as on the Sessions screen): memoised once, it kept
  // ending at the minute the page opened in, and what came after never showed.
  const [now, setNow] = useState(() => Date.now())
  const range = useMemo(() => rangeOf('7d', now), [now])
  const q = useQuery(() => call('analytics.overview', { from: range.from, to: range.to, bucket: range.bucket, filter: { key_id: keyId } }), [keyId, range.to])
  const refresh = () => {
    const next = Date.now()
    // A new end of the range asks again by itself; within the same minute, ask again.
    if (rangeOf('7d', next).to !== range.to) setNow(next)
    else q.reload()
  }
  const spent = q.data ? spend(q.data.totals.cost_usd, q.data.totals.unpriced_requests, q.data.totals.requests) : null
  return (
    <Section
      title="Usage, last 7 days"
      testId="key-usage"
      actions={
        <button type="button" className="btn btn-small" onClick={refresh} data-testid="key-usage-refresh">
          Refresh
        </button>
      }
    >
      {q.error || !q.data ? (
        <Pending q={q} />
      ) : q.data.totals.requests === 0 ? (
        <p className="muted" data-testid="key-usage-empty">
          No requests with this key in the last 7 days. Try it in the <a href={href('playground', { key: keyId })}>Playground</a>.
        </p>
      ) : (
        <>
          <p data-testid="key-usage-totals">
            {plural(q.data.totals.requests, 'request')} · {spent?.text}
            {spent?.note ? <span className="muted"> ({spent.note})</span> : null} · {plural(q.data.totals.errors, 'error')}
          </p>
          <OverviewCharts series={fillSeries(q.data.series, range, emptyPoint)} range={range} only={['requests', 'spend']} />
        </>
      )}
    </Section>
  )
}

function Recent({ keyId, keyName }: { keyId: string; keyName: string }) {
  const q = useQuery(() => call('requests.list', { filter: { key_id: keyId }, limit: 10, offset: 0, sort: 'created_at', order: 'desc' }), [keyId])
  return (
    <Section
      title="Recent requests"
      testId="key-requests"
      actions={
        <a className="btn btn-small" href={href('requests', { key_id: keyId })}>
          See all
        </a>
      }
    >
      {q.error || !q.data ? (
        <Pending q={q} />
      ) : q.data.items.length === 0 ? (
        <p className="muted">No requests yet.</p>
      ) : (
        <RequestsTable rows={q.data.items} keyName={() => keyName} testId="key-requests-table" />
      )}
    </Section>
  )
}

export function KeyDetail({ id }: { id: string }) {
  const { isAdmin } = useSession()
  const q = useQuery(() => call('keys.get', { id }), [id])
  const [revoking, setRevoking] = useState(false)
  const [version, setVersion] = useState(0)
  const back = { href: '#/keys', label: 'Keys' }
  if (q.error || !q.data) return <PendingPage title="Key" back={back} q={q} label="Loading key…" errorTestId="key-error" />
  const k = q.data.key
  const onSaved = (nk: KeySummary) => {
    q.setData({ ...q.data!, key: nk })
    // Ledger entries change with top-ups: fetch them again.
    q.reload()
    setVersion((v) => v + 1)
  }
  const revoked = !!k.revoked_at
  return (
    <div data-testid="key-detail" data-key-id={k.id}>
      <PageHeader
        title={k.name}
        back={back}
        subtitle={
          <>
            <code>{k.masked}</code>{' '}
            {revoked ? (
              <Badge kind="danger" testId="key-detail-status">
                Revoked {dateTime(k.revoked_at)}
              </Badge>
            ) : (
              <Badge kind="ok" testId="key-detail-status">
                Active
              </Badge>
            )}
          </>
        }
        actions={
          <>
            <a className="btn" href={href('playground', { key: k.id })}>
              Try in Playground
            </a>
            {!revoked && (
              <button type="button" className="btn btn-danger" onClick={() => setRevoking(true)} data-testid="key-detail-revoke">
                Revoke
              </button>
            )}
          </>
        }
      />
      {revoked && (
        <div className="callout callout-danger" role="note">
          This key is revoked: its requests are refused with 401. Settings can no longer change.
        </div>
      )}
      <Section title="Details">
        <Facts
          items={[
            ['Owner', k.owner?.username ?? '—'],
            ['Created', dateTime(k.created_at)],
            ['Last used', ago(k.last_used_at)],
            ['Id', <code key="id">{k.id}</code>],
          ]}
        />
      </Section>
      <div className="grid-2">
        <DefaultPresetForm key={`p${version}`} k={k} onSaved={onSaved} disabled={revoked} />
        <ResponseCacheForm key={`c${version}`} k={k} onSaved={onSaved} disabled={revoked} />
        <LimitsForm key={`l${version}`} k={k} spent={q.data.spent} onSaved={onSaved} disabled={revoked || !isAdmin} adminOnly={!isAdmin} />
      </div>
      <BalancePanel k={k} ledger={q.data.ledger} isAdmin={isAdmin} onSaved={onSaved} />
      <PolicyForm key={`y${version}`} k={k} onSaved={onSaved} disabled={revoked || !isAdmin} adminOnly={!isAdmin} />
      <StoredResponses k={k} count={q.data.stored_responses} onDeleted={q.reload} />
      <Usage keyId={k.id} />
      <Recent keyId={k.id} keyName={k.name} />
      {revoking && <RevokeKeyDialog keyRow={k} onClose={() => setRevoking(false)} onRevoked={(nk) => onSaved(nk)} />}
    </div>
  )
}
