import { useMemo, useState, type FormEvent } from 'react'
import { presetInput, type Preset } from '../../../../contract/presets'
import { call } from '../../api/client'
import { useQuery } from '../../lib/useQuery'
import { useSession } from '../../lib/session'
import { href, navigate } from '../../lib/router'
import { errorAt, useSubmit } from '../../lib/useForm'
import { validate } from '../../lib/validate'
import { ConfirmDialog } from '../../components/Dialog'
import { Checkbox, Field, FormError } from '../../components/Field'
import { PageHeader, Section } from '../../components/Page'
import { PendingPage } from '../../components/States'
import { useToast } from '../../components/Toasts'
import { draftOf, emptyDraft, inputOf, type PresetDraft } from './presetForm'
import { PresetPreview } from './PresetPreview'
import { PresetHistory } from './PresetHistory'

export function PresetEditor({ name }: { name: string | null }) {
  const [rev, setRev] = useState(0)
  const q = useQuery(() => (name ? call('presets.get', { name }) : Promise.resolve(null)), [name, rev])
  const back = { href: '#/presets', label: 'Presets' }
  if (name && (q.error || !q.data)) return <PendingPage title={name} back={back} q={q} label="Loading preset…" errorTestId="preset-error" />
  return <Editor key={`${name}:${q.data?.preset.version ?? 0}`} data={q.data ?? null} onChanged={() => setRev((r) => r + 1)} />
}

type Loaded = Awaited<ReturnType<typeof call<'presets.get'>>>

