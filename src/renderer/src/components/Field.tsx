import { cloneElement, useId, type ReactElement, type ReactNode } from 'react'

/** A labelled control with its hint and inline error, wired for screen readers. */
export function Field(props: { label: string; error?: string; hint?: ReactNode; children: ReactElement<Record<string, unknown>>; className?: string }) {
  const id = useId()
  const hintId = `${id}-hint`
  const errId = `${id}-err`
  const describedBy = [props.hint ? hintId : null, props.error ? errId : null].filter(Boolean).join(' ') || undefined
  const control = cloneElement(props.children, {
    id,
    'aria-invalid': props.error ? true : undefined,
    'aria-describedby': describedBy,
  })
  return (
    <div className={`field${props.error ? ' field-invalid' : ''} ${props.className ?? ''}`}>
      <label htmlFor={id}>{props.label}</label>
      {control}
      {props.hint && (
        <div className="field-hint" id={hintId}>
          {props.hint}
        </div>
      )}
      {props.error && (
        <div className="field-error" id={errId} data-testid="field-error">
          {props.error}
        </div>
      )}
    </div>
  )
}

export function Checkbox(props: { label: ReactNode; checked: boolean; onChange: (v: boolean) => void; testId?: string; hint?: string; disabled?: boolean }) {
  const id = useId()
  return (
    <div className="field field-check">
      <input
        id={id}
        type="checkbox"
        checked={props.checked}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.target.checked)}
        data-testid={props.testId}
      />
      <label htmlFor={id}>{props.label}</label>
      {props.hint && <div className="field-hint">{props.hint}</div>}
    </div>
  )
}

export function FormError({ message, testId = 'form-error' }: { message?: string | null; testId?: string }) {
  if (!message) return null
  return (
    <div className="form-error" role="alert" data-testid={testId}>
      {message}
    </div>
  )
}
