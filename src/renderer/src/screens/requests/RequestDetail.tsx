import type { ReactNode } from 'react'
import { call } from '../../api/client'
import { useQuery } from '../../lib/useQuery'
import { useSession } from '../../lib/session'
import { dateTime, int, ms, usd, outputSpeed } from '../../lib/format'
import { href } from '../../lib/router'
import { Badge, Facts, PageHeader, Section } from '../../components/Page'
import { PendingPage } from '../../components/States'
import { CodeBlock, CopyButton } from '../../components/Copy'
import { StatusBadge, noCostReason } from './RequestsTable'
import { TableHead } from '../../components/Table'
import { RequestCache } from './RequestCache'
import { MoveNote, type Move } from '../sessions/MoveNote'

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {})
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
const str = (v: unknown): string | null => (v === null || v === undefined || v === '' ? null : String(v))
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null)
const dash = (v: ReactNode) => v ?? '—'

/** The record's use of the response cache: none, a miss whose answer was kept, or a hit on an earlier request's answer. */
function CacheNote({ note }: { note: Obj }) {
  if (note.hit === undefined) return <span data-testid="detail-response-cache">—</span>
  if (!note.hit) return <span data-testid="detail-response-cache">miss: answered by the provider</span>
  const of = String(note.request_id)
  return (
    <span data-testid="detail-response-cache">
      hit: the answer of <a href={href('requests', of)}>{of}</a>, {usd(num(note.saved_usd))} saved
    </span>
  )
}

function FilterLink({ param, value, children, testId }: { param: string; value: string; children?: ReactNode; testId?: string }) {
  return (
    <a href={href('requests', { [param]: value })} data-testid={testId}>
      {children ?? value}
    </a>
  )
}

function Attribution({ record }: { record: Obj }) {
  const a = obj(record.attribution)
  const tags = arr(a.tags).map(String)
  const extra = Object.entries(obj(a.extra))
  const user = str(a.user_id)
  const trace = str(a.trace_id)
  const session = str(a.session_id)
  const tool = str(record.source_tool)
  return (
    <Section
      title="Attribution"
      testId="detail-attribution"
      description="Who and what the caller said this request was for (the gw envelope or X-Gw-* headers), and the tool that sent it, as its headers say."
    >
      <Facts
        items={[
          ['User id', user ? <FilterLink param="user_id" value={user} testId="detail-user-link" /> : '—'],
          [
            'Trace',
            trace ? (
              <>
                <code>{trace}</code> ·{' '}
                <FilterLink param="trace_id" value={trace} testId="follow-trace">
                  Follow this trace
                </FilterLink>
              </>
            ) : (
              '—'
            ),
          ],
          [
            'Session',
            session ? (
              <>
                <code>{session}</code>
                {a.session_derived === true && <span className="muted"> (from the tool)</span>} ·{' '}
                <FilterLink param="session_id" value={session} testId="follow-session">
                  Follow this session
                </FilterLink>{' '}
                ·{' '}
                <a href={href('sessions', session)} data-testid="open-session">
                  Its cost and timeline
                </a>
              </>
            ) : (
              '—'
            ),
          ],
          ['Tool', tool ?? '—'],
          [
            'Tags',
            tags.length ? (
              <span className="chips-inline" data-testid="detail-tags">
                {tags.map((t) => (
                  <a key={t} className="chip chip-link" href={href('requests', { tag: t })}>
                    {t}
                  </a>
                ))}
              </span>
            ) : (
              '—'
            ),
          ],
          ['Extra', extra.length ? extra.map(([k, v]) => `${k}=${String(v)}`).join(', ') : '—'],
          ['Auto cache', a.auto_cache === null || a.auto_cache === undefined ? '—' : a.auto_cache ? 'on' : 'off'],
        ]}
      />
    </Section>
  )
}

