import { useState } from 'react'
import type { KeySummary } from '../../../../contract/keys'
import { call } from '../../api/client'
import { toApiError } from '../../api/errors'
import { ConfirmDialog } from '../../components/Dialog'
import { useToast } from '../../components/Toasts'

export function RevokeKeyDialog({ keyRow, onClose, onRevoked }: { keyRow: KeySummary; onClose: () => void; onRevoked: (k: KeySummary) => void }) {
  const toast = useToast()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  return (
    <ConfirmDialog
      title={`Revoke “${keyRow.name}”?`}
      message={
        <>
          Every request made with <code>{keyRow.masked}</code> will be refused with 401 from now on. This cannot be undone; its records and ledger are kept.
        </>
      }
      confirmLabel="Revoke key"
      danger
      busy={busy}
      error={error}
      onClose={onClose}
      onConfirm={async () => {
        setBusy(true)
        try {
          const k = await call('keys.revoke', { id: keyRow.id })
          toast(`Key “${keyRow.name}” revoked`)
          onRevoked(k)
          onClose()
        } catch (e) {
          setError(toApiError(e).message)
          setBusy(false)
        }
      }}
    />
  )
}
