import type { Output } from '../../../../contract'
import { href } from '../../lib/router'
import { compact, int, pct, usd } from '../../lib/format'
import { Badge, Facts, Section } from '../../components/Page'

export type SessionCache = Output<'sessions.get'>['cache']
export type CacheTurn = SessionCache['turns'][number]

const VERDICTS: Record<SessionCache['verdict'], { kind: 'ok' | 'warn' | 'muted'; label: string; says: string }> = {
  healthy: { kind: 'ok', label: 'healthy', says: 'Every turn read what the turn before it cached.' },
  missing: { kind: 'warn', label: 'missing', says: 'Some turns re-sent a prefix the previous turn had cached; why is said below.' },
  unused: { kind: 'muted', label: 'unused', says: 'No request of this session read or wrote the prompt cache.' },
}

/** A turn's cache as the timeline shows it: what it read, or that it missed. */
export function CacheCell({ t }: { t: CacheTurn | undefined }) {
  if (!t || t.state === 'none') return <span className="muted">—</span>
  if (t.state === 'miss')
    return (
      <Badge kind="warn" testId="timeline-cache-miss" title={t.cause?.text}>
        miss
      </Badge>
    )
  return (
    <span data-testid="timeline-cache" title={`${int(t.cached_tokens)} read · ${int(t.cache_write_tokens)} written`}>
      {t.state === 'read' ? `${compact(t.cached_tokens)} read` : `${compact(t.cache_write_tokens)} written`}
    </span>
  )
}

/** The prompt-cache doctor's view of a session: its verdict, what the cache saved and wasted, and why each miss happened. */
export function CachePanel({ cache: c }: { cache: SessionCache }) {
  const verdict = VERDICTS[c.verdict]
  const misses = c.turns.filter((t) => t.cause !== null)
  return (
    <Section
      title="Prompt cache"
      testId="session-cache"
      description="What the provider reported reading and writing of its prompt cache, turn by turn, and why a turn missed."
    >
      <p className="balance-line">
        <Badge kind={verdict.kind} testId="cache-verdict">
          {verdict.label}
        </Badge>{' '}
        <span className="muted">{verdict.says}</span>
      </p>
      <Facts
        testId="cache-facts"
        items={[
          [
            'Hit rate',
            <span key="h" data-testid="cache-hit-rate">
              {pct(c.hit_rate)}
              <span className="muted"> of {int(c.prompt_tokens)} prompt tokens</span>
            </span>,
          ],
          ['Read · written', `${int(c.cached_tokens)} · ${int(c.cache_write_tokens)} tokens`],
          [
            'Cache saved',
            <span key="s" data-testid="cache-saved" title="Cached reads against the input rate, less what writes cost above it">
              {usd(c.saved_usd)}
            </span>,
          ],
          [
            'Cache wasted',
            <span key="w" data-testid="cache-wasted" title="What writes no later turn of the same model read within their TTL cost">
              {usd(c.wasted_usd)}
              <span className="muted"> · {int(c.wasted_tokens)} tokens written, never read</span>
            </span>,
          ],
        ]}
      />
      {misses.length > 0 && (
        <ol className="cache-misses" data-testid="cache-misses">
          {misses.map((t) => (
            <li key={t.request_id} data-testid="cache-miss" data-kind={t.cause!.kind}>
              {t.cause!.text} · <a href={href('requests', t.request_id)}>its request</a>
            </li>
          ))}
        </ol>
      )}
    </Section>
  )
}
