import { useState, type ChangeEvent, type FormEvent } from 'react'
import { operations, type Output } from '../../../../contract'
import type { ProviderDialect, ProviderWire } from '../../../../contract/providers'
import { call } from '../../api/client'
import { toApiError } from '../../api/errors'
import { Field, FormError } from '../../components/Field'
import { Badge } from '../../components/Page'
import { ConfirmDialog } from '../../components/Dialog'
import { useToast } from '../../components/Toasts'
import { dateTime, ms } from '../../lib/format'
import { useSubmit } from '../../lib/useForm'
import { validate } from '../../lib/validate'

type Provider = Output<'providers.list'>[number]
type Status = Output<'providers.test'>

const envVar = (id: string) => `${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_API_KEY`

/** Where the key in use comes from, in the badge's words. */
const SOURCE: Record<NonNullable<Provider['credential']>['source'], (p: Provider) => string> = {
  env: (p) => `from ${envVar(p.id)}`,
  keychain: () => 'in the OS keychain',
  database: () => 'in the database, encrypted',
}

export function CredentialState({ p }: { p: Provider }) {
  if (p.credential)
    return (
      <span data-testid="provider-credential">
        <Badge kind="ok">{SOURCE[p.credential.source](p)}</Badge> <code>••••{p.credential.last4}</code>
      </span>
    )
  return <span data-testid="provider-credential">{p.local ? <Badge>no key needed</Badge> : <Badge kind="warn">no key</Badge>}</span>
}

function TestResult({ s, keyStore }: { s: Status; keyStore: string }) {
  return s.ok ? (
    <div className="callout callout-ok" role="status" data-testid="provider-test-result" data-ok="true">
      Connected in {ms(s.latency_ms)} · the provider lists {s.models} model{s.models === 1 ? '' : 's'} · {dateTime(s.checked_at)}
    </div>
  ) : (
    <div className="callout callout-danger" role="alert" data-testid="provider-test-result" data-ok="false">
      <strong>Connection failed:</strong> {s.reason}
      {s.fix === 'api_key' && (
        <>
          . Enter the key in <em>API key</em> above and save it; it is kept in {keyStore}.
        </>
      )}
    </div>
  )
}

/** A provider setting chosen from a list, in the add dialog and on the card alike. */
interface ChoiceProps {
  value: string
  onChange: (e: ChangeEvent<HTMLSelectElement>) => void
  error?: string
  testId: string
}

/** Which of OpenAI's APIs a provider of kind openai serves natively. */
export function WireField({ value, onChange, error, testId }: ChoiceProps) {
  return (
    <Field
      label="APIs it serves"
      error={error}
      hint="Responses (Codex) pass through to a provider that serves them, and are translated to chat completions for any other."
    >
      <select value={value} onChange={onChange} data-testid={testId}>
        <option value="chat">Chat completions</option>
        <option value="responses">Responses</option>
        <option value="both">Both</option>
      </select>
    </Field>
  )
}

/** Whose quirks a provider of kind openai has; an added one follows its base URL's host until one is chosen. */
export function DialectField({
  value,
  onChange,
  error,
  testId,
  derived,
}: ChoiceProps & {
  /** Offer "from the base URL" (an added provider before it is saved). */
  derived?: boolean
}) {
  return (
    <Field
      label="Dialect"
      error={error}
      hint="Which provider's variant of chat completions it speaks: OpenAI's for Azure OpenAI or a proxy in front of OpenAI (token limits as max_completion_tokens)."
    >
      <select value={value} onChange={onChange} data-testid={testId}>
        {derived && <option value="">From the base URL</option>}
        <option value="openai">OpenAI</option>
        <option value="gemini">Gemini</option>
        <option value="xai">xAI</option>
        <option value="generic">Other OpenAI-compatible</option>
      </select>
    </Field>
  )
}

