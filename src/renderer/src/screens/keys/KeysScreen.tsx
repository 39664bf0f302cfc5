import { useState } from 'react'
import type { KeySummary } from '../../../../contract/keys'
import { call } from '../../api/client'
import { useQuery } from '../../lib/useQuery'
import { useSession } from '../../lib/session'
import { ago, usd } from '../../lib/format'
import { href } from '../../lib/router'
import { PageHeader, Badge } from '../../components/Page'
import { Empty, Pending } from '../../components/States'
import { CreateKeyDialog } from './CreateKeyDialog'
import { RevokeKeyDialog } from './RevokeKey'
import { CardTable, TableHead } from '../../components/Table'

export function balanceText(k: KeySummary): string {
  return k.prepaid ? usd(k.balance_usd) : 'Unlimited'
}

export function KeysScreen() {
  const { isAdmin } = useSession()
  const keys = useQuery(() => call('keys.list', {}), [])
  const [creating, setCreating] = useState(false)
  const [revoking, setRevoking] = useState<KeySummary | null>(null)
  const rows = [...(keys.data ?? [])].sort((a, b) => Number(!!a.revoked_at) - Number(!!b.revoked_at) || b.created_at - a.created_at)
  return (
    <>
      <PageHeader
        title="Keys"
        subtitle="Gateway keys your tools use instead of provider keys. Each can have a default preset, a prepaid balance, spend limits and a policy."
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setCreating(true)} data-testid="create-key">
            Create key
          </button>
        }
      />
      {keys.error || !keys.data ? (
        <Pending q={keys} label="Loading keys…" />
      ) : rows.length === 0 ? (
        <Empty title="No keys yet" testId="keys-empty">
          <p>Create a key, then use it as the API key of any OpenAI client pointed at this gateway.</p>
          <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
            Create your first key
          </button>
        </Empty>
      ) : (
        <CardTable testId="keys-table">
          <TableHead cols={['Name', 'Key', isAdmin && 'Owner', 'Default preset', { label: 'Balance', num: true }, 'Last used', 'Status']} actions />
          <tbody>
            {rows.map((k) => (
              <tr key={k.id} data-testid="key-row" data-key-id={k.id} data-key-name={k.name}>
                <td>
                  <a href={href('keys', k.id)} data-testid="key-link">
                    {k.name}
                  </a>
                </td>
                <td>
                  <code>{k.masked}</code>
                </td>
                {isAdmin && <td>{k.owner?.username ?? '—'}</td>}
                <td>{k.default_preset ? <a href={href('presets', k.default_preset)}>{k.default_preset}</a> : <span className="muted">none</span>}</td>
                <td className="num" data-testid="key-balance">
                  {balanceText(k)}
                </td>
                <td>{ago(k.last_used_at)}</td>
                <td data-testid="key-status">{k.revoked_at ? <Badge kind="danger">Revoked</Badge> : <Badge kind="ok">Active</Badge>}</td>
                <td className="row-actions">
                  {!k.revoked_at && (
                    <button
                      type="button"
                      className="btn btn-small btn-danger-ghost"
                      onClick={() => setRevoking(k)}
                      data-testid="key-revoke"
                      aria-label={`Revoke ${k.name}`}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </CardTable>
      )}
      {creating && <CreateKeyDialog onClose={() => setCreating(false)} onCreated={() => keys.reload()} />}
      {revoking && <RevokeKeyDialog keyRow={revoking} onClose={() => setRevoking(null)} onRevoked={() => keys.reload()} />}
    </>
  )
}
