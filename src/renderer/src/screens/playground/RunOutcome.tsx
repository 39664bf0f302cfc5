import type { PlaygroundWire } from '../../../../contract/playground'
import { href } from '../../lib/router'
import { RunError, RunResult } from './RunResult'
import { SentRequest } from './SentRequest'
import type { RunState } from './useRun'

/** How the last run ended (its error, that it was stopped, or its routing and cost) and the body it sent. */
export function RunOutcome({ run, keyId, wire }: { run: RunState; keyId: string; wire: PlaygroundWire }) {
  return (
    <>
      {run.failure && <RunError error={run.failure} keyId={keyId} />}
      {run.stopped && (
        <p className="callout small" data-testid="pg-stopped">
          Stopped: the gateway ended the provider call and recorded the request as aborted.{' '}
          {run.sent && (
            <a href={href('requests', run.sent.request_id)} data-testid="pg-stopped-link">
              See the request record
            </a>
          )}
        </p>
      )}
      {run.done && <RunResult done={run.done} wire={run.sent?.wire ?? wire} />}
      {run.sent && <SentRequest sent={run.sent} />}
    </>
  )
}
