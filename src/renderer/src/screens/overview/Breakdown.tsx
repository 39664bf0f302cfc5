import { useState } from 'react'
import { href } from '../../lib/router'
import { useDebounced } from '../../lib/useQuery'
import type { Range } from '../../lib/range'
import { TopList, type GroupBy } from './TopList'

type Choice = Exclude<GroupBy, `dimension:${string}`> | 'dimension'

/** What the breakdown can group by: its label, and where a value links to (the requests it counts). */
const CHOICES: Array<{ value: Choice; label: string; filter?: string }> = [
  { value: 'model', label: 'Model requested', filter: 'model' },
  { value: 'served_model', label: 'Model served' },
  { value: 'provider', label: 'Provider', filter: 'provider' },
  { value: 'preset', label: 'Preset', filter: 'preset' },
  { value: 'key', label: 'Key' },
  { value: 'user', label: 'User', filter: 'user_id' },
  { value: 'tag', label: 'Tag', filter: 'tag' },
  { value: 'tool', label: 'Tool', filter: 'source_tool' },
  { value: 'instance', label: 'Gateway', filter: 'instance' },
  { value: 'session', label: 'Session', filter: 'session_id' },
  { value: 'trace', label: 'Trace', filter: 'trace_id' },
  { value: 'dimension', label: 'Dimension…' },
]

const DIMENSION = /^[a-z0-9_-]{1,64}$/

/** Spend and traffic over the range by any grouping the analytics offer, 20 largest groups. */
export function Breakdown(props: { range: Range; keyName: (id: string) => string }) {
  const [choice, setChoice] = useState<Choice>('served_model')
  const [dimension, setDimension] = useState('')
  const name = useDebounced(dimension.trim().toLowerCase(), 300)
  const c = CHOICES.find((x) => x.value === choice)!
  const by: GroupBy | null = choice === 'dimension' ? (DIMENSION.test(name) ? `dimension:${name}` : null) : choice
  const link = (v: string) => {
    if (choice === 'key') return href('keys', v)
    if (choice === 'dimension') return href('requests', { dim: `${name}=${v}`, from: props.range.from })
    return c.filter ? href('requests', { [c.filter]: v, from: props.range.from }) : undefined
  }
  const header = (
    <div className="breakdown-head">
      <h2>Breakdown</h2>
      <label>
        By{' '}
        <select value={choice} onChange={(e) => setChoice(e.target.value as Choice)} data-testid="breakdown-by">
          {CHOICES.map((x) => (
            <option key={x.value} value={x.value}>
              {x.label}
            </option>
          ))}
        </select>
      </label>
      {choice === 'dimension' && (
        <input
          aria-label="Dimension name"
          placeholder="name, e.g. team"
          value={dimension}
          onChange={(e) => setDimension(e.target.value)}
          data-testid="breakdown-dimension"
        />
      )}
    </div>
  )
  if (!by) {
    return (
      <section className="card top-list" data-testid="breakdown" aria-label="Breakdown">
        {header}
        <p className="muted" data-testid="breakdown-hint">
          {dimension.trim()
            ? 'A dimension name is lowercase letters, digits, - and _ (the <Name> of its X-Gw-<Name> header).'
            : 'Type the dimension’s name (the <Name> of its X-Gw-<Name> header).'}
        </p>
      </section>
    )
  }
  return (
    <TopList
      title="Breakdown"
      testId="breakdown"
      header={header}
      column={choice === 'dimension' ? name : c.label}
      by={by}
      limit={20}
      range={props.range}
      label={choice === 'key' ? props.keyName : undefined}
      link={choice === 'served_model' ? undefined : (v) => link(v) ?? ''}
    />
  )
}
