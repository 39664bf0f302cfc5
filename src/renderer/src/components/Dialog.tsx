import { useEffect, useId, useRef, type ReactNode } from 'react'

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

/** Asks before something that cannot be undone. */
export function ConfirmDialog(props: {
  title: string
  message: ReactNode
  confirmLabel: string
  danger?: boolean
  busy?: boolean
  error?: string | null
  onConfirm: () => void
  onClose: () => void
}) {
  return (
    <Dialog title={props.title} onClose={props.onClose} testId="confirm-dialog">
      <div className="dialog-body">
        <p>{props.message}</p>
        {props.error && (
          <p className="form-error" role="alert">
            {props.error}
          </p>
        )}
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={props.onClose} data-testid="confirm-cancel">
          Cancel
        </button>
        <button type="button" className={props.danger ? 'btn btn-danger' : 'btn btn-primary'} onClick={props.onConfirm} disabled={props.busy} data-testid="confirm-ok">
          {props.busy ? 'Working…' : props.confirmLabel}
        </button>
      </div>
    </Dialog>
  )
}
