import { useState, type ChangeEvent, type FormEvent } from 'react'
import { operations, type Input } from '../../../../contract'
import type { KeySummary } from '../../../../contract/keys'
import { call } from '../../api/client'
import { Checkbox, Field, FormError } from '../../components/Field'
import { Facts, Section } from '../../components/Page'
import { useToast } from '../../components/Toasts'
import { numOrNull, usd } from '../../lib/format'
import { formatDuration, parseDuration } from '../../../../contract/duration'
import { useQuery } from '../../lib/useQuery'
import { errorAt, useFields, useSubmit } from '../../lib/useForm'
import { validate } from '../../lib/validate'
import { PresetOptions } from './PresetOptions'
import { policyDraft, policyOf, softCapPath, type PolicyDraft } from './policyForm'

type Update = Input<'keys.update'>

/** Saves part of a key's settings with inline errors; field names match the contract's paths. */
function useKeyUpdate(k: KeySummary, onSaved: (k: KeySummary) => void, what: string) {
  const toast = useToast()
  const { errors, formError, busy, submit } = useSubmit()
  const save = (patch: Omit<Update, 'id'>) => {
    const input = { id: k.id, ...patch }
    submit(validate(operations['keys.update'].input, input), async () => {
      onSaved(await call('keys.update', input))
      toast(`${what} saved`)
    })
  }
  return { errors, formError, busy, save }
}

export function DefaultPresetForm({ k, onSaved, disabled }: { k: KeySummary; onSaved: (k: KeySummary) => void; disabled: boolean }) {
  const presets = useQuery(() => call('presets.list', {}), [])
  const { v, set } = useFields({ default_preset: k.default_preset ?? '' })
  const u = useKeyUpdate(k, onSaved, 'Default preset')
  return (
    <Section
      title="Default preset"
      testId="key-default-preset"
      description="Applied to every chat request of this key that names no preset itself, whatever model it sends."
    >
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault()
          u.save({ default_preset: v.default_preset || null })
        }}
      >
        <Field label="Preset" error={u.errors.default_preset}>
          <select value={v.default_preset} onChange={set('default_preset')} disabled={disabled} data-testid="default-preset-select">
            <option value="">None — use the model each request names</option>
            <PresetOptions presets={presets.data} />
          </select>
        </Field>
        <button className="btn btn-primary" disabled={disabled || u.busy || v.default_preset === (k.default_preset ?? '')} data-testid="default-preset-save">
          Save
        </button>
      </form>
      {presets.data && presets.data.length === 0 && (
        <p className="muted">
          No presets yet. <a href="#/presets/new">Create a preset</a> to steer this key’s requests centrally.
        </p>
      )}
      <FormError message={u.formError} />
    </Section>
  )
}

/** The key's response cache: off, or a TTL for which its deterministic requests' answers are kept. */
export function ResponseCacheForm({ k, onSaved, disabled }: { k: KeySummary; onSaved: (k: KeySummary) => void; disabled: boolean }) {
  const current = k.response_cache_ttl_s === null ? '' : formatDuration(k.response_cache_ttl_s)
  const { v, set } = useFields({ ttl: current })
  const u = useKeyUpdate(k, onSaved, 'Response cache')
  const [error, setError] = useState<string | undefined>(undefined)
  return (
    <Section
      title="Response cache"
      testId="key-response-cache"
      description="Keeps the answers to this key's deterministic requests (temperature 0, one choice) and answers exact repeats from them at $0. A request can also ask with X-Gw-Cache or gw.cache, or stay out with X-Gw-Cache: off."
    >
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault()
          const text = v.ttl.trim()
          const seconds = text === '' ? null : parseDuration(text)
          if (seconds === 0 || (text !== '' && seconds === null)) return setError('a duration such as 30m, 1h or 7d; empty turns the cache off')
          setError(undefined)
          u.save({ response_cache_ttl_s: seconds })
        }}
      >
        <Field label="Keep answers for" error={error ?? u.errors.response_cache_ttl_s} hint="30m, 1h, 7d… at most 30 days. Empty: off.">
          <input value={v.ttl} onChange={set('ttl')} placeholder="off" disabled={disabled} data-testid="key-cache-ttl" />
        </Field>
        <button className="btn btn-primary" disabled={disabled || u.busy || v.ttl.trim() === current} data-testid="key-cache-save">
          Save
        </button>
      </form>
      <FormError message={u.formError} />
    </Section>
  )
}

