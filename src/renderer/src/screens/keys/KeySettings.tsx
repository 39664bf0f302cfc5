import { useState, type FormEvent } from 'react'
import { operations, type Input } from '../../../../contract'
import type { KeyPolicy, KeySummary } from '../../../../contract/keys'
import { call } from '../../api/client'
import { Checkbox, Field, FormError } from '../../components/Field'
import { Facts, Section } from '../../components/Page'
import { useToast } from '../../components/Toasts'
import { list, numOrNull, numOrUndef, usd } from '../../lib/format'
import { useQuery } from '../../lib/useQuery'
import { errorAt, useSubmit } from '../../lib/useForm'
import { validate } from '../../lib/validate'
import { PresetOptions } from './PresetOptions'

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
  const [value, setValue] = useState(k.default_preset ?? '')
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
          u.save({ default_preset: value || null })
        }}
      >
        <Field label="Preset" error={u.errors.default_preset}>
          <select value={value} onChange={(e) => setValue(e.target.value)} disabled={disabled} data-testid="default-preset-select">
            <option value="">None — use the model each request names</option>
            <PresetOptions presets={presets.data} />
          </select>
        </Field>
        <button className="btn btn-primary" disabled={disabled || u.busy || value === (k.default_preset ?? '')} data-testid="default-preset-save">
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

const adminNote = (
  <p className="muted small" data-testid="admin-only-note">
    Only an admin can change this.
  </p>
)

/** What the key spent so far against a limit (or with none). */
// Priced requests only, as the limits count them: what an unpriced request cost is unknown.
const spentOf = (spent: number, limit: number | null) =>
  limit === null ? `${usd(spent)}, no limit` : `${usd(spent)} of ${usd(limit)} (${Math.min(999, Math.floor((spent / limit) * 100))}%)`

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
  const [daily, setDaily] = useState(k.daily_limit_usd?.toString() ?? '')
  const [monthly, setMonthly] = useState(k.monthly_limit_usd?.toString() ?? '')
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
          u.save({ daily_limit_usd: numOrNull(daily), monthly_limit_usd: numOrNull(monthly) })
        }}
      >
        <Field label="Daily limit (USD)" error={u.errors.daily_limit_usd}>
          <input
            inputMode="decimal"
            value={daily}
            onChange={(e) => setDaily(e.target.value)}
            disabled={disabled}
            placeholder="no limit"
            data-testid="limit-daily"
          />
        </Field>
        <Field label="Monthly limit (USD)" error={u.errors.monthly_limit_usd}>
          <input
            inputMode="decimal"
            value={monthly}
            onChange={(e) => setMonthly(e.target.value)}
            disabled={disabled}
            placeholder="no limit"
            data-testid="limit-monthly"
          />
        </Field>
        <button className="btn btn-primary" disabled={disabled || u.busy} data-testid="limits-save">
          Save limits
        </button>
      </form>
      <FormError message={u.formError} />
    </Section>
  )
}

