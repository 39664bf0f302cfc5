import { useState } from 'react'
import type { KeySummary } from '../../../../contract/keys'
import { call } from '../../api/client'
import { ConfirmDialog } from '../../components/Dialog'
import { Section } from '../../components/Page'
import { useToast } from '../../components/Toasts'
import { plural } from '../../lib/format'

/** How many Responses the gateway keeps for a key, and the way to delete them (what a key's owner may do, revoked or not). */
export function StoredResponses({ k, count, onDeleted }: { k: KeySummary; count: number; onDeleted: () => void }) {
  const toast = useToast()
  const [confirming, setConfirming] = useState(false)
  return (
    <Section
      title="Stored responses"
      testId="key-stored-responses"
      description="Responses the gateway answered through a provider of another wire (a chat-only server, Anthropic), kept with their input and output so clients can continue them. They are kept for the days set in Settings."
    >
      <div className="count-line">
        <span data-testid="key-stored-responses-count">Stored responses: {count}</span>
        {count > 0 && (
          <button type="button" className="btn btn-small btn-danger" onClick={() => setConfirming(true)} data-testid="key-stored-responses-delete">
            Delete stored responses
          </button>
        )}
      </div>
      {confirming && (
        <ConfirmDialog
          title={`Delete the stored responses of “${k.name}”?`}
          message={
            <>
              {plural(count, 'stored response')} will be deleted: clients can no longer continue them with <code>previous_response_id</code> or{' '}
              <code>item_reference</code>. This cannot be undone; the request records stay.
            </>
          }
          confirmLabel="Delete stored responses"
          danger
          showBusy
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            const { deleted } = await call('keys.deleteResponses', { id: k.id })
            toast(`Deleted ${plural(deleted, 'stored response')} of “${k.name}”`)
            onDeleted()
            setConfirming(false)
          }}
        />
      )}
    </Section>
  )
}
