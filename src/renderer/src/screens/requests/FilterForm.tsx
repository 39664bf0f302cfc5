import { useState, type FormEvent } from 'react'
import type { KeySummary } from '../../../../contract/keys'
import { Field } from '../../components/Field'
import { FILTER_KEYS, SINCE, parseDimensions } from './filters'

const toLocal = (ms: string | null) => {
  if (!ms) return ''
  const d = new Date(Number(ms))
  if (Number.isNaN(d.getTime())) return ''
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`
}

/**
 * The filter form; applying it writes the hash query (Enter applies). On a narrow screen it folds
 * behind a "Filters" toggle counting the active ones, so the first rows are on the first screen.
 */
export function FilterForm(props: {
  query: URLSearchParams
  keys: KeySummary[]
  presets: string[]
  /** The gateways that served requests lately, by instance name. */
  instances: string[]
  active: number
  onApply: (q: Record<string, string>) => void
}) {
  const [open, setOpen] = useState(false)
  const q = props.query
  const initial = Object.fromEntries(FILTER_KEYS.map((k) => [k, q.get(k) ?? ''])) as Record<string, string>
  const [v, setV] = useState<Record<string, string>>({
    ...initial,
    since: q.get('since') ?? (q.get('from') || q.get('to') ? 'custom' : ''),
    from: toLocal(q.get('from')),
    to: toLocal(q.get('to')),
    dim: q.get('dim') ?? '',
  })
  const [errors, setErrors] = useState<Record<string, string>>({})
  // A gateway named in the link stays on offer, though it served nothing lately.
  const instances = v.instance && !props.instances.includes(v.instance) ? [...props.instances, v.instance] : props.instances
  const set = (k: string) => (e: { target: { value: string } }) => setV((s) => ({ ...s, [k]: e.target.value }))
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const errs: Record<string, string> = {}
    if (v.status && !/^(\d{3}|[245]xx)$/.test(v.status.trim())) errs.status = 'a status like 402, or 2xx, 4xx, 5xx'
    const d = parseDimensions(v.dim)
    if (typeof d === 'string') errs.dim = d
    if (v.since === 'custom' && v.from && v.to && new Date(v.from) > new Date(v.to)) errs.to = 'must be after the start'
    setErrors(errs)
    if (Object.keys(errs).length) return
    const out: Record<string, string> = {}
    for (const k of FILTER_KEYS) if (v[k]?.trim()) out[k] = v[k].trim()
    if (v.since === 'custom') {
      if (v.from) out.from = String(new Date(v.from).getTime())
      if (v.to) out.to = String(new Date(v.to).getTime())
    } else if (v.since) out.since = v.since
    if (v.dim.trim()) out.dim = v.dim.trim()
    props.onApply(out)
  }
  const text = (k: string, label: string, placeholder?: string) => (
    <Field label={label} error={errors[k]}>
      <input value={v[k]} onChange={set(k)} placeholder={placeholder} data-testid={`filter-${k}`} />
    </Field>
  )
  return (
    <>
      <button
        type="button"
        className="btn filters-toggle"
        aria-expanded={open}
        aria-controls="requests-filters"
        onClick={() => setOpen((o) => !o)}
        data-testid="filters-toggle"
      >
        Filters{props.active ? ` (${props.active})` : ''}
      </button>
      <form
        id="requests-filters"
        className={open ? 'card filters filters-open' : 'card filters'}
        onSubmit={submit}
        noValidate
        data-testid="requests-filters"
        aria-label="Filter requests"
      >
        <div className="filter-grid">
          <Field label="Time">
            <select value={v.since} onChange={set('since')} data-testid="filter-since">
              {SINCE.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.label}
                </option>
              ))}
              <option value="custom">Custom…</option>
            </select>
          </Field>
          {v.since === 'custom' && (
            <>
              <Field label="From" error={errors.from}>
                <input type="datetime-local" value={v.from} onChange={set('from')} data-testid="filter-from" />
              </Field>
              <Field label="To" error={errors.to}>
                <input type="datetime-local" value={v.to} onChange={set('to')} data-testid="filter-to" />
              </Field>
            </>
          )}
          <Field label="Key">
            <select value={v.key_id} onChange={set('key_id')} data-testid="filter-key_id">
              <option value="">Any key</option>
              {props.keys.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name}
                  {k.revoked_at ? ' (revoked)' : ''}
                </option>
              ))}
            </select>
          </Field>
          {text('model', 'Model', 'as requested')}
          <Field label="Preset">
            <select value={v.preset} onChange={set('preset')} data-testid="filter-preset">
              <option value="">Any</option>
              {props.presets.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </Field>
          {text('provider', 'Provider', 'openai')}
          {text('status', 'Status', '402 or 4xx')}
          <Field label="Outcome">
            <select value={v.outcome} onChange={set('outcome')} data-testid="filter-outcome">
              <option value="">Any</option>
              <option value="ok">ok</option>
              <option value="error">error</option>
              <option value="aborted">aborted</option>
            </select>
          </Field>
          <Field label="Source">
            <select value={v.source} onChange={set('source')} data-testid="filter-source">
              <option value="">Any</option>
              <option value="api">API</option>
              <option value="playground">Playground</option>
            </select>
          </Field>
          <Field label="Gateway">
            <select value={v.instance} onChange={set('instance')} data-testid="filter-instance">
              <option value="">Any</option>
              {instances.map((i) => (
                <option key={i} value={i} data-testid="filter-instance-option">
                  {i}
                </option>
              ))}
            </select>
          </Field>
          {text('user_id', 'User id')}
          {text('trace_id', 'Trace id')}
          {text('session_id', 'Session id')}
          {text('tag', 'Tag')}
          {text('dim', 'Dimensions', 'team=search, env=prod')}
        </div>
        <div className="form-actions">
          <button type="button" className="btn" onClick={() => props.onApply({})} data-testid="filters-reset">
            Clear filters
          </button>
          <button className="btn btn-primary" data-testid="filters-apply">
            Apply filters
          </button>
        </div>
      </form>
    </>
  )
}
