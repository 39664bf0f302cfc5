import { call } from '../../api/client'
import { useQuery } from '../../lib/useQuery'
import { useSession } from '../../lib/session'
import { dateTime } from '../../lib/format'
import { href } from '../../lib/router'
import { PageHeader } from '../../components/Page'
import { Empty, Pending } from '../../components/States'
import { CardTable, TableHead } from '../../components/Table'

export function PresetsScreen() {
  const { isAdmin } = useSession()
  const q = useQuery(() => call('presets.list', {}), [])
  return (
    <>
      <PageHeader
        title="Presets"
        subtitle={
          <>
            A preset bundles a model, a system prompt and parameters under a name. Callers use it as the model (<code>@preset/name</code>) or get it as their
            key’s default.
          </>
        }
        actions={
          isAdmin && (
            <a className="btn btn-primary" href="#/presets/new" data-testid="new-preset">
              New preset
            </a>
          )
        }
      />
      {q.error || !q.data ? (
        <Pending q={q} label="Loading presets…" />
      ) : q.data.length === 0 ? (
        <Empty title="No presets yet" testId="presets-empty">
          {isAdmin ? (
            <>
              <p>Create one to pin a model, system prompt and temperature for a task — then make it a key’s default to steer tools with hard-coded models.</p>
              <a className="btn btn-primary" href="#/presets/new">
                Create your first preset
              </a>
            </>
          ) : (
            <p>An admin can create presets; they will appear here.</p>
          )}
        </Empty>
      ) : (
        <CardTable testId="presets-table">
          <TableHead cols={['Name', 'Model', 'Parameters', 'Version', 'Default of keys']} />
          <tbody>
            {q.data.map((p) => (
              <tr key={p.name} data-testid="preset-row" data-preset-name={p.name}>
                <td>
                  <a href={href('presets', p.name)} data-testid="preset-link">
                    {p.name}
                  </a>
                  {p.description && <div className="muted small">{p.description}</div>}
                </td>
                <td>
                  <code>{p.model}</code>
                </td>
                <td className="small">
                  {[
                    p.temperature !== null && `temperature ${p.temperature}`,
                    p.top_p !== null && `top_p ${p.top_p}`,
                    p.max_tokens !== null && `max_tokens ${p.max_tokens}`,
                    p.system_prompt && 'system prompt',
                  ]
                    .filter(Boolean)
                    .join(' · ') || <span className="muted">model only</span>}
                </td>
                <td>
                  v{p.version} <span className="muted small">{dateTime(p.created_at)}</span>
                </td>
                <td>
                  {p.default_of_keys.length === 0 ? (
                    <span className="muted">none</span>
                  ) : (
                    p.default_of_keys.map((k, i) => (
                      <span key={k.id}>
                        {i > 0 && ', '}
                        <a href={href('keys', k.id)}>{k.name}</a>
                      </span>
                    ))
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </CardTable>
      )}
    </>
  )
}
