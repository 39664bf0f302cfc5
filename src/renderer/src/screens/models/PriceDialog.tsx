import type { FormEvent } from 'react'
import { operations, type Output } from '../../../../contract'
import { call } from '../../api/client'
import { FormDialog } from '../../components/Dialog'
import { Field } from '../../components/Field'
import { useToast } from '../../components/Toasts'
import { numOrNull } from '../../lib/format'
import { useFields, useSubmit } from '../../lib/useForm'
import { validate } from '../../lib/validate'

type Model = Output<'models.list'>[number]
const p = (m: Model | null, k: string) => {
  const v = m?.pricing?.[k]
  return typeof v === 'number' ? String(v) : ''
}

/** Sets a price override (USD per 1M tokens) for one provider/model. */
export function PriceDialog({ model, onClose, onSaved }: { model: Model | null; onClose: () => void; onSaved: () => void }) {
  const toast = useToast()
  const { v, set } = useFields({
    model: model?.id ?? '',
    input: p(model, 'input'),
    output: p(model, 'output'),
    cached_input: p(model, 'cached_input'),
    cache_write: p(model, 'cache_write'),
    context_length: model?.context_length ? String(model.context_length) : '',
    note: '',
  })
  const { errors, formError, busy, submit: send } = useSubmit()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const input = {
      model: v.model.trim(),
      input: v.input.trim() === '' ? Number.NaN : Number(v.input),
      output: numOrNull(v.output),
      cached_input: numOrNull(v.cached_input),
      cache_write: numOrNull(v.cache_write),
      context_length: numOrNull(v.context_length),
      note: v.note.trim() || null,
    }
    const errs = validate(operations['prices.set'].input, input)
    if (v.input.trim() === '') errs.input = 'is required'
    send(errs, async () => {
      await call('prices.set', input)
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
      submitLabel="Save price"
      submitTestId="price-save"
    >
      <p className="muted">USD per 1 million tokens. The override wins over the built-in catalog; costs of new requests use it at once.</p>
      <Field label="Model" error={errors.model} hint="provider/model">
        <input value={v.model} onChange={set('model')} readOnly={!!model} data-testid="price-model" />
      </Field>
      <div className="form-grid">
        <Field label="Input" error={errors.input}>
          <input inputMode="decimal" value={v.input} onChange={set('input')} data-testid="price-input" autoFocus />
        </Field>
        <Field label="Output" error={errors.output}>
          <input inputMode="decimal" value={v.output} onChange={set('output')} data-testid="price-output" />
        </Field>
        <Field label="Cached input" error={errors.cached_input}>
          <input inputMode="decimal" value={v.cached_input} onChange={set('cached_input')} data-testid="price-cached" />
        </Field>
        <Field label="Cache write" error={errors.cache_write}>
          <input inputMode="decimal" value={v.cache_write} onChange={set('cache_write')} data-testid="price-cache-write" />
        </Field>
        <Field label="Context length (tokens)" error={errors.context_length}>
          <input inputMode="numeric" value={v.context_length} onChange={set('context_length')} data-testid="price-context" />
        </Field>
        <Field label="Note" error={errors.note}>
          <input value={v.note} onChange={set('note')} placeholder="e.g. negotiated rate" data-testid="price-note" />
        </Field>
      </div>
    </FormDialog>
  )
}
