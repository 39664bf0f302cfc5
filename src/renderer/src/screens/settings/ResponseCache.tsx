import { useState } from 'react'
import { call } from '../../api/client'
import { ConfirmDialog } from '../../components/Dialog'
import { Facts, Section } from '../../components/Page'
import { Pending } from '../../components/States'
import { useToast } from '../../components/Toasts'
import { bytes, int, plural, usd } from '../../lib/format'
import { useQuery } from '../../lib/useQuery'

/** What the response cache holds, what its hits saved (from the records), and the way to empty it. */
export function ResponseCache() {
  const toast = useToast()
  const q = useQuery(() => call('cache.stats', {}), [])
  const [confirming, setConfirming] = useState(false)
  return (
    <Section
      title="Response cache"
      testId="settings-response-cache"
      description="Answers kept for exact repeats of requests that ask for the cache (X-Gw-Cache, gw.cache) or come from a key or preset with a cache TTL. A repeat is answered at $0 and recorded as a hit."
    >
      {q.error || !q.data ? (
        <Pending q={q} label="Loading the response cache…" />
      ) : (
        <>
          <Facts
            items={[
              [
                'Answers kept',
                <span key="e" data-testid="settings-cache-entries">
                  {int(q.data.entries)}
                </span>,
              ],
              ['Size', `${bytes(q.data.bytes)} of ${bytes(q.data.max_bytes)}`],
              [
                'Requests answered from the cache',
                <span key="h" data-testid="settings-cache-hits">
                  {int(q.data.hits)}
                </span>,
              ],
              [
                'Saved',
                <span key="s" data-testid="settings-cache-saved">
                  {usd(q.data.saved_usd)}
                </span>,
              ],
            ]}
          />
          <div className="form-actions">
            <button
              type="button"
              className="btn btn-danger"
              disabled={q.data.entries === 0}
              onClick={() => setConfirming(true)}
              data-testid="settings-cache-clear"
            >
              Clear the cache
            </button>
          </div>
        </>
      )}
      {confirming && q.data && (
        <ConfirmDialog
          title="Clear the response cache?"
          message={`${plural(q.data.entries, 'kept answer')} will be deleted; the next request of each kind goes to its provider. The records of past hits stay.`}
          confirmLabel="Clear the cache"
          danger
          showBusy
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            const { deleted } = await call('cache.clear', {})
            toast(`Deleted ${plural(deleted, 'cached answer')}`)
            setConfirming(false)
            q.reload()
          }}
        />
      )}
    </Section>
  )
}
