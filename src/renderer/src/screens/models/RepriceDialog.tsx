import { useState, type FormEvent } from 'react'
import { operations, type Output } from '../../../../contract'
import { call } from '../../api/client'
import { FormDialog } from '../../components/Dialog'
import { Checkbox, Field } from '../../components/Field'
import { useToast } from '../../components/Toasts'
import { useFields, useSubmit } from '../../lib/useForm'
import { validate } from '../../lib/validate'

type Batch = Output<'prices.reprice'>

const firstOfMonth = () => `${new Date().toISOString().slice(0, 7)}-01`

/**
 * Recomputes stored costs with today's price book, batch by batch (`prices.reprice`), so requests
 * made before a price was set or corrected cost what they should; a preview writes nothing.
 */
export function RepriceDialog({ onClose, onDone }: { onClose: () => void; onDone: () => void }) {
  const toast = useToast()
  const { v, set } = useFields({ since: firstOfMonth(), model: '' })
  const [dryRun, setDryRun] = useState(true)
  const [result, setResult] = useState<{ examined: number; changed: number; delta_usd: number; adjustments: number; dry_run: boolean } | null>(null)
  const { errors, formError, busy, submit: send } = useSubmit()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const base = { since: v.since.trim(), ...(v.model.trim() && { model: v.model.trim() }), dry_run: dryRun }
    send(validate(operations['prices.reprice'].input, base), async () => {
      const total = { examined: 0, changed: 0, delta_pico: 0, adjustments: 0 }
      let cursor: string | undefined
      do {
        const b: Batch = await call('prices.reprice', { ...base, ...(cursor && { cursor }) })
        total.examined += b.examined
        total.changed += b.changed
        total.delta_pico += Math.round(b.delta_usd * 1e12)
        total.adjustments += b.adjustments
        cursor = b.next_cursor ?? undefined
      } while (cursor)
      setResult({ examined: total.examined, changed: total.changed, delta_usd: total.delta_pico / 1e12, adjustments: total.adjustments, dry_run: dryRun })
      if (!dryRun) {
        toast(`Repriced ${total.changed} request${total.changed === 1 ? '' : 's'}`)
        onDone()
      }
    })
  }
  return (
    <FormDialog
      title="Reprice stored requests"
      onClose={onClose}
      testId="reprice-dialog"
      formTestId="reprice-form"
      onSubmit={submit}
      formError={formError}
      busy={busy}
      submitLabel={busy ? 'Working…' : dryRun ? 'Preview' : 'Reprice'}
      submitTestId="reprice-run"
    >
      <p className="muted">
        Costs of requests since the date are computed again from their stored usage with today’s prices, at the rates in force when each ran. The old figure is
        kept in the request’s history; a prepaid key’s ledger gets the difference as an adjustment.
      </p>
      <div className="form-grid">
        <Field label="Since (UTC)" error={errors.since} hint="YYYY-MM-DD">
          <input value={v.since} onChange={set('since')} data-testid="reprice-since" autoFocus />
        </Field>
        <Field label="Model" error={errors.model} hint="optional: provider/model or a model id">
          <input value={v.model} onChange={set('model')} data-testid="reprice-model" />
        </Field>
      </div>
      <Checkbox label="Preview only (write nothing)" checked={dryRun} onChange={setDryRun} testId="reprice-dry-run" />
      {result && (
        <p role="status" data-testid="reprice-result">
          {result.dry_run ? 'Would change' : 'Changed'} {result.changed} of {result.examined} requests; difference ${result.delta_usd}
          {result.dry_run ? '.' : `; ${result.adjustments} prepaid ledger adjustment${result.adjustments === 1 ? '' : 's'}.`}
        </p>
      )}
    </FormDialog>
  )
}