function Editor({ data, onChanged }: { data: Loaded | null; onChanged: () => void }) {
  const { isAdmin } = useSession()
  const toast = useToast()
  const isNew = !data
  const [draft, setDraft] = useState<PresetDraft>(data ? draftOf(data.preset) : emptyDraft)
  const [touched, setTouched] = useState<Record<string, boolean>>({})
  const [submitted, setSubmitted] = useState(false)
  const { errors: serverErrors, setErrors: setServerErrors, formError, busy, submit: send } = useSubmit()
  const [deleting, setDeleting] = useState(false)
  const models = useQuery(() => call('models.list', {}), [])
  const input = useMemo(() => inputOf(draft), [draft])
  const clientErrors = useMemo(() => validate(presetInput, input), [input])
  const valid = Object.keys(clientErrors).length === 0
  const errorFor = (f: string) => {
    const c = errorAt(clientErrors, f)
    return (submitted || touched[f]) && c ? c : serverErrors[f]
  }
  const set = (f: keyof PresetDraft) => (e: { target: { value: string } }) => {
    setDraft((d) => ({ ...d, [f]: e.target.value }))
    setServerErrors((s) => {
      const { [f]: _, ...rest } = s
      return rest
    })
  }
  const blur = (f: string) => () => setTouched((t) => ({ ...t, [f]: true }))
  const readOnly = !isAdmin

  const submit = (e: FormEvent) => {
    e.preventDefault()
    setSubmitted(true)
    send(valid, async () => {
      const p = await call('presets.save', input)
      toast(isNew ? `Preset “${p.name}” created` : `Saved “${p.name}” as v${p.version}`)
      if (isNew) navigate(href('presets', p.name))
      else onChanged()
    })
  }

  const chatModels = (models.data ?? []).filter((m) => m.kind !== 'embedding')
  return (
    <div data-testid="preset-editor">
      <PageHeader
        title={isNew ? 'New preset' : draft.name}
        back={{ href: '#/presets', label: 'Presets' }}
        subtitle={data ? `Version ${data.preset.version}` : 'Pin a model, system prompt and parameters under a name.'}
        actions={
          !isNew &&
          isAdmin && (
            <button type="button" className="btn btn-danger-ghost" onClick={() => setDeleting(true)} data-testid="preset-delete">
              Delete
            </button>
          )
        }
      />
      {readOnly && (
        <div className="callout" role="note">
          Only admins can change presets. You can use this one as a model: <code>@preset/{draft.name}</code>.
        </div>
      )}
      <div className="grid-2 grid-editor">
        <Section title="Settings" testId="preset-form-section">
          <form onSubmit={submit} noValidate data-testid="preset-form">
            <fieldset disabled={readOnly} className="plain">
              <legend className="sr-only">Preset settings</legend>
              <Field
                label="Name"
                error={errorFor('name')}
                hint={
                  isNew ? 'A slug: lower-case letters, digits, - and _. Callers use @preset/<name>.' : 'The name cannot change; save under a new name to copy.'
                }
              >
                <input value={draft.name} onChange={set('name')} onBlur={blur('name')} readOnly={!isNew} data-testid="preset-name" autoFocus={isNew} />
              </Field>
              <Field label="Model" error={errorFor('model')} hint="provider/model (openai/gpt-6-luna) or a bare catalog id (gpt-6-luna).">
                <input value={draft.model} onChange={set('model')} onBlur={blur('model')} list="preset-models" data-testid="preset-model" />
              </Field>
              <datalist id="preset-models">
                {chatModels.map((m) => (
                  <option key={m.id} value={m.id} />
                ))}
              </datalist>
              <Field label="System prompt" error={errorFor('system_prompt')} hint="Inserted as the first message of every request.">
                <textarea rows={5} value={draft.system_prompt} onChange={set('system_prompt')} onBlur={blur('system_prompt')} data-testid="preset-system" />
              </Field>
              <div className="form-grid form-grid-3">
                <Field label="Temperature" error={errorFor('temperature')} hint="0–2; empty passes the caller’s">
                  <input
                    inputMode="decimal"
                    value={draft.temperature}
                    onChange={set('temperature')}
                    onBlur={blur('temperature')}
                    data-testid="preset-temperature"
                  />
                </Field>
                <Field label="top_p" error={errorFor('top_p')} hint="0–1">
                  <input inputMode="decimal" value={draft.top_p} onChange={set('top_p')} onBlur={blur('top_p')} data-testid="preset-top-p" />
                </Field>
                <Field label="Max tokens" error={errorFor('max_tokens')} hint="Positive whole number">
                  <input
                    inputMode="numeric"
                    value={draft.max_tokens}
                    onChange={set('max_tokens')}
                    onBlur={blur('max_tokens')}
                    data-testid="preset-max-tokens"
                  />
                </Field>
              </div>
              <Field
                label="Fallback models"
                error={errorFor('fallbacks') ?? errorFor('equal_candidates')}
                hint="Comma-separated, tried in order when the model fails (at most 5)."
              >
                <input value={draft.fallbacks} onChange={set('fallbacks')} onBlur={blur('fallbacks')} data-testid="preset-fallbacks" />
              </Field>
              <Checkbox
                label="The model and its fallbacks are equals"
                hint="Requests take them in turn; each session stays on the one that holds its prompt cache until it fails."
                checked={draft.equal_candidates}
                onChange={(on) => setDraft((d) => ({ ...d, equal_candidates: on }))}
                testId="preset-equal-candidates"
              />
              <div className="form-grid">
                <Field label="Soft cap model" error={errorFor('soft_cap.model')} hint="A cheaper priced chat model for when a key's spend limit is near.">
                  <input
                    value={draft.soft_cap_model}
                    onChange={set('soft_cap_model')}
                    onBlur={blur('soft_cap_model')}
                    list="preset-models"
                    placeholder="none"
                    data-testid="preset-soft-cap-model"
                  />
                </Field>
                <Field label="Soft cap at (%)" error={errorFor('soft_cap.at_percent')} hint="Of the key's spend limits; a key's own soft cap wins.">
                  <input
                    inputMode="numeric"
                    value={draft.soft_cap_at}
                    onChange={set('soft_cap_at')}
                    onBlur={blur('soft_cap_at')}
                    placeholder="80"
                    data-testid="preset-soft-cap-at"
                  />
                </Field>
              </div>
              <Field label="Description" error={errorFor('description')}>
                <input value={draft.description} onChange={set('description')} onBlur={blur('description')} data-testid="preset-description" />
              </Field>
              <Field
                label="Response cache"
                error={errorFor('response_cache_ttl_s')}
                hint="Keep the answers to this preset’s deterministic requests (temperature 0) for 30m, 1h, 7d…, and answer exact repeats from them at $0. Empty: off."
              >
                <input
                  value={draft.cache_ttl}
                  onChange={set('cache_ttl')}
                  onBlur={blur('response_cache_ttl_s')}
                  placeholder="off"
                  data-testid="preset-cache-ttl"
                />
              </Field>
              <Checkbox
                label="Share cached answers between keys"
                hint="Off: each key is answered only from its own cached answers."
                checked={draft.cache_shared}
                onChange={(on) => setDraft((d) => ({ ...d, cache_shared: on }))}
                testId="preset-cache-shared"
              />
              <FormError message={formError} />
              {isAdmin && (
                <div className="form-actions">
                  <button className="btn btn-primary" disabled={busy} data-testid="preset-save">
                    {busy ? 'Saving…' : isNew ? 'Create preset' : 'Save new version'}
                  </button>
                </div>
              )}
            </fieldset>
          </form>
        </Section>
        <PresetPreview input={input} valid={valid} />
      </div>
      {data && (
        <>
          <Section title="Keys using it as default" testId="preset-keys">
            {data.default_of_keys.length === 0 ? (
              <p className="muted">
                No key has this preset as default. Set it on a key’s page under <a href="#/keys">Keys</a>.
              </p>
            ) : (
              <ul className="plain-list">
                {data.default_of_keys.map((k) => (
                  <li key={k.id}>
                    <a href={href('keys', k.id)}>{k.name}</a>
                  </li>
                ))}
              </ul>
            )}
          </Section>
          <PresetHistory versions={data.versions} isAdmin={isAdmin} onRestored={onChanged} />
        </>
      )}
      {deleting && data && (
        <ConfirmDialog
          title={`Delete “${data.preset.name}”?`}
          message="Requests naming it will get 404 afterwards. A preset that is a key’s default cannot be deleted."
          confirmLabel="Delete preset"
          danger
          busy={busy}
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await call('presets.delete', { name: data.preset.name })
            toast(`Preset “${data.preset.name}” deleted`)
            navigate('#/presets')
          }}
        />
      )}
    </div>
  )
}

export type { Preset }
