import { useState } from 'react'
import type { Output } from '../../../../contract'
import { call } from '../../api/client'
import { useQuery } from '../../lib/useQuery'
import { useSession } from '../../lib/session'
import { compact } from '../../lib/format'
import { Badge, PageHeader } from '../../components/Page'
import { Checkbox } from '../../components/Field'
import { ConfirmDialog } from '../../components/Dialog'
import { Empty, Pending } from '../../components/States'
import { useToast } from '../../components/Toasts'
import { PriceDialog } from './PriceDialog'
import { RepriceDialog } from './RepriceDialog'
import { RefreshDialog } from './RefreshDialog'
import { AliasesPanel } from './AliasesPanel'
import { CardTable, TableHead } from '../../components/Table'

type Model = Output<'models.list'>[number]

const price = (m: Model, k: string) => {
  const v = m.pricing?.[k]
  return typeof v === 'number' ? `$${v}` : '—'
}
const isOverride = (m: Model) => /override/i.test(String(m.pricing?.source ?? ''))

export function ModelsScreen() {
  const { isAdmin } = useSession()
  const toast = useToast()
  const q = useQuery(() => call('models.list', {}), [])
  const [search, setSearch] = useState('')
  const [provider, setProvider] = useState('')
  const [availableOnly, setAvailableOnly] = useState<boolean | null>(null)
  // Start with what can be used now, when anything can; otherwise show the whole catalog.
  const onlyAvailable = availableOnly ?? (q.data ? q.data.some((m) => m.availability.available) : false)
  const [editing, setEditing] = useState<Model | null | 'new'>(null)
  const [removing, setRemoving] = useState<Model | null>(null)
  const [repricing, setRepricing] = useState(false)
  const [refreshing, setRefreshing] = useState(false)
  const providers = [...new Set((q.data ?? []).map((m) => m.provider))].sort()
  const rows = (q.data ?? []).filter(
    (m) =>
      (!onlyAvailable || m.availability.available) && (!provider || m.provider === provider) && (!search || m.id.toLowerCase().includes(search.toLowerCase())),
  )
  const groups = providers
    .map((p) => {
      const models = rows.filter((m) => m.provider === p)
      const reasons = new Set(models.map((m) => (m.availability.available ? null : m.availability.reason)))
      // One reason for the whole provider (no key, unreachable) is said once, in its header.
      const shared = reasons.size === 1 ? [...reasons][0] : null
      return { provider: p, models, shared }
    })
    .filter((g) => g.models.length > 0)
  const cols = isAdmin ? 8 : 7
  return (
    <>
      <PageHeader
        title="Models"
        subtitle="The price catalog plus what local and added providers serve. Prices are USD per 1M tokens."
        actions={
          isAdmin && (
            <>
              <button type="button" className="btn" onClick={() => setRefreshing(true)} data-testid="refresh-open">
                Refresh prices…
              </button>
              <button type="button" className="btn" onClick={() => setRepricing(true)} data-testid="reprice-open">
                Reprice…
              </button>
              <button type="button" className="btn" onClick={() => setEditing('new')} data-testid="price-new">
                Set a price
              </button>
            </>
          )
        }
      />
      <AliasesPanel />
      <div className="toolbar">
        <div className="field">
          <label htmlFor="model-search">Search models</label>
          <input
            id="model-search"
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder="gpt-4o, claude, llama…"
            data-testid="models-search"
          />
        </div>
        <div className="field">
          <label htmlFor="model-provider">Provider</label>
          <select id="model-provider" value={provider} onChange={(e) => setProvider(e.target.value)} data-testid="models-provider">
            <option value="">All providers</option>
            {providers.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </div>
        <Checkbox label="Available now only" checked={onlyAvailable} onChange={setAvailableOnly} testId="models-available-only" />
      </div>
      {q.error || !q.data ? (
        <Pending q={q} label="Checking providers and models…" />
      ) : rows.length === 0 ? (
        <Empty title={q.data.length ? 'No model matches' : 'No models known'} testId="models-empty">
          {q.data.length ? (
            <p>Change the search or provider, or untick “Available now only”.</p>
          ) : (
            <p>Add a provider on the Providers page, or start a local server such as Ollama.</p>
          )}
        </Empty>
      ) : (
        <CardTable testId="models-table">
          <caption className="sr-only">Models with prices, limits and availability</caption>
          <TableHead
            cols={[
              'Model',
              'Kind',
              { label: 'Context', num: true },
              { label: 'Input', num: true },
              { label: 'Cached', num: true },
              { label: 'Output', num: true },
              'Availability',
            ]}
            actions={isAdmin}
          />
          {groups.map((g) => (
            <tbody key={g.provider} data-testid="model-group" data-provider={g.provider}>
              <tr className="group-row">
                <th scope="colgroup" colSpan={cols}>
                  <span className="group-name">{g.provider}</span>{' '}
                  <span className="muted small">{g.models.length === 1 ? '1 model' : `${g.models.length} models`}</span>
                  {g.shared && (
                    <span className="group-reason small">
                      {' '}
                      — unavailable: {g.shared}
                      {isAdmin && (
                        <>
                          {' '}
                          <a href="#/providers">Open Providers</a>
                        </>
                      )}
                    </span>
                  )}
                </th>
              </tr>
              {g.models.map((m) => (
                <tr key={m.id} data-testid="model-row" data-model-id={m.id}>
                  <td>
                    <code className="nowrap">{m.id}</code>
                    {m.status && m.status !== 'active' && <div className="small muted">{m.status}</div>}
                    {isOverride(m) && (
                      <div>
                        <Badge kind="accent">price override</Badge>
                      </div>
                    )}
                  </td>
                  <td>{m.kind ?? '—'}</td>
                  <td className="num">{m.context_length ? compact(m.context_length) : '—'}</td>
                  <td className="num" data-testid="model-input-price">
                    {m.pricing ? price(m, 'input') : <span className="muted">unpriced</span>}
                  </td>
                  <td className="num">{price(m, 'cached_input')}</td>
                  <td className="num">{price(m, 'output')}</td>
                  <td>
                    {m.availability.available ? (
                      <Badge kind="ok">available</Badge>
                    ) : (
                      <>
                        <Badge kind="danger">unavailable</Badge>
                        {m.availability.reason && !g.shared && <div className="small muted wrap">{m.availability.reason}</div>}
                      </>
                    )}
                  </td>
                  {isAdmin && (
                    <td className="row-actions">
                      <button
                        type="button"
                        className="btn btn-small"
                        onClick={() => setEditing(m)}
                        aria-label={`Set price of ${m.id}`}
                        data-testid="model-price-edit"
                      >
                        Set price
                      </button>
                      {isOverride(m) && (
                        <button
                          type="button"
                          className="btn btn-small btn-danger-ghost"
                          onClick={() => setRemoving(m)}
                          aria-label={`Remove override of ${m.id}`}
                          data-testid="model-price-remove"
                        >
                          Remove override
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          ))}
        </CardTable>
      )}
      {repricing && <RepriceDialog onClose={() => setRepricing(false)} onDone={q.reload} />}
      {refreshing && <RefreshDialog onClose={() => setRefreshing(false)} onDone={q.reload} />}
      {editing && <PriceDialog model={editing === 'new' ? null : editing} onClose={() => setEditing(null)} onSaved={q.reload} />}
      {removing && (
        <ConfirmDialog
          title={`Remove the price override of ${removing.id}?`}
          message="Its cost goes back to the built-in catalog's price, or unpriced when the catalog does not know it."
          confirmLabel="Remove override"
          danger
          onClose={() => setRemoving(null)}
          onConfirm={async () => {
            await call('prices.remove', { model: removing.id })
            toast(`Override of ${removing.id} removed`)
            setRemoving(null)
            q.reload()
          }}
        />
      )}
    </>
  )
}
