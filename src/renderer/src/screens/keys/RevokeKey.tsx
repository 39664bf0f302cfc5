import type { KeySummary } from '../../../../contract/keys'
import { call } from '../../api/client'
import { ConfirmDialog } from '../../components/Dialog'
import { useToast } from '../../components/Toasts'

export function RevokeKeyDialog({ keyRow, onClose, onRevoked }: { keyRow: KeySummary; onClose: () => void; onRevoked: (k: KeySummary) => void }) {
  const toast = useToast()
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
      showBusy
      onClose={onClose}
      onConfirm={async () => {
        const k = await call('keys.revoke', { id: keyRow.id })
        toast(`Key “${keyRow.name}” revoked`)
        onRevoked(k)
        onClose()
      }}
    />
  )
}