function Dimensions({ record }: { record: Obj }) {
  const dims = Object.entries(obj(record.dimensions))
  const ignored = arr(record.ignored).map(obj)
  return (
    <Section title="Dimensions" testId="detail-dimensions">
      {dims.length === 0 ? (
        <p className="muted">None. Send X-Gw-&lt;Name&gt; headers to slice requests by your own dimensions.</p>
      ) : (
        <Facts
          items={dims.map(([k, v]) => [
            k,
            <FilterLink key={k} param="dim" value={`${k}=${String(v)}`}>
              {String(v)}
            </FilterLink>,
          ])}
        />
      )}
      {ignored.length > 0 && (
        <>
          <h3>Ignored attribution</h3>
          <table className="table table-compact" data-testid="detail-ignored">
            <TableHead cols={['Name', 'Why']} />
            <tbody>
              {ignored.map((i, n) => (
                <tr key={n}>
                  <td>
                    <code>{String(i.name)}</code>
                  </td>
                  <td>{String(i.reason)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Section>
  )
}

function Attempts({ record }: { record: Obj }) {
  const attempts = arr(record.attempts).map(obj)
  return (
    <Section title="Routing attempts" testId="detail-attempts" description={record.fallback_used ? 'A fallback served this request.' : undefined}>
      {attempts.length === 0 ? (
        <p className="muted">
          {obj(record.response_cache).hit
            ? 'No provider was called: the response cache answered with an earlier answer.'
            : 'No provider was called (the request was refused before routing).'}
        </p>
      ) : (
        // Six columns and a model id do not fit a phone: the table scrolls in its card, not the page.
        <div className="table-wrap">
          <table className="table table-compact">
            <TableHead cols={['#', 'Provider', 'Model', 'Status', { label: 'Latency', num: true }, 'Error']} />
            <tbody>
              {attempts.map((a, i) => (
                <tr key={i} data-testid="attempt-row">
                  <td>{i + 1}</td>
                  <td>{dash(str(a.provider))}</td>
                  <td>
                    <code className="nowrap">{dash(str(a.model))}</code>
                  </td>
                  <td>{a.status === null || a.status === undefined ? 'no answer' : String(a.status)}</td>
                  <td className="num">{ms(num(a.latency_ms))}</td>
                  <td className="wrap">{dash(str(a.error))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  )
}

/** The tier asked for beside the one served (and billed), when they differ or a region was reported. */
function tierNote(t: Obj): string {
  const requested = str(t.requested)
  const served = str(t.served)
  const geo = str(t.inference_geo)
  const parts = [requested && requested !== served ? `asked for ${requested}, served ${served ?? 'as the provider chose'}` : null, geo ? `region ${geo}` : null]
  const said = parts.filter(Boolean).join(' · ')
  return said ? ` · ${said}` : ''
}

type CostHistory = Array<{ repriced_at: number; old_usd: number | null; new_usd: number | null; actor: string }>

function CostBreakdown({ record, history }: { record: Obj; history: CostHistory }) {
  const c = obj(record.cost)
  const u = obj(record.usage)
  if (!record.cost)
    return (
      <Section title="Cost" testId="detail-cost">
        <p className="muted" data-testid="detail-no-cost">
          {noCostReason(str(record.provider))}.
        </p>
      </Section>
    )
  const priced = c.priced !== false
  return (
    <Section title="Cost" testId="detail-cost">
      <div className="balance-line">
        <span className="balance-value" data-testid="detail-cost-total">
          {priced ? usd(num(c.final_usd)) : 'Unpriced'}
        </span>
        {c.estimated ? <Badge kind="warn">estimated</Badge> : null}
        {c.long_context ? <Badge kind="accent">long-context tier</Badge> : null}
        {str(c.service_tier) ? <Badge kind="accent">{`${str(c.service_tier)} tier`}</Badge> : null}
      </div>
      {!priced && <p className="muted">{str(c.unpriced_reason) ?? 'No known price for this model.'} Set one on the Models page.</p>}
      <table className="table table-compact">
        <TableHead cols={['Part', { label: 'Tokens', num: true }, { label: 'Cost', num: true }]} />
        <tbody>
          <tr>
            <td>Input</td>
            <td className="num">{int(num(c.prompt_tokens) ?? num(u.prompt_tokens))}</td>
            <td className="num">{usd(num(c.input_usd))}</td>
          </tr>
          <tr>
            <td>Cached input</td>
            <td className="num">{int(num(c.cached_tokens))}</td>
            <td className="num">{usd(num(c.cached_input_usd))}</td>
          </tr>
          <tr>
            <td>Cache writes</td>
            <td className="num">{int(num(c.cache_write_tokens))}</td>
            <td className="num">{usd(num(c.cache_write_usd))}</td>
          </tr>
          <tr>
            <td>Output</td>
            <td className="num">{int(num(c.completion_tokens) ?? num(u.completion_tokens))}</td>
            <td className="num">{usd(num(c.output_usd))}</td>
          </tr>
          {(num(c.web_search_calls) ?? 0) > 0 && (
            <tr data-testid="detail-cost-fees">
              <td>Web searches (per call)</td>
              <td className="num">{int(num(c.web_search_calls))}</td>
              <td className="num">{usd(num(c.fees_usd))}</td>
            </tr>
          )}
          <tr className="row-total">
            <th scope="row">Total</th>
            <td />
            <td className="num">{usd(num(c.final_usd))}</td>
          </tr>
        </tbody>
      </table>
      <p className="small muted">
        Cache savings {usd(num(c.cache_savings_usd))} · prices: {str(c.price_source) ?? '—'}
        {tierNote(obj(record.tier))}
      </p>
      {history.map((h) => (
        <p className="small muted" key={`${h.repriced_at}-${h.actor}`} data-testid="detail-cost-history">
          Repriced {dateTime(h.repriced_at)} by {h.actor}: was {h.old_usd === null ? 'unpriced' : usd(h.old_usd)}, now{' '}
          {h.new_usd === null ? 'unpriced' : usd(h.new_usd)}.
        </p>
      ))}
    </Section>
  )
}

function Bodies({ bodies, isAdmin }: { bodies: { request: unknown; response: unknown } | null; isAdmin: boolean }) {
  return (
    <Section title="Bodies" testId="detail-bodies">
      {!bodies ? (
        <p className="muted" data-testid="detail-no-bodies">
          Bodies are not kept for this request.{' '}
          {isAdmin ? (
            <>
              Turn on “Keep request and response bodies” in <a href="#/settings">Settings</a> to keep them for new requests.
            </>
          ) : (
            'An admin can turn on body logging in Settings.'
          )}
        </p>
      ) : (
        <div className="grid-2">
          <div>
            <h3>Request</h3>
            <CodeBlock
              code={typeof bodies.request === 'string' ? bodies.request : JSON.stringify(bodies.request, null, 2)}
              testId="detail-request-body"
              label="Request body"
            />
          </div>
          <div>
            <h3>Response</h3>
            <CodeBlock
              code={typeof bodies.response === 'string' ? bodies.response : JSON.stringify(bodies.response, null, 2)}
              testId="detail-response-body"
              label="Response body"
            />
          </div>
        </div>
      )}
    </Section>
  )
}

export function RequestDetail({ id }: { id: string }) {
  const { isAdmin } = useSession()
  const q = useQuery(() => call('requests.get', { id }), [id])
  const keys = useQuery(() => call('keys.list', {}), [])
  const back = { href: '#/requests', label: 'Requests' }
  if (q.error || !q.data) return <PendingPage title="Request" back={back} q={q} label="Loading request…" errorTestId="request-error" />
  const r = q.data.record
  const err = obj(r.error)
  const status = num(r.status) ?? 0
  const keyId = str(r.key_id)
  const preset = str(r.preset)
  const alias = obj(r.alias)
  const softCap = obj(r.soft_cap)
  const moved = r.moved ? (r.moved as Move) : null
  const instance = str(r.instance)
  const created = typeof r.created_at === 'number' || typeof r.created_at === 'string' ? r.created_at : null
  return (
    <div data-testid="request-detail" data-request-id={String(r.id ?? id)}>
      <PageHeader
        title="Request"
        back={back}
        subtitle={
          <>
            <code data-testid="detail-id">{String(r.id ?? id)}</code> <CopyButton text={String(r.id ?? id)} label="Copy id" testId="detail-id-copy" />{' '}
            <StatusBadge status={status} outcome={String(r.outcome ?? '')} />
          </>
        }
      />
      {r.error ? (
        <div className="callout callout-danger" role="note" data-testid="detail-error">
          <strong>
            {String(err.status ?? status)} {String(err.code ?? err.type ?? 'error')}
          </strong>
          : {String(err.message ?? '')}
        </div>
      ) : null}
      <Section title="Summary" testId="detail-summary">
        <Facts
          items={[
            ['Time', dateTime(created)],
            ['Endpoint', dash(str(r.endpoint))],
            ['Source', dash(str(r.source))],
            ['Gateway', instance ? <FilterLink key="g" param="instance" value={instance} testId="detail-instance" /> : '—'],
            [
              'Key',
              keyId ? (
                <a href={href('keys', keyId)} data-testid="detail-key">
                  {keys.data?.find((k) => k.id === keyId)?.name ?? keyId}
                </a>
              ) : (
                '—'
              ),
            ],
            ['Model requested', <code key="m">{dash(str(r.model))}</code>],
            ['Alias', alias.pattern ? <code key="a" data-testid="detail-alias">{`${String(alias.pattern)} → ${String(alias.target)}`}</code> : '—'],
            ['Preset', preset ? <a href={href('presets', preset)}>{`${preset}${r.preset_version ? ` v${String(r.preset_version)}` : ''}`}</a> : '—'],
            ['Provider', dash(str(r.provider))],
            ['Upstream model', <code key="u">{dash(str(r.upstream_model))}</code>],
            ['Streamed', r.stream ? 'yes' : 'no'],
            ['Fallback used', r.fallback_used ? 'yes' : 'no'],
            // Only on the turn routing moved: the request page of every other turn stays as it was.
            ...(moved
              ? [
                  [
                    'Session moved',
                    <span key="mv" data-testid="detail-moved">
                      <MoveNote m={moved} />
                    </span>,
                  ] satisfies [string, ReactNode],
                ]
              : []),
            ['Response cache', <CacheNote key="c" note={obj(r.response_cache)} />],
            [
              'Soft cap',
              softCap.reason ? (
                <span key="s" data-testid="detail-soft-cap">
                  {String(softCap.reason)}
                </span>
              ) : (
                '—'
              ),
            ],
            ['Latency', ms(num(r.latency_ms))],
            ['Time to first byte', ms(num(r.ttfb_ms))],
            [
              'Output speed',
              <span key="s" data-testid="detail-speed">
                {outputSpeed(num(obj(r.usage).completion_tokens), num(r.latency_ms), num(r.ttfb_ms), Boolean(r.stream))}
              </span>,
            ],
          ]}
          testId="detail-facts"
        />
      </Section>
      <div className="grid-2">
        <Attribution record={r} />
        <Dimensions record={r} />
      </div>
      <CostBreakdown record={r} history={q.data.cost_history} />
      <RequestCache record={r} />
      <Attempts record={r} />
      <Bodies bodies={q.data.bodies} isAdmin={isAdmin} />
    </div>
  )
}
