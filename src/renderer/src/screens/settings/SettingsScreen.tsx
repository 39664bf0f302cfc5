import { useState, type FormEvent } from 'react'
import { operations, type Output } from '../../../../contract'
import { call, transport } from '../../api/client'
import { useQuery } from '../../lib/useQuery'
import { bytes, list, numOrNull, plural } from '../../lib/format'
import { errorAt, useFields, useSubmit } from '../../lib/useForm'
import { validate } from '../../lib/validate'
import { Checkbox, Field, FormError } from '../../components/Field'
import { PageHeader, Section, Facts } from '../../components/Page'
import { Pending } from '../../components/States'
import { useToast } from '../../components/Toasts'
import { ResponseCache } from './ResponseCache'

type Settings = Output<'settings.get'>

function SettingsForm({ s, onSaved }: { s: Settings; onSaved: (s: Settings) => void }) {
  const toast = useToast()
  const { v, set } = useFields({
    port: String(s.port),
    bind: s.bind,
    allowed_hosts: s.allowed_hosts.join(', '),
    cors_origins: s.cors_origins.join(', '),
    retention_days: s.retention_days === null ? '' : String(s.retention_days),
    response_retention_days: String(s.response_retention_days),
    session_alert_usd: s.session_alert_usd === null ? '' : String(s.session_alert_usd),
    price_source_url: s.price_source_url ?? '',
  })
  const [logBodies, setLogBodies] = useState(s.log_bodies)
  const { errors, formError, busy, submit: send } = useSubmit()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const input = {
      port: v.port.trim() === '' ? Number.NaN : Number(v.port),
      bind: v.bind.trim(),
      allowed_hosts: list(v.allowed_hosts),
      cors_origins: list(v.cors_origins),
      log_bodies: logBodies,
      retention_days: numOrNull(v.retention_days),
      response_retention_days: v.response_retention_days.trim() === '' ? Number.NaN : Number(v.response_retention_days),
      session_alert_usd: numOrNull(v.session_alert_usd),
      price_source_url: v.price_source_url.trim() || null,
    }
    const errs = validate(operations['settings.update'].input, input)
    if (v.response_retention_days.trim() === '') errs.response_retention_days = 'enter a number of days; 0 keeps none'
    send(errs, async () => {
      const ns = await call('settings.update', input)
      onSaved(ns)
      toast(ns.port !== s.port || ns.bind !== s.bind ? 'Settings saved. The new address applies at the next start.' : 'Settings saved')
    })
  }
  const err = (k: string) => errorAt(errors, k)
  return (
    <form onSubmit={submit} noValidate data-testid="settings-form">
      <Section title="Network" description="Port and bind address apply at the next start: running clients keep their connection.">
        <div className="form-grid">
          <Field label="Port" error={err('port')}>
            <input inputMode="numeric" value={v.port} onChange={set('port')} data-testid="settings-port" />
          </Field>
          <Field label="Bind address" error={err('bind')} hint="127.0.0.1 keeps the gateway on this machine.">
            <input value={v.bind} onChange={set('bind')} data-testid="settings-bind" />
          </Field>
          <Field label="Allowed hosts" error={err('allowed_hosts')} hint="Extra Host names to accept (DNS-rebinding protection); comma-separated.">
            <input value={v.allowed_hosts} onChange={set('allowed_hosts')} placeholder="loopback only" data-testid="settings-hosts" />
          </Field>
          <Field label="CORS origins" error={err('cors_origins')} hint="Browser origins allowed to call /v1; empty turns CORS off.">
            <input value={v.cors_origins} onChange={set('cors_origins')} placeholder="CORS off" data-testid="settings-cors" />
          </Field>
        </div>
      </Section>
      <Section title="Records">
        <Checkbox
          label="Keep request and response bodies"
          hint="Off by default: bodies may hold personal data. Applies to new requests."
          checked={logBodies}
          onChange={setLogBodies}
          testId="settings-log-bodies"
        />
        <Field label="Keep records for (days)" error={err('retention_days')} hint="Empty keeps them forever.">
          <input inputMode="numeric" value={v.retention_days} onChange={set('retention_days')} placeholder="forever" data-testid="settings-retention" />
        </Field>
        <Field
          label="Keep stored Responses for (days)"
          error={err('response_retention_days')}
          hint={
            <>
              The Responses the gateway answered through a provider of another wire (a chat-only server, Anthropic): the response, its output and the input it
              answered, per key, so clients can continue them with <code>previous_response_id</code> and <code>item_reference</code>. Requests with{' '}
              <code>store: false</code> keep nothing; 0 keeps none. Responses that a provider serving the Responses API (OpenAI) keeps stay with that provider.
              A key’s page shows how many it has and deletes them.
            </>
          }
        >
          <input inputMode="numeric" value={v.response_retention_days} onChange={set('response_retention_days')} data-testid="settings-response-retention" />
        </Field>
      </Section>
      <Section title="Alerts">
        <Field
          label="Notify when a session passes (USD)"
          error={err('session_alert_usd')}
          hint="A banner here and a desktop notification, once per session. Empty: no alert."
        >
          <input
            inputMode="decimal"
            value={v.session_alert_usd}
            onChange={set('session_alert_usd')}
            placeholder="no alert"
            data-testid="settings-session-alert"
          />
        </Field>
      </Section>
      <Section title="Prices">
        <Field
          label="Price source URL"
          error={err('price_source_url')}
          hint="A current price listing (OpenRouter’s model list shape) for Models → Refresh prices. Empty: prices are never fetched."
        >
          <input value={v.price_source_url} onChange={set('price_source_url')} placeholder="never fetched" data-testid="settings-price-source" />
        </Field>
      </Section>
      <FormError message={formError} />
      <div className="form-actions">
        <button className="btn btn-primary" disabled={busy} data-testid="settings-save">
          {busy ? 'Saving…' : 'Save settings'}
        </button>
      </div>
    </form>
  )
}

