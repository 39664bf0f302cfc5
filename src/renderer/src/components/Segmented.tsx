import { useId } from 'react'

/**
 * A small radio group drawn as buttons (ranges, tabs of snippets). Arrow keys move between
 * options. `fill` spreads it over its container's width, options in equal parts.
 */
export function Segmented<T extends string>(props: {
  label: string
  value: T
  options: Array<{ value: T; label: string }>
  onChange: (v: T) => void
  testId?: string
  fill?: boolean
}) {
  const name = useId()
  return (
    <div className={props.fill ? 'segmented segmented-fill' : 'segmented'} role="radiogroup" aria-label={props.label} data-testid={props.testId}>
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
