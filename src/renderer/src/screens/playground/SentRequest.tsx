import { CodeBlock } from '../../components/Copy'
import type { Sent } from './useRun'

/** The body the Playground sent and where, as its wire carries it into the gateway (before a preset or alias changes it). */
export function SentRequest({ sent }: { sent: Sent }) {
  return (
    <details className="run-request" data-testid="pg-request">
      <summary>
        Request <span className="muted">POST {sent.path}</span>
      </summary>
      <CodeBlock code={JSON.stringify(sent.body, null, 2)} testId="pg-request-body" label={`Request body sent to ${sent.path}`} />
    </details>
  )
}
