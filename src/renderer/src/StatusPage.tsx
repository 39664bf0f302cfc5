import { useEffect, useState } from 'react'
import type { GwApi, Output } from '../../contract'

declare global {
  interface Window {
    gw: GwApi
  }
}

type Status = Output<'gateway.status'>

const box = { fontFamily: 'ui-monospace, monospace', background: 'rgba(127,127,127,.12)', padding: 12, borderRadius: 6, whiteSpace: 'pre-wrap' } as const

/** What a first-time user needs: is the gateway up, where to point tools, how to get a key. */
export function StatusPage() {
  const [status, setStatus] = useState<Status | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    window.gw['gateway.status']({}).then(setStatus, (e: Error) => setError(e.message))
  }, [])
  if (error) return <main data-testid="status-error" style={{ padding: 24 }}>The gateway did not start: {error}</main>
  if (!status) return <main data-testid="status-loading" style={{ padding: 24 }}>Starting the gateway…</main>
  return (
    <main style={{ padding: 24, fontFamily: 'system-ui, sans-serif', maxWidth: 760 }}>
      <h1>GW Gateway is running</h1>
      <p>
        Point any OpenAI client at <code data-testid="base-url">{status.base_url}</code>
      </p>
      <p>
        {status.keys} active key{status.keys === 1 ? '' : 's'}, {status.requests} request{status.requests === 1 ? '' : 's'} recorded. Data
        folder: <code>{status.data_dir}</code>
      </p>
      {status.keys === 0 && (
        <>
          <h2>Create your first key</h2>
          <div style={box}>npm run gw -- keys create --name my-laptop</div>
        </>
      )}
      <h2>Try it</h2>
      <div style={box}>
        {`curl ${status.base_url}/chat/completions \\
  -H "Authorization: Bearer $GW_KEY" -H "Content-Type: application/json" \\
  -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'`}
      </div>
      <p style={{ opacity: 0.7 }}>Version {status.version}</p>
    </main>
  )
}
