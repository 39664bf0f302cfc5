import { type FormEvent } from 'react'
import { operations } from '../../../../contract'
import { call } from '../../api/client'
import { useQuery } from '../../lib/useQuery'
import { useSession } from '../../lib/session'
import { useFields, useSubmit } from '../../lib/useForm'
import { validate } from '../../lib/validate'
import { Field, FormError } from '../../components/Field'
import { Section } from '../../components/Page'
import { Pending } from '../../components/States'
import { useToast } from '../../components/Toasts'

/** Model aliases: patterns over requested model ids and where each sends them; admins add and remove. */
export function AliasesPanel() {
  const { isAdmin } = useSession()
  const toast = useToast()
  const q = useQuery(() => call('aliases.list', {}), [])
  const { v, setV, set } = useFields({ pattern: '', to: '' })
  const { errors, formError, busy, submit: send } = useSubmit()
  const add = (e: FormEvent) => {
    e.preventDefault()
    const input = { pattern: v.pattern.trim(), to: v.to.trim() }
    send(validate(operations['aliases.set'].input, input), async () => {
      const saved = await call('aliases.set', input)
      toast(`Alias ${saved.pattern} → ${saved.target} saved`)
      setV({ pattern: '', to: '' })
      q.reload()
    })
  }
  const remove = async (pattern: string) => {
    await call('aliases.remove', { pattern })
    toast(`Alias ${pattern} removed`)
    q.reload()
  }
  return (
    <Section
      title="Aliases"
      testId="aliases-panel"
      description={
        <>
          Send requested models matching a pattern elsewhere, for tools that hard-code model names: <code>claude-haiku-*</code> →{' '}
          <code>ollama/qwen3-coder</code>. <code>*</code> matches anything; an exact pattern wins, then the longest text before <code>*</code>. A preset named
          in the request or a key’s default preset comes first.
        </>
      }
    >
      {q.error || !q.data ? (
        <Pending q={q} label="Loading aliases…" />
      ) : q.data.length === 0 ? (
        <p className="muted" data-testid="aliases-empty">
          No aliases: every request goes to the model it names.
        </p>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="aliases-table">
            <caption className="sr-only">Model aliases</caption>
            <thead>
              <tr>
                <th scope="col">Pattern</th>
                <th scope="col">Sends to</th>
                {isAdmin && (
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {q.data.map((a) => (
                <tr key={a.pattern} data-testid="alias-row" data-pattern={a.pattern}>
                  <td>
                    <code className="wrap">{a.pattern}</code>
                  </td>
                  <td>
                    <code className="wrap" data-testid="alias-target">
                      {a.target}
                    </code>
                  </td>
                  {isAdmin && (
                    <td className="row-actions">
                      <button
                        type="button"
                        className="btn btn-small btn-danger-ghost"
                        onClick={() => void remove(a.pattern)}
                        aria-label={`Remove alias ${a.pattern}`}
                        data-testid="alias-remove"
                      >
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {isAdmin && (
        <>
          <form className="inline-form" onSubmit={add} noValidate data-testid="alias-form">
            <Field label="Pattern" error={errors.pattern}>
              <input value={v.pattern} onChange={set('pattern')} placeholder="claude-haiku-*" autoComplete="off" data-testid="alias-pattern" />
            </Field>
            <Field label="Send to" error={errors.to} hint="provider/model, a catalog model or policy/preset">
              <input value={v.to} onChange={set('to')} placeholder="ollama/qwen3-coder" autoComplete="off" data-testid="alias-to" />
            </Field>
            <button className="btn btn-primary" disabled={busy} data-testid="alias-add">
              Add alias
            </button>
          </form>
          <FormError message={formError} />
        </>
      )}
    </Section>
  )
}
