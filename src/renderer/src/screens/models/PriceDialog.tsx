import { useEffect, useState, type FormEvent } from 'react'
import { operations, type Output } from '../../../../contract'
import { call } from '../../api/client'
import { FormDialog } from '../../components/Dialog'
import { Field } from '../../components/Field'
import { useToast } from '../../components/Toasts'
import { useFields, useSubmit, type Errors } from '../../lib/useForm'
import { validate } from '../../lib/validate'

type Model = Output<'models.list'>[number]

/** The rates and limits edited as inputs; everything else of the row (tiers, dated rows, peak hours) is the advanced JSON. */
const COMMON = ['input', 'output', 'cached_input', 'cache_write', 'cache_write_1h', 'context_length'] as const
type Common = (typeof COMMON)[number]

const LABELS: Record<Common, string> = {
  input: 'Input',
  output: 'Output',
  cached_input: 'Cached input',
  cache_write: 'Cache write (5 min)',
  cache_write_1h: 'Cache write (1 hour)',
  context_length: 'Context length (tokens)',
}

const today = () => new Date().toISOString().slice(0, 10)

/** Splits a price row into the common fields (as text) and the rest (as pretty JSON, empty when there is none). */
function split(row: Record<string, unknown> | null) {
  const fields = Object.fromEntries(COMMON.map((k) => [k, typeof row?.[k] === 'number' ? String(row[k]) : ''])) as Record<Common, string>
  const rest = Object.fromEntries(Object.entries(row ?? {}).filter(([k]) => !(COMMON as readonly string[]).includes(k)))
  return { fields, advanced: Object.keys(rest).length ? JSON.stringify(rest, null, 2) : '' }
}

/**
 * Sets a price override for one provider/model: a whole price row, as the catalog has it. The
 * common rates are inputs; long-context tier, dated rows and peak hours are kept in an advanced
 * JSON editor, prefilled with what the model is billed at now, so saving never drops them.
 */
export function PriceDialog({ model, onClose, onSaved }: { model: Model | null; onClose: () => void; onSaved: () => void }) {
  const toast = useToast()
  const { v, setV, set } = useFields({ model: model?.id ?? '', ...split(null).fields, advanced: '', as_of: today(), note: '' })
  // A known model's fields wait for its current price, so what is typed is never overwritten by it.
  const [loading, setLoading] = useState(model !== null)
  useEffect(() => {
    if (!model) return
    call('prices.get', { model: model.id })
      .then(
        (current) => {
          if (!current) return
          const { fields, advanced } = split(current.row as Record<string, unknown>)
          setV((s) => ({ ...s, ...fields, advanced, note: current.note ?? '' }))
        },
        () => undefined,
      )
      .finally(() => setLoading(false))
  }, [model, setV])
  const { errors, formError, busy, submit: send } = useSubmit()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const errs: Errors = {}
    let rest: Record<string, unknown> = {}
    if (v.advanced.trim() !== '') {
      try {
        const parsed: unknown = JSON.parse(v.advanced)
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) errs.advanced = 'must be one JSON object'
        else rest = parsed as Record<string, unknown>
      } catch (err) {
        errs.advanced = `not JSON: ${(err as Error).message}`
      }
    }
    const row: Record<string, unknown> = { ...rest }
    for (const k of COMMON) {
      const t = v[k].trim()
      if (t !== '') row[k] = Number(t)
      else delete row[k]
    }
    const input = { model: v.model.trim(), row, as_of: v.as_of.trim(), note: v.note.trim() || null }
    // A row field the inputs do not show is reported under the advanced editor, with its path.
    for (const [path, message] of Object.entries(validate(operations['prices.set'].input, input))) {
      const field = path.replace(/^row\./, '')
      if ((COMMON as readonly string[]).includes(field)) errs[field] ??= message
      else if (path.startsWith('row')) errs.advanced ??= `${field === 'row' ? 'row' : field}: ${message}`
      else errs[path] ??= message
    }
    if (v.input.trim() === '') errs.input = 'is required'
    send(errs, async () => {
      // Checked above, so this parse only narrows the type.
      await call('prices.set', operations['prices.set'].input.parse(input))
      toast(`Price of ${input.model} saved`)
      onSaved()
      onClose()
    })
  }
  return (
    <FormDialog
      title={model ? `Price of ${model.id}` : 'Set a price'}
      onClose={onClose}
      testId="price-dialog"
      formTestId="price-form"
      onSubmit={submit}
      formError={formError}
      busy={busy}
      loading={loading}
      submitLabel="Save price"
      submitTestId="price-save"
    >
      <p className="muted">
        USD per 1 million tokens. The override wins over the built-in catalog; costs of new requests use it at once (earlier ones with “Reprice”).
      </p>
      <Field label="Model" error={errors.model} hint="provider/model">
        <input value={v.model} onChange={set('model')} readOnly={!!model} data-testid="price-model" />
      </Field>
      <div className="form-grid">
        {COMMON.map((k) => (
          <Field key={k} label={LABELS[k]} error={errors[k] ?? errors[`row.${k}`]}>
            <input
              inputMode={k === 'context_length' ? 'numeric' : 'decimal'}
              value={v[k]}
              onChange={set(k)}
              data-testid={`price-${k.replace(/_/g, '-')}`}
              autoFocus={k === 'input'}
            />
          </Field>
        ))}
        <Field label="As of" error={errors.as_of} hint="the date this price was set or published">
          <input value={v.as_of} onChange={set('as_of')} placeholder="YYYY-MM-DD" data-testid="price-as-of" />
        </Field>
        <Field label="Source note" error={errors.note}>
          <input value={v.note} onChange={set('note')} placeholder="e.g. negotiated rate" data-testid="price-note" />
        </Field>
      </div>
      <details open={v.advanced !== '' || !!errors.advanced}>
        <summary>Advanced: long-context tier, dated rows, peak hours</summary>
        <Field
          label="More of the price row (JSON)"
          error={errors.advanced}
          hint={
            'e.g. {"long_context": {"above_prompt_tokens": 200000, "input": 6, "output": 22.5}, "schedule": [{"from": "2027-01-01", "input": 4, "output": 20}]}'
          }
        >
          <textarea rows={8} spellCheck={false} value={v.advanced} onChange={set('advanced')} data-testid="price-advanced" />
        </Field>
      </details>
    </FormDialog>
  )
}