/** How the log file is rotated: "rotates at 10 MB, keeps 5 rotated files" (`--log-max-size`, `--log-keep`). */
function rotationText(rotation: Output<'gateway.status'>['log_rotation']): string {
  return rotation ? `rotates at ${bytes(rotation.max_bytes)}, keeps ${plural(rotation.keep, 'rotated file')}` : 'not rotated'
}

/** Where the log is and how it rotates; the desktop app opens its folder (a browser cannot, so it shows the path only). */
function LogFile({ status }: { status: Pick<Output<'gateway.status'>, 'log_file' | 'log_rotation'> }) {
  const toast = useToast()
  const file = status.log_file
  if (!file) return <span data-testid="settings-log-file">standard output</span>
  const show = () => call('gateway.showLog', {}).catch((e: Error) => toast(e.message, 'error'))
  return (
    <>
      <code data-testid="settings-log-file">{file}</code>{' '}
      {transport === 'electron' && (
        <button type="button" className="btn btn-small" onClick={show} data-testid="settings-log-show">
          Show in folder
        </button>
      )}
      <div className="muted small" data-testid="settings-log-rotation">
        {rotationText(status.log_rotation)}
      </div>
    </>
  )
}

/** Where Prometheus scrapes this gateway, or how to turn metrics on (a start-up flag: they cannot be switched here). */
function Metrics({ metrics }: { metrics: Output<'gateway.status'>['metrics'] }) {
  if (!metrics) {
    return (
      <span data-testid="settings-metrics">
        Off <span className="small muted">(start with --metrics or GW_METRICS=1)</span>
      </span>
    )
  }
  const url = new URL(metrics.url)
  return (
    <span data-testid="settings-metrics">
      {/* A narrow column breaks the address before its path, not inside a word. */}
      <code>
        {url.origin}
        <wbr />
        {url.pathname}
      </code>
      <br />
      <span className="small muted">{metrics.token_required ? 'Bearer token required' : 'No token required'}</span>
    </span>
  )
}

/**
 * Where this gateway's OpenTelemetry traces go (the endpoint without credentials), whether the
 * trace goes on to providers, and whether spans hold prompts and answers: only with the operator's
 * content capture and body logging both on (`logBodies` null: not known to this user).
 */
function Tracing({ tracing, logBodies }: { tracing: Output<'gateway.status'>['tracing']; logBodies: boolean | null }) {
  if (!tracing) {
    return (
      <span data-testid="settings-tracing">
        Off <span className="small muted">(set OTEL_EXPORTER_OTLP_ENDPOINT where the gateway starts)</span>
      </span>
    )
  }
  const content = !tracing.capture_content
    ? 'no prompts or answers in spans'
    : logBodies === false
      ? 'prompts and answers asked for, but body logging is off'
      : logBodies
        ? 'prompts and answers in spans'
        : 'prompts and answers in spans while body logging is on'
  return (
    <span data-testid="settings-tracing">
      <code data-testid="settings-tracing-endpoint">{tracing.endpoint}</code>
      <br />
      <span className="small muted" data-testid="settings-tracing-detail">
        {tracing.propagate ? 'traceparent sent on to providers' : 'traceparent not sent on to providers'}; {content}
      </span>
    </span>
  )
}

export function SettingsScreen() {
  const q = useQuery(() => call('settings.get', {}), [])
  const status = useQuery(() => call('gateway.status', {}), [])
  return (
    <>
      <PageHeader title="Settings" subtitle="How the gateway listens and what it keeps." />
      {status.data && (
        <Section title="This gateway" testId="settings-status">
          <Facts
            items={[
              ['Listening at', <code key="u">{status.data.base_url}</code>],
              ['Version', status.data.version],
              ['Data folder', <code key="d">{status.data.data_dir}</code>],
              ['Log', <LogFile key="l" status={status.data} />],
              ['Metrics', <Metrics key="m" metrics={status.data.metrics} />],
              ['Tracing', <Tracing key="t" tracing={status.data.tracing} logBodies={q.data?.log_bodies ?? null} />],
              ['Keys', String(status.data.keys)],
              ['Requests recorded', String(status.data.requests)],
            ]}
          />
        </Section>
      )}
      <ResponseCache />
      {q.error || !q.data ? <Pending q={q} label="Loading settings…" /> : <SettingsForm key={JSON.stringify(q.data)} s={q.data} onSaved={q.setData} />}
    </>
  )
}
