import { useId, type CSSProperties } from 'react'

/**
 * A small radio group drawn as buttons (ranges, tabs of snippets). Arrow keys move between
 * options. `columns` spreads it over its container's width, that many options a row in equal
 * parts, so long labels keep room on a narrow panel.
 */
export function Segmented<T extends string>(props: {
  label: string
  value: T
  options: Array<{ value: T; label: string }>
  onChange: (v: T) => void
  testId?: string
  columns?: number
}) {
  const name = useId()
  return (
    <div
      className={props.columns ? 'segmented segmented-grid' : 'segmented'}
      style={props.columns ? ({ '--columns': props.columns } as CSSProperties) : undefined}
      role="radiogroup"
      aria-label={props.label}
      data-testid={props.testId}
    >
      {props.options.map((o) => (
        <label key={o.value} className={o.value === props.value ? 'seg seg-on' : 'seg'}>
          <input
            type="radio"
            name={name}
            value={o.value}
            checked={o.value === props.value}
            onChange={() => props.onChange(o.value)}
            data-testid={props.testId ? `${props.testId}-${o.value}` : undefined}
          />
          <span>{o.label}</span>
        </label>
      ))}
    </div>
  )
}
