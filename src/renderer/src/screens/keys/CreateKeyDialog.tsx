import { useState, type FormEvent } from 'react'
import { operations, type Output } from '../../../../contract'
import { call } from '../../api/client'
import { Dialog, DialogForm } from '../../components/Dialog'
import { Field } from '../../components/Field'
import { CopyButton } from '../../components/Copy'
import { useQuery } from '../../lib/useQuery'
import { useSession } from '../../lib/session'
import { numOrUndef } from '../../lib/format'
import { useSubmit } from '../../lib/useForm'
import { validate } from '../../lib/validate'
import { href } from '../../lib/router'
import { PresetOptions } from './PresetOptions'

type Created = Output<'keys.create'>

/** Creates a key, then shows its secret exactly once. */
export function CreateKeyDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (c: Created) => void }) {
  const { isAdmin, user } = useSession()
  const presets = useQuery(() => call('presets.list', {}), [])
  const users = useQuery(() => (isAdmin ? call('users.list', {}) : Promise.resolve([])), [isAdmin])
  const [name, setName] = useState('')
  const [balance, setBalance] = useState('')
  const [preset, setPreset] = useState('')
  const [owner, setOwner] = useState('')
  const { errors, formError, busy, submit: send } = useSubmit()
  const [created, setCreated] = useState<Created | null>(null)

  const submit = (e: FormEvent) => {
    e.preventDefault()
    const input = {
      name,
      ...(balance.trim() !== '' && { balance_usd: numOrUndef(balance) }),
      ...(preset && { default_preset: preset }),
      ...(owner && owner !== user.id && { owner_id: owner }),
    }
    send(validate(operations['keys.create'].input, input), async () => {
      const c = await call('keys.create', input)
      setCreated(c)
      onCreated(c)
    })
  }

  return (
    <Dialog title={created ? 'Your new key' : 'Create a key'} onClose={onClose} testId={created ? 'key-secret-dialog' : 'create-key-dialog'}>
      {created ? (
        <>
          <div className="dialog-body">
            <div className="callout callout-warn" role="alert">
              <strong>Copy this key now — you will not see it again.</strong> The gateway keeps only a hash of it. If you lose it, revoke it and create another.
            </div>
            <div className="secret-row">
              <code className="secret" data-testid="key-secret">
                {created.secret}
              </code>
              <CopyButton text={created.secret} label="Copy key" testId="key-secret-copy" className="btn btn-primary" />
            </div>
            <p className="muted">
              Use it as the API key of any OpenAI client, e.g. <code>export GW_KEY=…</code>, with the base URL shown on the <a href="#/overview">Overview</a>.
            </p>
          </div>
          <div className="dialog-actions">
            <a className="btn" href={href('keys', created.key.id)} onClick={onClose} data-testid="key-secret-open">
              Open key settings
            </a>
            <button type="button" className="btn btn-primary" onClick={onClose} data-testid="key-secret-done">
              I have copied it
            </button>
          </div>
        </>
      ) : (
        <DialogForm
          onClose={onClose}
          formTestId="create-key-form"
          onSubmit={submit}
          formError={formError}
          busy={busy}
          submitLabel={busy ? 'Creating…' : 'Create key'}
          submitTestId="key-create-submit"
        >
          <Field label="Name" error={errors.name} hint="What uses it, e.g. my-laptop or ci-bot">
            <input value={name} onChange={(e) => setName(e.target.value)} data-testid="key-name" autoFocus />
          </Field>
          {isAdmin && (
            <Field
              label="Opening balance (USD, optional)"
              error={errors.balance_usd}
              hint="Leave empty for an unlimited key. A prepaid key stops at zero with a 402."
            >
              <input
                inputMode="decimal"
                value={balance}
                onChange={(e) => setBalance(e.target.value)}
                data-testid="key-opening-balance"
                placeholder="unlimited"
              />
            </Field>
          )}
          <Field label="Default preset (optional)" error={errors.default_preset} hint="Applied to every chat request of this key that names no preset.">
            <select value={preset} onChange={(e) => setPreset(e.target.value)} data-testid="key-default-preset">
              <option value="">None</option>
              <PresetOptions presets={presets.data} />
            </select>
          </Field>
          {isAdmin && users.data && users.data.length > 1 && (
            <Field label="Owner" error={errors.owner_id} hint="Members see only their own keys.">
              <select value={owner || user.id} onChange={(e) => setOwner(e.target.value)} data-testid="key-owner">
                {users.data.map((u) => (
                  <option key={u.id} value={u.id}>
                    {u.username} ({u.role})
                  </option>
                ))}
              </select>
            </Field>
          )}
        </DialogForm>
      )}
    </Dialog>
  )
}
