import type { FormEvent, KeyboardEvent } from 'react'
import { Field } from '../../components/Field'

/** Where the next message is written; Enter sends it, Stop ends a stream. */
export function Composer(props: { draft: string; setDraft: (d: string) => void; error?: string; streaming: boolean; onSend: () => void; onStop: () => void }) {
  const submit = (e: FormEvent) => {
    e.preventDefault()
    props.onSend()
  }
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      props.onSend()
    }
  }
  return (
    <form className="composer" onSubmit={submit} data-testid="pg-form">
      <Field label="Your message" error={props.error} hint="Enter sends, Shift+Enter adds a line.">
        <textarea rows={3} value={props.draft} onChange={(e) => props.setDraft(e.target.value)} onKeyDown={onKey} data-testid="pg-input" />
      </Field>
      <div className="form-actions">
        {props.streaming && (
          <button type="button" className="btn" onClick={props.onStop} data-testid="pg-stop">
            Stop
          </button>
        )}
        <button className="btn btn-primary" disabled={props.streaming} data-testid="pg-send">
          {props.streaming ? 'Streaming…' : 'Send'}
        </button>
      </div>
    </form>
  )
}
