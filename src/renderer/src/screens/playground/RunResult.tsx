import type { PlaygroundWire } from '../../../../contract/playground'
import { Badge, Facts } from '../../components/Page'
import { int, ms, usd } from '../../lib/format'
import { href } from '../../lib/router'
import type { Done, Failed } from './useRun'
import { WIRES } from './wires'

interface Attempt {
  provider?: string
  model?: string
  status?: number | null
  latency_ms?: number
  error?: string | null
}

const obj = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {})

/** Routing and cost of the reply, from the `done` event's gw object. */
export function RunResult({ done, wire }: { done: Done; wire: PlaygroundWire }) {
  const routing = obj(done.gw.routing)
  const cost = obj(done.gw.cost)
  const attempts = (Array.isArray(routing.attempts) ? routing.attempts : []) as Attempt[]
  const preset = routing.preset
  const presetText = preset && typeof preset === 'object' ? `${obj(preset).name ?? ''} v${obj(preset).version ?? ''}` : preset ? String(preset) : 'none'
  return (
    <div className="run-result" data-testid="run-result">
      <div className="run-cost">
        <span className="muted">Cost</span>
        <strong data-testid="run-cost">{cost.priced === false ? 'unpriced' : usd(cost.final_usd as number | null)}</strong>
        {cost.priced === false && cost.unpriced_reason ? <span className="muted">({String(cost.unpriced_reason)})</span> : null}
        {cost.estimated ? <Badge kind="warn">estimated</Badge> : null}
      </div>
      <Facts
        testId="run-routing"
        items={[
          ['Provider', <span data-testid="run-provider">{String(routing.provider ?? '—')}</span>],
          ['Upstream model', <code>{String(routing.upstream_model ?? '—')}</code>],
          ['Preset', presetText],
          ['Fallback used', routing.fallback_used ? 'yes' : 'no'],
          ['Tokens', `${int(cost.prompt_tokens as number)} in · ${int(cost.completion_tokens as number)} out`],
          [WIRES[wire].stopLabel, <span data-testid="run-stop-reason">{done.finish_reason ?? '—'}</span>],
          [
            'Request',
            <a href={href('requests', done.request_id)} data-testid="run-request-link">
              {done.request_id}
            </a>,
          ],
        ]}
      />
      {attempts.length > 1 && (
        <ol className="attempts small">
          {attempts.map((a, i) => (
            <li key={i}>
              {a.provider}/{a.model}: {a.status ?? 'no answer'} in {ms(a.latency_ms)}
              {a.error ? ` — ${a.error}` : ''}
            </li>
          ))}
        </ol>
      )}
    </div>
  )
}

const explain: Record<number, string> = {
  401: 'The key was refused: it may be revoked.',
  402: 'The key’s prepaid balance is used up or a spend limit was reached. Top up the balance on the key’s page.',
  403: 'The key’s policy forbids this request.',
  404: 'The model or preset is not known.',
  429: 'Too many requests: the key’s rate limit or the provider’s.',
  502: 'The provider failed or refused the gateway’s credential. Check the provider key.',
  503: 'The provider is unavailable or has no key configured.',
  504: 'The provider timed out.',
}

export function RunError({ error, keyId }: { error: Failed; keyId: string }) {
  return (
    <div className="callout callout-danger" role="alert" data-testid="run-error">
      <p>
        <strong data-testid="run-error-status">
          {error.status} {error.error.code ?? error.error.type}
        </strong>
        : <span data-testid="run-error-message">{error.error.message}</span>
      </p>
      {explain[error.status] && <p>{explain[error.status]}</p>}
      <p className="small">
        {error.status === 402 && (
          <>
            <a href={href('keys', keyId)} data-testid="run-error-key-link">
              Open the key
            </a>
            {error.request_id ? ' · ' : ''}
          </>
        )}
        {error.request_id && <a href={href('requests', error.request_id)}>See the request record</a>}
      </p>
    </div>
  )
}
