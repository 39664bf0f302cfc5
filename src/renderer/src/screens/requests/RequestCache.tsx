import { call } from '../../api/client'
import { useQuery } from '../../lib/useQuery'
import { href } from '../../lib/router'
import { int } from '../../lib/format'
import { Badge, Facts, Section } from '../../components/Page'

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {})
const count = (v: unknown): number => (typeof v === 'number' ? v : 0)

/** Whether the client's cache markers reached the provider: dropped by a translation (the record's `ignored` says why), or not counted. */
function markersFact(prompt: Obj | null, dropped: string | null) {
  if (dropped) return <span data-testid="cache-markers">dropped: {dropped}</span>
  if (!prompt) return <span className="muted">counted for requests of a session only</span>
  const n = count(prompt.markers)
  return <span data-testid="cache-markers">{n === 0 ? 'none sent' : `${int(n)} sent, reached the provider`}</span>
}

/** Where the request stands in its session's cache: read, written, or missed and why. */
function SessionTurn({ session, id }: { session: string; id: string }) {
  const q = useQuery(() => call('sessions.get', { id: session, limit: 1 }), [session])
  const t = q.data?.cache.turns.find((x) => x.request_id === id)
  if (!t) return <span className="muted">{q.loading ? 'Reading the session…' : '—'}</span>
  return (
    <span data-testid="cache-turn">
      Turn {t.turn}:{' '}
      {t.cause ? (
        <>
          <Badge kind="warn">miss</Badge> {t.cause.text}
        </>
      ) : t.state === 'none' ? (
        'no cache read or written'
      ) : (
        `${t.state === 'read' ? 'read the cache' : 'wrote the cache'}${t.unread_write ? '; its write was never read' : ''}`
      )}{' '}
      · <a href={`${href('sessions', session)}`}>the session's cache</a>
    </span>
  )
}

/** One request's prompt cache: what the provider reported reading and writing (by TTL), its markers, its turn in its session. */
export function RequestCache({ record }: { record: Obj }) {
  const u = obj(record.usage)
  const prompt = record.prompt ? obj(record.prompt) : null
  const dropped = (Array.isArray(record.ignored) ? record.ignored.map(obj) : []).find((i) => i.name === 'cache_control')
  const session = typeof obj(record.attribution).session_id === 'string' ? String(obj(record.attribution).session_id) : null
  const writes = count(u.cache_write_tokens)
  const hour = count(u.cache_write_1h_tokens)
  return (
    <Section title="Prompt cache" testId="detail-prompt-cache" description="What the provider reported of its prompt cache for this request.">
      <Facts
        items={[
          ['Read', <span key="r" data-testid="cache-read">{`${int(count(u.cached_tokens))} tokens`}</span>],
          ['Written (5 min)', `${int(writes - hour)} tokens`],
          ['Written (1 hour)', `${int(hour)} tokens`],
          ['Cache markers', markersFact(prompt, dropped ? String(dropped.reason) : null)],
          [
            'Prompt fingerprint',
            prompt ? (
              <span key="f" data-testid="cache-fingerprint">
                system {prompt.system ? <code>{String(prompt.system)}</code> : 'none'} · {int(Array.isArray(prompt.tools) ? prompt.tools.length : 0)} tools ·{' '}
                {int(Array.isArray(prompt.messages) ? prompt.messages.length : 0)} messages
              </span>
            ) : (
              '—'
            ),
          ],
          ['In its session', session && record.usage ? <SessionTurn key="t" session={session} id={String(record.id)} /> : '—'],
        ]}
      />
    </Section>
  )
}
