import { useState, type FormEvent } from 'react'
import { operations } from '../../../../contract'
import type { User } from '../../../../contract/auth'
import { call } from '../../api/client'
import { fieldErrors, toApiError } from '../../api/errors'
import { useQuery } from '../../lib/useQuery'
import { useSession } from '../../lib/session'
import { dateTime } from '../../lib/format'
import { validate } from '../../lib/validate'
import { ConfirmDialog } from '../../components/Dialog'
import { Field, FormError } from '../../components/Field'
import { Badge, PageHeader, Section } from '../../components/Page'
import { ErrorState, Loading } from '../../components/States'
import { useToast } from '../../components/Toasts'

function AddUserForm({ onAdded }: { onAdded: () => void }) {
  const toast = useToast()
  const [v, setV] = useState({ username: '', password: '', role: 'member' as 'member' | 'admin' })
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [formError, setFormError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (e: FormEvent) => {
    e.preventDefault()
    const errs = validate(operations['users.create'].input, v)
    setErrors(errs)
    setFormError(null)
    if (Object.keys(errs).length) return
    setBusy(true)
    try {
      const u = await call('users.create', v)
      toast(`${u.username} added as ${u.role}`)
      setV({ username: '', password: '', role: 'member' })
      onAdded()
    } catch (err) {
      const ae = toApiError(err)
      const fe = fieldErrors(ae)
      setErrors(fe)
      if (!Object.keys(fe).length) setFormError(ae.message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <Section title="Add a user" testId="add-user" description="Members see and manage only their own keys and requests; admins see everything and manage providers, presets, prices and users.">
      <form className="inline-form" onSubmit={submit} noValidate data-testid="add-user-form">
        <Field label="User name" error={errors.username}>
          <input value={v.username} onChange={(e) => setV({ ...v, username: e.target.value })} autoComplete="off" data-testid="user-username" />
        </Field>
        <Field label="Password" error={errors.password} hint="At least 10 characters; share it with them safely.">
          <input type="password" value={v.password} onChange={(e) => setV({ ...v, password: e.target.value })} autoComplete="new-password" data-testid="user-password" />
        </Field>
        <Field label="Role" error={errors.role}>
          <select value={v.role} onChange={(e) => setV({ ...v, role: e.target.value as 'member' | 'admin' })} data-testid="user-role">
            <option value="member">Member</option>
            <option value="admin">Admin</option>
          </select>
        </Field>
        <button className="btn btn-primary" disabled={busy} data-testid="user-add">
          Add user
        </button>
      </form>
      <FormError message={formError} />
    </Section>
  )
}

export function UsersScreen() {
  const { user: me } = useSession()
  const toast = useToast()
  const q = useQuery(() => call('users.list', {}), [])
  const [removing, setRemoving] = useState<User | null>(null)
  const [error, setError] = useState<string | null>(null)
  return (
    <>
      <PageHeader title="Users" subtitle="Who can sign in to this dashboard." />
      <AddUserForm onAdded={q.reload} />
      {q.error ? (
        <ErrorState error={q.error} onRetry={q.reload} />
      ) : !q.data ? (
        <Loading label="Loading users…" />
      ) : (
        <div className="card table-wrap">
          <table className="table" data-testid="users-table">
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Role</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {q.data.map((u) => (
                <tr key={u.id} data-testid="user-row" data-username={u.username}>
                  <td>
                    {u.username} {u.id === me.id && <span className="muted">(you)</span>}
                  </td>
                  <td>
                    <Badge kind={u.role === 'admin' ? 'accent' : 'muted'}>{u.role}</Badge>
                  </td>
                  <td>{dateTime(u.created_at)}</td>
                  <td className="row-actions">
                    {u.id !== me.id && (
                      <button type="button" className="btn btn-small btn-danger-ghost" onClick={() => setRemoving(u)} aria-label={`Remove ${u.username}`} data-testid="user-remove">
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {q.data.length === 1 && <p className="muted pad">Only you so far. Add a member above to give someone their own keys.</p>}
        </div>
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.username}?`}
          message="They are signed out everywhere and can no longer sign in. Their keys and records stay."
          confirmLabel="Remove user"
          danger
          error={error}
          onClose={() => {
            setRemoving(null)
            setError(null)
          }}
          onConfirm={async () => {
            try {
              await call('users.remove', { id: removing.id })
              toast(`${removing.username} removed`)
              setRemoving(null)
              q.reload()
            } catch (e) {
              setError(toApiError(e).message)
            }
          }}
        />
      )}
    </>
  )
}