const adminNote = (
  <p className="muted small" data-testid="admin-only-note">
    Only an admin can change this.
  </p>
)

/** What the key spent so far against a limit (or with none). */
// Priced requests only, as the limits count them: what an unpriced request cost is unknown.
const spentOf = (spent: number, limit: number | null) =>
  limit === null ? `${usd(spent)}, no limit` : `${usd(spent)} of ${usd(limit)} (${Math.min(999, Math.floor((spent / limit) * 100))}%)`

/** A text field of a key's settings, named as the contract's field so that its error finds it. */
interface TextSpec<N extends string> {
  name: N
  label: string
  hint?: string
  placeholder: string
  testId: string
  inputMode?: 'numeric' | 'decimal'
}

/** The text fields of one settings form, each with its error. */
function TextFields<N extends string>(props: {
  specs: ReadonlyArray<TextSpec<N>>
  v: Record<N, string>
  set: (name: N) => (e: ChangeEvent<HTMLInputElement>) => void
  errorOf: (name: N) => string | undefined
  disabled: boolean
}) {
  return props.specs.map((s) => (
    <Field key={s.name} label={s.label} error={props.errorOf(s.name)} hint={s.hint}>
      <input
        inputMode={s.inputMode}
        value={props.v[s.name]}
        onChange={props.set(s.name)}
        disabled={props.disabled}
        placeholder={s.placeholder}
        data-testid={s.testId}
      />
    </Field>
  ))
}

const LIMITS: ReadonlyArray<TextSpec<'daily_limit_usd' | 'monthly_limit_usd'>> = [
  { name: 'daily_limit_usd', label: 'Daily limit (USD)', placeholder: 'no limit', testId: 'limit-daily', inputMode: 'decimal' },
  { name: 'monthly_limit_usd', label: 'Monthly limit (USD)', placeholder: 'no limit', testId: 'limit-monthly', inputMode: 'decimal' },
]

export function LimitsForm({
  k,
  spent,
  onSaved,
  disabled,
  adminOnly,
}: {
  k: KeySummary
  spent: { today_usd: number; month_usd: number }
  onSaved: (k: KeySummary) => void
  disabled: boolean
  adminOnly?: boolean
}) {
  const { v, set } = useFields({ daily_limit_usd: k.daily_limit_usd?.toString() ?? '', monthly_limit_usd: k.monthly_limit_usd?.toString() ?? '' })
  const u = useKeyUpdate(k, onSaved, 'Spend limits')
  return (
    <Section
      title="Spend limits"
      testId="key-limits"
      description="Requests are refused with 402 once the key has spent this much in the current UTC day or month. Leave empty for no limit."
    >
      {adminOnly && adminNote}
      <div className="spent">
        <Facts
          testId="key-spent"
          items={[
            [
              'Spent today (UTC)',
              <span key="d" data-testid="key-spent-today">
                {spentOf(spent.today_usd, k.daily_limit_usd)}
              </span>,
            ],
            [
              'Spent this month (UTC)',
              <span key="m" data-testid="key-spent-month">
                {spentOf(spent.month_usd, k.monthly_limit_usd)}
              </span>,
            ],
          ]}
        />
      </div>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault()
          u.save({ daily_limit_usd: numOrNull(v.daily_limit_usd), monthly_limit_usd: numOrNull(v.monthly_limit_usd) })
        }}
      >
        <TextFields specs={LIMITS} v={v} set={set} errorOf={(name) => u.errors[name]} disabled={disabled} />
        <button className="btn btn-primary" disabled={disabled || u.busy} data-testid="limits-save">
          Save limits
        </button>
      </form>
      <FormError message={u.formError} />
    </Section>
  )
}

type SoftCapField = keyof typeof softCapPath