export function PolicyForm({ k, onSaved, disabled, adminOnly }: { k: KeySummary; onSaved: (k: KeySummary) => void; disabled: boolean; adminOnly?: boolean }) {
  const p = k.policy
  const [models, setModels] = useState((p.allowed_models ?? []).join(', '))
  const [providers, setProviders] = useState((p.allowed_providers ?? []).join(', '))
  const [presetOnly, setPresetOnly] = useState(!!p.preset_only)
  const [maxTokens, setMaxTokens] = useState(p.max_tokens?.toString() ?? '')
  const [maxCost, setMaxCost] = useState(p.max_cost_per_request_usd?.toString() ?? '')
  const [rpm, setRpm] = useState(p.rpm?.toString() ?? '')
  const [sessionUsd, setSessionUsd] = useState(p.max_session_usd?.toString() ?? '')
  const [sessionRequests, setSessionRequests] = useState(p.max_session_requests?.toString() ?? '')
  const u = useKeyUpdate(k, onSaved, 'Policy')
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const policy: KeyPolicy = {}
    const m = list(models)
    const pr = list(providers)
    if (m.length) policy.allowed_models = m
    if (pr.length) policy.allowed_providers = pr
    if (presetOnly) policy.preset_only = true
    const mt = numOrUndef(maxTokens)
    const mc = numOrUndef(maxCost)
    const r = numOrUndef(rpm)
    const su = numOrUndef(sessionUsd)
    const sr = numOrUndef(sessionRequests)
    if (mt !== undefined) policy.max_tokens = mt
    if (mc !== undefined) policy.max_cost_per_request_usd = mc
    if (r !== undefined) policy.rpm = r
    if (su !== undefined) policy.max_session_usd = su
    if (sr !== undefined) policy.max_session_requests = sr
    u.save({ policy })
  }
  const err = (f: string) => errorAt(u.errors, `policy.${f}`)
  return (
    <Section
      title="Policy"
      testId="key-policy"
      description="Checked before anything reaches a provider; a refusal names the rule and sends nothing upstream. Empty fields mean no restriction."
    >
      {adminOnly && adminNote}
      <form onSubmit={submit} noValidate data-testid="policy-form">
        <div className="form-grid">
          <Field label="Allowed models" error={err('allowed_models')} hint="Globs, comma-separated: gpt-4o*, openai/*">
            <input value={models} onChange={(e) => setModels(e.target.value)} disabled={disabled} placeholder="any model" data-testid="policy-models" />
          </Field>
          <Field label="Allowed providers" error={err('allowed_providers')} hint="Provider ids or globs: openai, groq">
            <input
              value={providers}
              onChange={(e) => setProviders(e.target.value)}
              disabled={disabled}
              placeholder="any provider"
              data-testid="policy-providers"
            />
          </Field>
          <Field label="Max tokens per request" error={err('max_tokens')} hint="Larger requests are refused; requests without a limit get this one.">
            <input
              inputMode="numeric"
              value={maxTokens}
              onChange={(e) => setMaxTokens(e.target.value)}
              disabled={disabled}
              placeholder="no ceiling"
              data-testid="policy-max-tokens"
            />
          </Field>
          <Field label="Max cost per request (USD)" error={err('max_cost_per_request_usd')} hint="Worst case at list price; unpriced models are refused.">
            <input
              inputMode="decimal"
              value={maxCost}
              onChange={(e) => setMaxCost(e.target.value)}
              disabled={disabled}
              placeholder="no ceiling"
              data-testid="policy-max-cost"
            />
          </Field>
          <Field label="Requests per minute" error={err('rpm')} hint="Sliding window; more get 429.">
            <input
              inputMode="numeric"
              value={rpm}
              onChange={(e) => setRpm(e.target.value)}
              disabled={disabled}
              placeholder="unlimited"
              data-testid="policy-rpm"
            />
          </Field>
          <Field label="Max spend per session (USD)" error={err('max_session_usd')} hint="Per session id (a coding agent's session); requests in flight count.">
            <input
              inputMode="decimal"
              value={sessionUsd}
              onChange={(e) => setSessionUsd(e.target.value)}
              disabled={disabled}
              placeholder="no limit"
              data-testid="policy-session-usd"
            />
          </Field>
          <Field label="Max requests per session" error={err('max_session_requests')} hint="Stops a looping agent; requests in flight count.">
            <input
              inputMode="numeric"
              value={sessionRequests}
              onChange={(e) => setSessionRequests(e.target.value)}
              disabled={disabled}
              placeholder="no limit"
              data-testid="policy-session-requests"
            />
          </Field>
        </div>
        <Checkbox
          label="Presets only (the model must be a preset, or the key's default preset applies)"
          checked={presetOnly}
          onChange={setPresetOnly}
          disabled={disabled}
          testId="policy-preset-only"
        />
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
