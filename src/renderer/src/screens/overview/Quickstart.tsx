import type { Output } from '../../../../contract'
import { CopyButton } from '../../components/Copy'
import { Snippets } from '../../components/Snippets'
import { apiBase } from '../../lib/snippets'

/** Where to point an OpenAI client, and a first request to copy. */
export function Quickstart({ status, isAdmin, firstTime }: { status: Output<'gateway.status'>; isAdmin: boolean; firstTime: boolean }) {
  const base = apiBase(status.base_url)
  return (
    <section className="card" data-testid="quickstart" aria-labelledby="quickstart-title">
      <h2 id="quickstart-title">{firstTime ? 'Send your first request' : 'Connect a client'}</h2>
      <div className="base-url">
        <span className="muted">Base URL for any OpenAI client</span>
        <code data-testid="base-url">{base}</code>
        <CopyButton text={base} label="Copy URL" testId="base-url-copy" />
      </div>
      {firstTime && (
        <ol className="steps">
          {isAdmin && (
            <li>
              Give the gateway a provider key on <a href="#/providers">Providers</a> (or set <code>OPENAI_API_KEY</code> where it runs).
            </li>
          )}
          <li>
            Create a gateway key on <a href="#/keys">Keys</a> and put it in <code>GW_KEY</code>.
          </li>
          <li>
            Run one of these, or try the <a href="#/playground">Playground</a>:
          </li>
        </ol>
      )}
      <Snippets input={{ baseUrl: status.base_url, model: 'gpt-6-luna', messages: [{ role: 'user', content: 'Hello' }] }} testId="quickstart-snippet" />
    </section>
  )
}
