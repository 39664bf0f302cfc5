import { useId } from 'react'

/** A small radio group drawn as buttons (ranges, tabs of snippets). Arrow keys move between options. */
export function Segmented<T extends string>(props: { label: string; value: T; options: Array<{ value: T; label: string }>; onChange: (v: T) => void; testId?: string }) {
  const name = useId()
  return (
    <div className="segmented" role="radiogroup" aria-label={props.label} data-testid={props.testId}>
      {props.options.map((o) => (
        <label key={o.value} className={o.value === props.value ? 'seg seg-on' : 'seg'}>
          <input type="radio" name={name} value={o.value} checked={o.value === props.value} onChange={() => props.onChange(o.value)} data-testid={props.testId ? `${props.testId}-${o.value}` : undefined} />
          <span>{o.label}</span>
        </label>
      ))}
    </div>
  )
}
