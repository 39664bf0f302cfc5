import { useEffect, useState, type FormEvent } from 'react'
import type { User } from '../../../../contract/auth'
import { operations } from '../../../../contract'
import { call } from '../../api/client'
import { Checkbox, Field, FormError } from '../../components/Field'
import { useSubmit, type Errors } from '../../lib/useForm'
import { validate } from '../../lib/validate'

/** First run: create the owner account. Afterwards: sign in. */
export function AuthScreen({ setupRequired, onSignedIn }: { setupRequired: boolean; onSignedIn: (u: User) => void }) {
  useEffect(() => {
    document.title = `${setupRequired ? 'Set up' : 'Sign in'} · GW Gateway`
  }, [setupRequired])
  return (
    <main className="auth-screen">
      <div className="auth-card card">
        <div className="brand brand-large" aria-hidden="true">
          <span className="brand-mark">GW</span>
          <span>Gateway</span>
        </div>
        {setupRequired ? <SetupForm onDone={onSignedIn} /> : <SignInForm onDone={onSignedIn} />}
      </div>
    </main>
  )
}

function SetupForm({ onDone }: { onDone: (u: User) => void }) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [confirm, setConfirm] = useState('')
  const { errors, formError, busy, submit: send } = useSubmit()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const input = { username, password }
    const errs = validate(operations['auth.setup'].input, input)
    if (!errs.password && password !== confirm) errs.confirm = 'does not match the password'
    send(errs, async () => onDone(await call('auth.setup', input)))
  }
  return (
    <form onSubmit={submit} noValidate data-testid="setup-form" aria-labelledby="setup-title">
      <h1 id="setup-title">Welcome to GW Gateway</h1>
      <p className="muted">Create the owner account. It is an admin: it can add providers, users and presets. You can add more users later.</p>
      <Field label="User name" error={errors.username} hint="2–64 letters, digits, ., _, @ or -">
        <input value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="username" autoFocus data-testid="setup-username" />
      </Field>
      <Field label="Password" error={errors.password} hint="At least 10 characters">
        <input type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" data-testid="setup-password" />
      </Field>
      <Field label="Repeat the password" error={errors.confirm}>
        <input type="password" value={confirm} onChange={(e) => setConfirm(e.target.value)} autoComplete="new-password" data-testid="setup-confirm" />
      </Field>
      <FormError message={formError} />
      <button className="btn btn-primary btn-block" disabled={busy} data-testid="setup-submit">
        {busy ? 'Creating…' : 'Create owner account'}
      </button>
    </form>
  )
}

function SignInForm({ onDone }: { onDone: (u: User) => void }) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [remember, setRemember] = useState(false)
  const { errors, formError, busy, submit: send } = useSubmit()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const errs: Errors = {}
    if (!username.trim()) errs.username = 'enter your user name'
    if (!password) errs.password = 'enter your password'
    send(errs, async () => onDone(await call('auth.signIn', { username: username.trim(), password, remember })), {
      formMessage: (ae) => (ae.status === 401 ? `Sign-in failed: ${ae.message}` : ae.message),
    })
  }
  return (
    <form onSubmit={submit} noValidate data-testid="signin-form" aria-labelledby="signin-title">
      <h1 id="signin-title">Sign in</h1>
      <p className="muted">Sign in to manage keys, presets and providers and to see requests and spend.</p>
      <Field label="User name" error={errors.username}>
        <input value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="username" autoFocus data-testid="signin-username" />
      </Field>
      <Field label="Password" error={errors.password}>
        <input type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="current-password" data-testid="signin-password" />
      </Field>
      <Checkbox label="Stay signed in" checked={remember} onChange={setRemember} testId="signin-remember" />
      <FormError message={formError} testId="signin-error" />
      <button className="btn btn-primary btn-block" disabled={busy} data-testid="signin-submit">
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  )
}
