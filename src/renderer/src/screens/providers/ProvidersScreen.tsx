import { useState, type FormEvent } from 'react'
import { operations } from '../../../../contract'
import { call } from '../../api/client'
import { useQuery } from '../../lib/useQuery'
import { useFields, useSubmit } from '../../lib/useForm'
import { validate } from '../../lib/validate'
import { FormDialog } from '../../components/Dialog'
import { Field } from '../../components/Field'
import { PageHeader } from '../../components/Page'
import { Empty, Pending } from '../../components/States'
import { useToast } from '../../components/Toasts'
import { DialectField, ProviderCard, WireField } from './ProviderCard'
import type { ProviderDialect, ProviderWire } from '../../../../contract/providers'

function AddProviderDialog({ keyStore, onClose, onAdded }: { keyStore: string | null; onClose: () => void; onAdded: () => void }) {
  const toast = useToast()
  const { v, set } = useFields({ id: '', kind: 'openai', base_url: '', api_key: '', wire: 'chat', dialect: '' })
  const { errors, formError, busy, submit: send } = useSubmit()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const input = {
      id: v.id.trim(),
      kind: v.kind,
      base_url: v.base_url.trim(),
      ...(v.api_key.trim() && { api_key: v.api_key }),
      ...(v.kind === 'openai' && { wire: v.wire as ProviderWire }),
      ...(v.kind === 'openai' && v.dialect !== '' && { dialect: v.dialect as ProviderDialect }),
    }
    const errs = validate(operations['providers.set'].input, input)
    if (!v.base_url.trim()) errs.base_url = 'is required for an added provider'
    send(errs, async () => {
      await call('providers.set', input)
      toast(`Provider ${input.id} added`)
      onAdded()
      onClose()
    })
  }
  return (
    <FormDialog
      title="Add a provider"
      onClose={onClose}
      testId="add-provider-dialog"
      onSubmit={submit}
      formError={formError}
      busy={busy}
      submitLabel="Add provider"
      submitTestId="add-provider-submit"
    >
      <Field label="Id" error={errors.id} hint="Callers use it as the model prefix: <id>/<model>.">
        <input value={v.id} onChange={set('id')} placeholder="mybox" data-testid="add-provider-id" />
      </Field>
      <Field label="Kind" error={errors.kind}>
        <select value={v.kind} onChange={set('kind')} data-testid="add-provider-kind">
          <option value="openai">OpenAI-compatible</option>
          <option value="anthropic">Anthropic</option>
          <option value="gemini">Google Gemini</option>
        </select>
      </Field>
      {v.kind === 'openai' && <WireField value={v.wire} onChange={set('wire')} error={errors.wire} testId="add-provider-wire" />}
      {v.kind === 'openai' && <DialectField value={v.dialect} onChange={set('dialect')} error={errors.dialect} testId="add-provider-dialect" derived />}
      <Field label="Base URL" error={errors.base_url} hint="e.g. http://10.0.0.5:8000/v1">
        <input value={v.base_url} onChange={set('base_url')} data-testid="add-provider-url" />
      </Field>
      <Field label="API key (optional)" error={errors.api_key} hint={keyStore ? `Stored in ${keyStore}.` : undefined}>
        <input type="password" autoComplete="off" value={v.api_key} onChange={set('api_key')} data-testid="add-provider-key" />
      </Field>
    </FormDialog>
  )
}

export function ProvidersScreen() {
  const q = useQuery(() => call('providers.list', {}), [])
  const [adding, setAdding] = useState(false)
  // The same for every provider: the OS keychain, or on a team's PostgreSQL store the database.
  const keyStore = q.data?.[0]?.key_store ?? null
  const sorted = [...(q.data ?? [])].sort(
    (a, b) => Number(!!b.credential) - Number(!!a.credential) || Number(a.local) - Number(b.local) || a.label.localeCompare(b.label),
  )
  return (
    <>
      <PageHeader
        title="Providers"
        subtitle={`Where requests go. Keys are kept in ${keyStore ?? 'the gateway'} (or come from <ID>_API_KEY); only their last four characters are ever shown.`}
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setAdding(true)} data-testid="add-provider">
            Add provider
          </button>
        }
      />
      {q.error || !q.data ? (
        <Pending q={q} label="Loading providers…" />
      ) : q.data.length === 0 ? (
        <Empty title="No providers">
          <p>Add an OpenAI-compatible server to start routing requests.</p>
        </Empty>
      ) : (
        <div className="stack" data-testid="providers-list">
          {sorted.map((p) => (
            <ProviderCard key={`${p.id}:${p.base_url}:${p.credential?.last4 ?? ''}`} p={p} onChanged={() => q.reload()} />
          ))}
        </div>
      )}
      {adding && <AddProviderDialog keyStore={keyStore} onClose={() => setAdding(false)} onAdded={q.reload} />}
    </>
  )
}
