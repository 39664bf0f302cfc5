import type { ReactNode } from 'react'

/**
 * A column: its head, or that with `num` to right-align it over numbers (and `className` for its
 * cells' class, `col-wide` for one a narrow screen hides); `false` leaves it out.
 */
export type Column = ReactNode | NumColumn | false
type NumColumn = { label: ReactNode; num: true; className?: string }

const isNum = (c: Column): c is NumColumn => typeof c === 'object' && c !== null && 'num' in c

/** A table's head row; `actions` adds a last column for row buttons, named for screen readers only. */
export function TableHead({ cols, actions }: { cols: Column[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {cols.map((c, i) =>
          c === false ? null : isNum(c) ? (
            <th key={i} scope="col" className={c.className ? `num ${c.className}` : 'num'}>
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