const SOFT_CAP: ReadonlyArray<TextSpec<SoftCapField>> = [
  {
    name: 'soft_cap_model',
    label: 'Soft cap model',
    hint: 'A cheaper priced chat model this policy allows: openai/gpt-4o-mini',
    placeholder: 'none',
    testId: 'policy-soft-cap-model',
  },
  {
    name: 'soft_cap_at',
    label: 'Soft cap at (%)',
    hint: 'Of each spend limit (daily, monthly, per session); the limit still refuses at 100 %.',
    placeholder: '80',
    testId: 'policy-soft-cap-at',
    inputMode: 'numeric',
  },
]

const POLICY: ReadonlyArray<TextSpec<Exclude<keyof PolicyDraft, SoftCapField>>> = [
  { name: 'allowed_models', label: 'Allowed models', hint: 'Globs, comma-separated: gpt-4o*, openai/*', placeholder: 'any model', testId: 'policy-models' },
  {
    name: 'allowed_providers',
    label: 'Allowed providers',
    hint: 'Provider ids or globs: openai, groq',
    placeholder: 'any provider',
    testId: 'policy-providers',
  },
  {
    name: 'max_tokens',
    label: 'Max tokens per request',
    hint: 'Larger requests are refused; requests without a limit get this one.',
    placeholder: 'no ceiling',
    testId: 'policy-max-tokens',
    inputMode: 'numeric',
  },
  {
    name: 'max_cost_per_request_usd',
    label: 'Max cost per request (USD)',
    hint: 'Worst case at list price; unpriced models are refused.',
    placeholder: 'no ceiling',
    testId: 'policy-max-cost',
    inputMode: 'decimal',
  },
  { name: 'rpm', label: 'Requests per minute', hint: 'Sliding window; more get 429.', placeholder: 'unlimited', testId: 'policy-rpm', inputMode: 'numeric' },
  {
    name: 'max_session_usd',
    label: 'Max spend per session (USD)',
    hint: "Per session id (a coding agent's session); requests in flight count.",
    placeholder: 'no limit',
    testId: 'policy-session-usd',
    inputMode: 'decimal',
  },
  {
    name: 'max_session_requests',
    label: 'Max requests per session',
    hint: 'Stops a looping agent; requests in flight count.',
    placeholder: 'no limit',
    testId: 'policy-session-requests',
    inputMode: 'numeric',
  },
]

export function PolicyForm({ k, onSaved, disabled, adminOnly }: { k: KeySummary; onSaved: (k: KeySummary) => void; disabled: boolean; adminOnly?: boolean }) {
  const { v, set } = useFields(policyDraft(k.policy))
  const [presetOnly, setPresetOnly] = useState(!!k.policy.preset_only)
  const u = useKeyUpdate(k, onSaved, 'Policy')
  const submit = (e: FormEvent) => {
    e.preventDefault()
    u.save({ policy: policyOf(v, presetOnly) })
  }
  return (
    <Section
      title="Policy"
      testId="key-policy"
      description="Checked before anything reaches a provider; a refusal names the rule and sends nothing upstream. Empty fields mean no restriction."
    >
      {adminOnly && adminNote}
      <form onSubmit={submit} noValidate data-testid="policy-form">
        <div className="form-grid">
          <TextFields specs={POLICY} v={v} set={set} errorOf={(name) => errorAt(u.errors, `policy.${name}`)} disabled={disabled} />
        </div>
        <Checkbox
          label="Presets only (the model must be a preset, or the key's default preset applies)"
          checked={presetOnly}
          onChange={setPresetOnly}
          disabled={disabled}
          testId="policy-preset-only"
        />
        <h3>Soft cap</h3>
        <p className="muted small">Near a spend limit, requests go to a cheaper model instead of being refused.</p>
        <div className="form-grid" data-testid="policy-soft-cap">
          <TextFields
            specs={SOFT_CAP}
            v={v}
            set={set}
            errorOf={(name) =>
              name === 'soft_cap_model' ? (u.errors[softCapPath[name]] ?? u.errors['policy.soft_cap.model']) : errorAt(u.errors, softCapPath[name])
            }
            disabled={disabled}
          />
        </div>
        <FormError message={u.formError ?? u.errors.policy} />
        <div className="form-actions">
          <button className="btn btn-primary" disabled={disabled || u.busy} data-testid="policy-save">
            Save policy
          </button>
        </div>
      </form>
    </Section>
  )
}
