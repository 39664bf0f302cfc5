import type { Output } from '../../../../contract'
import { call } from '../../api/client'
import { compact, int } from '../../lib/format'
import { spend } from '../../lib/spend'
import { useQuery } from '../../lib/useQuery'
import { Pending } from '../../components/States'
import type { Range } from '../../lib/range'
import { TableHead } from '../../components/Table'

type Group = Output<'analytics.groupBy'>[number]

function SpendCell({ g }: { g: Group }) {
  const s = spend(g.cost_usd, g.unpriced, g.requests)
  return (
    <td className={s.note ? 'num muted' : 'num'} title={s.note ?? undefined} data-testid="top-spend">
      {s.text}
    </td>
  )
}

/** The top values of one dimension over the range, with links where a value has a page. */
export function TopList(props: {
  title: string
  by: 'model' | 'key' | 'user' | 'tag' | 'tool'
  range: Range
  label?: (value: string) => string
  link?: (value: string) => string
  filter?: Record<string, string>
}) {
  const q = useQuery(() => call('analytics.groupBy', { from: props.range.from, to: props.range.to, by: props.by, limit: 5, filter: props.filter ?? {} }), [props.range.from, props.range.to, props.by, JSON.stringify(props.filter ?? {})])
  const testId = `top-${props.by}`
  return (
    <section className="card top-list" data-testid={testId} aria-label={props.title}>
      <h2>{props.title}</h2>
      {q.error || !q.data ? (
        <Pending q={q} errorTestId={`${testId}-error`} loadingTestId={`${testId}-loading`} />
      ) : q.data.length === 0 ? (
        <p className="muted" data-testid={`${testId}-empty`}>
          Nothing in this range yet.
        </p>
      ) : (
        <table className="table table-compact">
          <TableHead cols={[props.by === 'key' ? 'Key' : props.by[0].toUpperCase() + props.by.slice(1), { label: 'Requests', num: true }, { label: 'Spend', num: true }, { label: 'Tokens', num: true, className: 'col-wide' }]} />
          <tbody>
            {q.data.map((g: Group) => {
              const name = g.value === null ? (props.by === 'user' ? '(no user id)' : props.by === 'tag' ? '(untagged)' : props.by === 'tool' ? '(not recognised)' : '(none)') : (props.label?.(g.value) ?? g.value)
              return (
                <tr key={g.value ?? '(none)'}>
                  <td className="truncate">{g.value !== null && props.link ? <a href={props.link(g.value)}>{name}</a> : name}</td>
                  <td className="num">{int(g.requests)}</td>
                  <SpendCell g={g} />
                  <td className="num col-wide">{compact(g.tokens)}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      )}
    </section>
  )
}
