import { useCallback, useEffect, useState } from 'react'
import type { Output } from '../../contract'
import { call, onUnauthenticated } from './api/client'
import { toApiError, type ApiError } from './api/errors'
import { ToastProvider, useToast } from './components/Toasts'
import { ErrorState, Loading } from './components/States'
import { SessionContext } from './lib/session'
import { AuthScreen } from './screens/auth/AuthScreen'
import { Layout } from './Layout'

type Status = Output<'auth.status'>

export function App() {
  return (
    <ToastProvider>
      <Root />
    </ToastProvider>
  )
}

/** Asks the gateway who is signed in; shows first-run setup, sign-in or the dashboard. */
function Root() {
  const [status, setStatus] = useState<Status | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const toast = useToast()
  const refresh = useCallback(() => {
    call('auth.status', {}).then(
      (s) => {
        setStatus(s)
        setError(null)
      },
      (e) => setError(toApiError(e)),
    )
  }, [])
  useEffect(refresh, [refresh])
  useEffect(
    () =>
      onUnauthenticated(() => {
        setStatus((s) => (s?.user ? { ...s, user: null } : s))
        toast('Your session ended. Sign in again to continue.', 'info')
      }),
    [toast],
  )
  const signOut = useCallback(() => {
    call('auth.signOut', {}).then(
      () => {
        setStatus((s) => (s ? { ...s, user: null } : s))
        toast('Signed out', 'info')
      },
      (e) => toast(toApiError(e).message, 'error'),
    )
  }, [toast])

  if (error)
    return (
      <main className="center-screen">
        <ErrorState error={error} onRetry={refresh} testId="app-error" />
      </main>
    )
  if (!status)
    return (
      <main className="center-screen">
        <Loading label="Connecting to the gateway…" testId="app-loading" />
      </main>
    )
  if (!status.user) return <AuthScreen setupRequired={status.setup_required} onSignedIn={(user) => setStatus({ setup_required: false, user })} />
  return (
    <SessionContext.Provider value={{ user: status.user, isAdmin: status.user.role === 'admin', signOut }}>
      <Layout />
    </SessionContext.Provider>
  )
}
