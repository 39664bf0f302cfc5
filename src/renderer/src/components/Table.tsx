import type { ReactNode } from 'react'

/** A column: its head, or that with `num` to right-align it over numbers; `false` leaves it out. */
export type Column = ReactNode | { label: ReactNode; num: true } | false

const isNum = (c: Column): c is { label: ReactNode; num: true } => typeof c === 'object' && c !== null && 'num' in c

/** A table's head row; `actions` adds a last column for row buttons, named for screen readers only. */
export function TableHead({ cols, actions }: { cols: Column[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {cols.map((c, i) =>
          c === false ? null : isNum(c) ? (
            <th key={i} scope="col" className="num">
              {c.label}
            </th>
          ) : (
            <th key={i} scope="col">
              {c}
            </th>
          ),
        )}
        {actions && (
          <th scope="col">
            <span className="sr-only">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  )
}

/** A full-width table on a card, scrolling sideways when narrow; `after` stands below it on the card. */
export function CardTable({ testId, children, after }: { testId: string; children: ReactNode; after?: ReactNode }) {
  return (
    <div className="card table-wrap">
      <table className="table" data-testid={testId}>
        {children}
      </table>
      {after}
    </div>
  )
}
