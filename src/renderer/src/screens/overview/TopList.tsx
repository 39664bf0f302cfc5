import type { ReactNode } from 'react'
import type { Input, Output } from '../../../../contract'
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

export type GroupBy = Input<'analytics.groupBy'>['by']

const NONE: Record<string, string> = { user: '(no user id)', tag: '(untagged)', tool: '(not recognised)', served_model: '(not sent to a provider)' }

/** The top values of one grouping over the range, with links where a value has a page. */
export function TopList(props: {
  title: string
  by: GroupBy
  /** The first column's heading. */
  column: string
  range: Range
  limit?: number
  /** Replaces the heading (a breakdown's own selector). */
  header?: ReactNode
  label?: (value: string) => string
  link?: (value: string) => string
  filter?: Record<string, string>
  testId?: string
}) {
  const limit = props.limit ?? 5
  const q = useQuery(
    () => call('analytics.groupBy', { from: props.range.from, to: props.range.to, by: props.by, limit, filter: props.filter ?? {} }),
    [props.range.from, props.range.to, props.by, limit, JSON.stringify(props.filter ?? {})],
  )
  const testId = props.testId ?? `top-${props.by}`
  return (
    <section className="card top-list" data-testid={testId} aria-label={props.title}>
      {props.header ?? <h2>{props.title}</h2>}
      {q.error || !q.data ? (
        <Pending q={q} errorTestId={`${testId}-error`} loadingTestId={`${testId}-loading`} />
      ) : q.data.length === 0 ? (
        <p className="muted" data-testid={`${testId}-empty`}>
          Nothing in this range yet.
        </p>
      ) : (
        <table className="table table-compact">
          <TableHead
            cols={[props.column, { label: 'Requests', num: true }, { label: 'Spend', num: true }, { label: 'Tokens', num: true, className: 'col-wide' }]}
          />
          <tbody>
            {q.data.map((g: Group) => {
              const name = g.value === null ? (NONE[props.by] ?? '(none)') : (props.label?.(g.value) ?? g.value)
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