/** One provider: credential state, key, base URL, wire and dialect forms, connection test. */
export function ProviderCard({ p, onChanged }: { p: Provider; onChanged: (p: Provider | null) => void }) {
  const toast = useToast()
  const [apiKey, setApiKey] = useState('')
  const [baseUrl, setBaseUrl] = useState(p.base_url)
  const [wire, setWire] = useState(p.wire ?? 'chat')
  const [dialect, setDialect] = useState(p.dialect ?? 'generic')
  const { errors, formError, busy: saving, submit } = useSubmit<'key' | 'url' | 'wire' | 'dialect'>()
  const [testing, setTesting] = useState(false)
  const busy = saving || (testing && 'test')
  const [result, setResult] = useState<Status | null>(null)
  const [removing, setRemoving] = useState(false)

  const save = (what: 'key' | 'url' | 'wire' | 'dialect', e: FormEvent) => {
    e.preventDefault()
    const input =
      what === 'key'
        ? { id: p.id, api_key: apiKey }
        : what === 'url'
          ? { id: p.id, base_url: baseUrl.trim() || null }
          : what === 'wire'
            ? { id: p.id, wire: wire as ProviderWire }
            : { id: p.id, dialect: dialect as ProviderDialect }
    const errs = validate(operations['providers.set'].input, input)
    if (what === 'key' && !apiKey.trim()) errs.api_key = 'paste the provider’s API key'
    submit(
      errs,
      async () => {
        const np = await call('providers.set', input)
        if (what === 'key') setApiKey('')
        setResult(null)
        toast(
          what === 'key'
            ? `Key for ${p.label} saved in ${p.key_store}`
            : what === 'url'
              ? `Base URL of ${p.label} saved`
              : what === 'wire'
                ? `APIs ${p.label} serves saved`
                : `Dialect of ${p.label} saved`,
        )
        onChanged(np)
      },
      { as: what },
    )
  }
  const test = async () => {
    setTesting(true)
    setResult(null)
    try {
      setResult(await call('providers.test', { id: p.id }))
    } catch (err) {
      setResult({ ok: false, reason: toApiError(err).message, checked_at: Date.now() })
    } finally {
      setTesting(false)
    }
  }
  return (
    <section className="card provider" data-testid="provider-card" data-provider-id={p.id} aria-labelledby={`prov-${p.id}`}>
      <div className="card-head">
        <h2 id={`prov-${p.id}`}>
          {p.label} <span className="muted small">{p.id}</span>
        </h2>
        <div className="card-actions">
          {p.local && <Badge>local</Badge>}
          <Badge>{p.kind}</Badge>
          <CredentialState p={p} />
        </div>
      </div>
      {p.credential?.source === 'env' && (
        <p className="small muted">
          <code>{envVar(p.id)}</code> is set where the gateway runs; it wins over a key saved here.
        </p>
      )}
      <div className="provider-forms">
        {!p.local && (
          <form className="inline-form" onSubmit={(e) => save('key', e)} noValidate data-testid="provider-key-form">
            <Field label={p.credential ? 'Replace API key' : 'API key'} error={errors.api_key} hint={`Stored in ${p.key_store}, never shown again.`}>
              <input type="password" autoComplete="off" value={apiKey} onChange={(e) => setApiKey(e.target.value)} data-testid="provider-key-input" />
            </Field>
            <button className="btn btn-primary" disabled={busy !== false} data-testid="provider-key-save">
              {busy === 'key' ? 'Saving…' : 'Save key'}
            </button>
          </form>
        )}
        <form className="inline-form" onSubmit={(e) => save('url', e)} noValidate data-testid="provider-url-form">
          <Field label="Base URL" error={errors.base_url}>
            <input value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} data-testid="provider-url-input" />
          </Field>
          <button className="btn" disabled={busy !== false || baseUrl === p.base_url} data-testid="provider-url-save">
            Save URL
          </button>
        </form>
        {p.wire !== null && (
          <form className="inline-form" onSubmit={(e) => save('wire', e)} noValidate data-testid="provider-wire-form">
            <WireField value={wire} onChange={(e) => setWire(e.target.value as ProviderWire)} error={errors.wire} testId="provider-wire-input" />
            <button className="btn" disabled={busy !== false || wire === p.wire} data-testid="provider-wire-save">
              Save
            </button>
          </form>
        )}
        {p.dialect !== null && (
          <form className="inline-form" onSubmit={(e) => save('dialect', e)} noValidate data-testid="provider-dialect-form">
            <DialectField
              value={dialect}
              onChange={(e) => setDialect(e.target.value as ProviderDialect)}
              error={errors.dialect}
              testId="provider-dialect-input"
            />
            <button className="btn" disabled={busy !== false || dialect === p.dialect} data-testid="provider-dialect-save">
              Save
            </button>
          </form>
        )}
      </div>
      <FormError message={formError} />
      <div className="form-actions form-actions-left">
        <button type="button" className="btn" onClick={test} disabled={busy !== false} data-testid="provider-test">
          {busy === 'test' ? 'Testing…' : 'Test connection'}
        </button>
        {p.stored && (
          <button type="button" className="btn btn-danger-ghost" onClick={() => setRemoving(true)} data-testid="provider-remove">
            Remove
          </button>
        )}
      </div>
      {result && <TestResult s={result} keyStore={p.key_store} />}
      {removing && (
        <ConfirmDialog
          title={`Remove ${p.label}?`}
          message={`Removes its stored settings and its key in ${p.key_store}. A built-in provider goes back to its defaults.`}
          confirmLabel="Remove"
          danger
          onClose={() => setRemoving(false)}
          onConfirm={async () => {
            await call('providers.remove', { id: p.id })
            toast(`${p.label} removed`)
            setRemoving(false)
            onChanged(null)
          }}
        />
      )}
    </section>
  )
}
