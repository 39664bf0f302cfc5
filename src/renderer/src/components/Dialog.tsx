import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react'
import { toApiError } from '../api/errors'
import { FormError } from './Field'

const focusable = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])'

/**
 * A modal dialog: the native <dialog> in modal mode (the page behind is inert), Escape closes it,
 * Tab wraps inside it, and focus returns to where it was when it closes.
 */
export function Dialog(props: { title: string; onClose: () => void; children: ReactNode; testId?: string; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  useEffect(() => {
    const d = ref.current!
    const before = document.activeElement as HTMLElement | null
    if (!d.open) d.showModal()
    const first = d.querySelector<HTMLElement>('[autofocus], input:not([type=hidden]), select, textarea') ?? d.querySelector<HTMLElement>(focusable)
    first?.focus()
    return () => {
      if (d.open) d.close()
      before?.focus?.()
    }
  }, [])
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault()
      props.onClose()
    }
    if (e.key !== 'Tab') return
    const items = Array.from(ref.current!.querySelectorAll<HTMLElement>(focusable)).filter((el) => el.offsetParent !== null)
    if (!items.length) return
    const first = items[0]
    const last = items[items.length - 1]
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault()
      last.focus()
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault()
      first.focus()
    }
  }
  return (
    <dialog
      ref={ref}
      className={`dialog${props.wide ? ' dialog-wide' : ''}`}
      aria-labelledby={titleId}
      data-testid={props.testId ?? 'dialog'}
      onKeyDown={onKeyDown}
      onCancel={(e) => {
        e.preventDefault()
        props.onClose()
      }}
    >
      <div className="dialog-head">
        <h2 id={titleId}>{props.title}</h2>
        <button type="button" className="btn-icon" aria-label="Close dialog" data-testid="dialog-close" onClick={props.onClose}>
          ×
        </button>
      </div>
      {props.children}
    </dialog>
  )
}

/** Asks before something that cannot be undone; when `onConfirm` fails, its error shows in the dialog. */
export function ConfirmDialog(props: {
  title: string
  message: ReactNode
  confirmLabel: string
  danger?: boolean
  /** Busy from elsewhere: the confirm button waits while it is set. */
  busy?: boolean
  /** The confirm button also waits while `onConfirm` runs. */
  showBusy?: boolean
  onConfirm: () => Promise<void>
  onClose: () => void
}) {
  const [running, setRunning] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const busy = props.busy || (props.showBusy && running)
  const confirm = async () => {
    setRunning(true)
    try {
      await props.onConfirm()
    } catch (e) {
      setError(toApiError(e).message)
    } finally {
      setRunning(false)
    }
  }
  return (
    <Dialog title={props.title} onClose={props.onClose} testId="confirm-dialog">
      <div className="dialog-body">
        <p>{props.message}</p>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={props.onClose} data-testid="confirm-cancel">
          Cancel
        </button>
        <button type="button" className={props.danger ? 'btn btn-danger' : 'btn btn-primary'} onClick={confirm} disabled={busy} data-testid="confirm-ok">
          {busy ? 'Working…' : props.confirmLabel}
        </button>
      </div>
    </Dialog>
  )
}

type FormProps = {
  onClose: () => void
  formTestId?: string
  onSubmit: (e: FormEvent) => void
  children: ReactNode
  formError: string | null
  busy: boolean
  submitLabel: ReactNode
  submitTestId: string
  /**
   * While what prefills the fields is on its way. The fields mount only once it has arrived, so
   * nothing typed is overwritten by it and `autoFocus` lands on a field that is there to stay.
   */
  loading?: boolean
}

/** The form of a dialog: its fields, the form's error, then Cancel and the submit button. */
export function DialogForm(props: FormProps) {
  return (
    <form onSubmit={props.onSubmit} noValidate data-testid={props.formTestId}>
      <div className="dialog-body" aria-busy={props.loading || undefined}>
        {props.loading ? (
          <p className="muted" data-testid="dialog-loading">
            Loading…
          </p>
        ) : (
          props.children
        )}
        <FormError message={props.formError} />
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={props.onClose}>
          Cancel
        </button>
        <button className="btn btn-primary" disabled={props.busy || props.loading} data-testid={props.submitTestId}>
          {props.submitLabel}
        </button>
      </div>
    </form>
  )
}

/** A dialog holding one form. */
export function FormDialog({ title, testId, ...form }: FormProps & { title: string; testId: string }) {
  return (
    <Dialog title={title} onClose={form.onClose} testId={testId}>
      <DialogForm {...form} />
    </Dialog>
  )
}
