import { useEffect, useState, type FormEvent } from 'react'
import type { Output } from '../../../../contract'
import { call } from '../../api/client'
import { FormDialog } from '../../components/Dialog'
import { Field } from '../../components/Field'
import { TableHead } from '../../components/Table'
import { useToast } from '../../components/Toasts'
import { useSubmit } from '../../lib/useForm'

type Refresh = Output<'prices.refresh'>
type Rates = Refresh['rows'][number]['listed']

const rates = (r: Rates | null) => (r === null ? '—' : `$${r.input} / ${r.cached_input ?? '—'} / ${r.cache_write ?? '—'} / ${r.output ?? '—'}`)

/**
 * Compares a current price listing (the `price_source_url` setting) with the prices in force
 * (`prices.refresh`), then saves the differences as overrides dated today only when asked.
 */
export function RefreshDialog({ onClose, onDone }: { onClose: () => void; onDone: () => void }) {
  const toast = useToast()
  const [source, setSource] = useState('')
  // undefined until the setting has been read; the field appears once it has.
  const [saved, setSaved] = useState<string | null | undefined>(undefined)
  const [diff, setDiff] = useState<Refresh | null>(null)
  const { errors, formError, busy, submit } = useSubmit<'compare' | 'apply'>()
  useEffect(() => {
    call('settings.get', {}).then(
      (s) => {
        setSaved(s.price_source_url)
        setSource(s.price_source_url ?? '')
      },
      // Unread, the field starts empty; comparing then saves what was typed.
      () => setSaved(null),
    )
  }, [])

  const compare = (e: FormEvent) => {
    e.preventDefault()
    const url = source.trim()
    submit(
      url === '' ? { price_source_url: 'Enter the address of a price listing' } : {},
      async () => {
        if (url !== saved) {
          await call('settings.update', { price_source_url: url })
          setSaved(url)
        }
        setDiff(await call('prices.refresh', { apply: false }))
      },
      { as: 'compare' },
    )
  }
  const apply = () =>
    submit(
      true,
      async () => {
        const done = await call('prices.refresh', { apply: true })
        setDiff(done)
        toast(`Saved ${done.rows.length} price${done.rows.length === 1 ? '' : 's'} dated today`)
        onDone()
      },
      { as: 'apply' },
    )

  return (
    <FormDialog
      title="Refresh prices"
      onClose={onClose}
      testId="refresh-dialog"
      formTestId="refresh-form"
      onSubmit={compare}
      formError={formError}
      busy={!!busy}
      loading={saved === undefined}
      submitLabel={busy === 'compare' ? 'Fetching…' : 'Compare'}
      submitTestId="refresh-compare"
    >
      <p className="muted">
        Reads a current price listing (OpenRouter’s model list shape) and shows what differs from the prices in force. Nothing is fetched until a source is set,
        and nothing is saved until you apply: each difference becomes an override dated today; requests before today keep the rates they ran at.
      </p>
      <Field label="Price source URL" error={errors.price_source_url} hint="e.g. https://openrouter.ai/api/v1/models">
        <input value={source} onChange={(e) => setSource(e.target.value)} data-testid="refresh-source" autoFocus />
      </Field>
      {diff && (
        <>
          <p role="status" data-testid="refresh-counts">
            {diff.counts.new} new, {diff.counts.changed} changed, {diff.counts.unchanged} unchanged, {diff.counts.skipped} skipped
            {diff.applied ? ' — saved.' : '.'}
          </p>
          {diff.rows.length > 0 && (
            <table className="table table-compact" data-testid="refresh-rows">
              <TableHead cols={['Model', 'Change', 'Now (in / cached / write / out)', 'Listed']} />
              <tbody>
                {diff.rows.map((r) => (
                  <tr key={r.model} data-testid="refresh-row">
                    <td>{r.model}</td>
                    <td>{r.status}</td>
                    <td className="num">{rates(r.current)}</td>
                    <td className="num">{rates(r.listed)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {!diff.applied && diff.rows.length > 0 && (
            <button type="button" className="btn btn-primary" onClick={apply} disabled={!!busy} data-testid="refresh-apply">
              {busy === 'apply' ? 'Saving…' : `Apply ${diff.rows.length} change${diff.rows.length === 1 ? '' : 's'}`}
            </button>
          )}
        </>
      )}
    </FormDialog>
  )
}
