import { Fragment } from 'react'
import type { Output } from '../../../../contract'
import { call } from '../../api/client'
import { useQuery } from '../../lib/useQuery'
import { href } from '../../lib/router'
import { compact, dateTime, int, ms } from '../../lib/format'
import { Badge, Facts, PageHeader, Section } from '../../components/Page'
import { PendingPage } from '../../components/States'
import { CostCell, SoftCapBadge, StatusBadge } from '../requests/RequestsTable'
import { SpendText } from './SpendText'
import { shortId } from './SessionsScreen'
import { CacheCell, CachePanel, type CacheTurn } from './CachePanel'
import { MoveNote } from './MoveNote'

type Found = Output<'sessions.get'>
type Step = Found['requests'][number]

/** How long the session ran, first request to last: "4 min", "2 h 5 min". */
function span(fromMs: number, toMs: number): string {
  const min = Math.round((toMs - fromMs) / 60_000)
  if (min < 1) return 'under a minute'
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h ${min % 60} min`
}

const SOFT_CAP_LIMIT = { daily: "the key's daily", monthly: "the key's monthly", session: "this session's" } as const

/** Where the key's soft cap began sending the session's requests to its cheaper model: before the first such request after others. */
function SwitchRow({ r }: { r: Step }) {
  return (
    <tr className="timeline-marker" data-testid="timeline-soft-cap">
      <td colSpan={9}>
        <span aria-hidden="true">↓ </span>
        Soft cap: {SOFT_CAP_LIMIT[r.soft_cap!]} spend limit was near; from here requests went to <code>{r.upstream_model ?? '?'}</code>
      </td>
    </tr>
  )
}

/** Where routing moved the session to another provider or model: before the request that moved. */
function MoveRow({ m }: { m: NonNullable<CacheTurn['moved']> }) {
  return (
    <tr className="timeline-marker" data-testid="timeline-moved">
      <td colSpan={9}>
        <span aria-hidden="true">↪ </span>
        <MoveNote m={m} />
      </td>
    </tr>
  )
}

/** One request of the timeline: what it was, what it cost, and the session's cost so far drawn as a bar of the total. */
function StepRow({ r, n, total, cache }: { r: Step; n: number; total: number; cache: CacheTurn | undefined }) {
  const share = total > 0 ? Math.min(100, (r.cumulative_usd / total) * 100) : 0
  return (
    <tr data-testid="timeline-row" data-request-id={r.id}>
      <td className="num cell-n">{n}</td>
      <td className="cell-time">
        <a href={href('requests', r.id)} data-testid="timeline-link">
          {dateTime(r.created_at)}
        </a>
      </td>
      <td className="cell-status">
        <StatusBadge status={r.status} outcome={r.outcome} />
      </td>
      <td className="truncate cell-model" title={r.upstream_model ?? undefined}>
        {r.model ?? '—'}
        {r.endpoint === 'messages.count_tokens' && <span className="muted"> · token count</span>}
        {r.soft_cap && (
          <div className="soft-cap-line">
            <SoftCapBadge limit={r.soft_cap} served={r.upstream_model} />
          </div>
        )}
      </td>
      <td className="num col-wide">
        {r.prompt_tokens === null && r.completion_tokens === null ? '—' : compact((r.prompt_tokens ?? 0) + (r.completion_tokens ?? 0))}
      </td>
      <td className="num col-wide">{ms(r.latency_ms)}</td>
      <td className="num col-wide">
        <CacheCell t={cache} />
      </td>
      <td className="num cell-cost" data-testid="timeline-cost">
        <CostCell r={r} />
      </td>
      <td className="num cell-so-far">
        <span className="phone-label muted">so far </span>
        <SpendText costUsd={r.cumulative_usd} unpriced={r.cumulative_unpriced} requests={n} testId="timeline-so-far" />
        <span className="so-far-bar" aria-hidden="true">
          <span style={{ width: `${share}%` }} />
        </span>
      </td>
    </tr>
  )
}

/** One session: its totals, then its requests in order with the cost accumulating. */
export function SessionDetail({ id }: { id: string }) {
  const q = useQuery(() => call('sessions.get', { id, limit: 1000 }), [id])
  const back = { href: '#/sessions', label: 'Sessions' }
  if (q.error || !q.data)
    return <PendingPage title="Session" back={back} q={q} label="Loading the session…" errorTestId="session-error" loadingTestId="session-loading" />
  const { session: s, requests, cache } = q.data
  const turns = new Map(cache.turns.map((t) => [t.request_id, t]))
  return (
    <>
      <PageHeader
        title={`Session ${shortId(s.session_id)}`}
        subtitle={s.tools.length ? s.tools.join(', ') : 'Tool not recognised'}
        back={back}
        actions={
          <a className="btn" href={href('requests', { session_id: s.session_id })} data-testid="session-requests-link">
            Open in Requests
          </a>
        }
      />
      <Section title="Totals" testId="session-totals">
        <Facts
          items={[
            ['Cost', <SpendText key="c" costUsd={s.cost_usd} unpriced={s.unpriced} requests={s.requests} testId="session-total-cost" />],
            [
              'Requests',
              <span key="r" data-testid="session-total-requests">
                {int(s.requests)}
                {s.errors > 0 && <span className="muted"> · {int(s.errors)} failed</span>}
              </span>,
            ],
            ['Tokens', `${int(s.prompt_tokens)} in · ${int(s.completion_tokens)} out`],
            ['Models', s.models.join(', ') || '—'],
            ['Key', s.keys.length ? s.keys.map((k) => k.name ?? k.id).join(', ') : '—'],
            ['Started', dateTime(s.first_at)],
            ['Ran for', span(s.first_at, s.last_at)],
            [
              'Session id',
              <span key="i" className="session-id">
                <code data-testid="session-id">{s.session_id}</code>{' '}
                <Badge
                  kind={s.derived ? 'accent' : 'muted'}
                  testId="session-source"
                  title={s.derived ? 'The gateway read it from what the tool sends' : 'Set by the caller (gw.session_id or X-Gw-Session-Id)'}
                >
                  {s.derived ? 'from the tool' : 'set by the caller'}
                </Badge>
              </span>,
            ],
          ]}
        />
      </Section>
      <CachePanel cache={cache} />
      <Section
        title="Timeline"
        testId="session-timeline"
        description="Every request of the session in order, with what the session had cost up to and including it."
      >
        <div className="table-wrap">
          <table className="table table-timeline" data-testid="timeline-table">
            <thead>
              <tr>
                <th scope="col" className="num">
                  #
                </th>
                <th scope="col">Time</th>
                <th scope="col">Status</th>
                <th scope="col">Model</th>
                <th scope="col" className="num col-wide">
                  Tokens
                </th>
                <th scope="col" className="num col-wide">
                  Latency
                </th>
                <th scope="col" className="num col-wide">
                  Cache
                </th>
                <th scope="col" className="num">
                  Cost
                </th>
                <th scope="col" className="num">
                  So far
                </th>
              </tr>
            </thead>
            <tbody>
              {requests.map((r, i) => (
                <Fragment key={r.id}>
                  {r.soft_cap && !requests[i - 1]?.soft_cap && <SwitchRow r={r} />}
                  {turns.get(r.id)?.moved && <MoveRow m={turns.get(r.id)!.moved!} />}
                  <StepRow r={r} n={i + 1} total={s.cost_usd} cache={turns.get(r.id)} />
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
        {requests.length < s.requests && (
          <p className="muted" data-testid="timeline-more">
            The first {int(requests.length)} of {int(s.requests)} requests; <a href={href('requests', { session_id: s.session_id })}>all of them in Requests</a>
            .
          </p>
        )}
      </Section>
    </>
  )
}
