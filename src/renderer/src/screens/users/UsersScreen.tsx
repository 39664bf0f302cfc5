import { useState, type FormEvent } from 'react'
import { operations } from '../../../../contract'
import type { User } from '../../../../contract/auth'
import { call } from '../../api/client'
import { useQuery } from '../../lib/useQuery'
import { useSession } from '../../lib/session'
import { dateTime } from '../../lib/format'
import { useFields, useSubmit } from '../../lib/useForm'
import { validate } from '../../lib/validate'
import { ConfirmDialog } from '../../components/Dialog'
import { Field, FormError } from '../../components/Field'
import { Badge, PageHeader, Section } from '../../components/Page'
import { Pending } from '../../components/States'
import { useToast } from '../../components/Toasts'
import { CardTable, TableHead } from '../../components/Table'

function AddUserForm({ onAdded }: { onAdded: () => void }) {
  const toast = useToast()
  const { v, setV, set } = useFields({ username: '', password: '', role: 'member' as 'member' | 'admin' })
  const { errors, formError, busy, submit: send } = useSubmit()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    send(validate(operations['users.create'].input, v), async () => {
      const u = await call('users.create', v)
      toast(`${u.username} added as ${u.role}`)
      setV({ username: '', password: '', role: 'member' })
      onAdded()
    })
  }
  return (
    <Section
      title="Add a user"
      testId="add-user"
      description="Members see and manage only their own keys and requests; admins see everything and manage providers, presets, prices and users."
    >
      <form className="inline-form" onSubmit={submit} noValidate data-testid="add-user-form">
        <Field label="User name" error={errors.username}>
          <input value={v.username} onChange={set('username')} autoComplete="off" data-testid="user-username" />
        </Field>
        <Field label="Password" error={errors.password} hint="At least 10 characters; share it with them safely.">
          <input type="password" value={v.password} onChange={set('password')} autoComplete="new-password" data-testid="user-password" />
        </Field>
        <Field label="Role" error={errors.role}>
          <select value={v.role} onChange={set('role')} data-testid="user-role">
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
  return (
    <>
      <PageHeader title="Users" subtitle="Who can sign in to this dashboard." />
      <AddUserForm onAdded={q.reload} />
      {q.error || !q.data ? (
        <Pending q={q} label="Loading users…" />
      ) : (
        <CardTable
          testId="users-table"
          after={q.data.length === 1 && <p className="muted pad">Only you so far. Add a member above to give someone their own keys.</p>}
        >
          <TableHead cols={['User', 'Role', 'Added']} actions />
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
                    <button
                      type="button"
                      className="btn btn-small btn-danger-ghost"
                      onClick={() => setRemoving(u)}
                      aria-label={`Remove ${u.username}`}
                      data-testid="user-remove"
                    >
                      Remove
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </CardTable>
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.username}?`}
          message="They are signed out everywhere and can no longer sign in. Their keys and records stay."
          confirmLabel="Remove user"
          danger
          onClose={() => setRemoving(null)}
          onConfirm={async () => {
            await call('users.remove', { id: removing.id })
            toast(`${removing.username} removed`)
            setRemoving(null)
            q.reload()
          }}
        />
      )}
    </>
  )
}
