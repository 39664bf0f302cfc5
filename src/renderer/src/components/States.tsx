import type { ReactNode } from 'react'
import type { ApiError } from '../api/errors'
import type { Query } from '../lib/useQuery'
import { PageHeader } from './Page'

export function Loading({ label = 'Loading…', testId = 'loading' }: { label?: string; testId?: string }) {
  return (
    <div className="state state-loading" role="status" data-testid={testId}>
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  )
}

/** Nothing to show yet, and what to do about it. */
export function Empty({ title, children, testId = 'empty' }: { title: string; children?: ReactNode; testId?: string }) {
  return (
    <div className="state state-empty" data-testid={testId}>
      <p className="state-title">{title}</p>
      {children && <div className="state-body">{children}</div>}
    </div>
  )
}

export function ErrorState({ error, onRetry, testId = 'error' }: { error: ApiError; onRetry?: () => void; testId?: string }) {
  const title =
    error.status === 403
      ? 'You do not have access to this'
      : error.status === 404
        ? 'Not found'
        : error.code === 'network'
          ? 'Cannot reach the gateway'
          : 'Something went wrong'
  return (
    <div className="state state-error" role="alert" data-testid={testId}>
      <p className="state-title">{title}</p>
      <p className="state-body" data-testid={`${testId}-message`}>
        {error.message}
      </p>
      {onRetry && (
        <button type="button" className="btn" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  )
}

export function AdminsOnly({ what }: { what: string }) {
  return (
    <div className="state state-empty" data-testid="admins-only" role="note">
      <p className="state-title">Admins only</p>
      <p className="state-body">{what} can be seen and changed by gateway admins. Ask an admin if you need something changed here.</p>
    </div>
  )
}

type PendingProps = { q: Pick<Query<unknown>, 'error' | 'reload'>; label?: string; errorTestId?: string; loadingTestId?: string }

/** A query without data yet: its error with a retry, or else a spinner. */
export function Pending({ q, label, errorTestId, loadingTestId }: PendingProps) {
  return q.error ? <ErrorState error={q.error} onRetry={q.reload} testId={errorTestId} /> : <Loading label={label} testId={loadingTestId} />
}

/** A detail screen whose query has no data yet: its title bar over the error or the spinner. */
export function PendingPage({ title, back, ...pending }: PendingProps & { title: string; back: { href: string; label: string } }) {
  return (
    <>
      <PageHeader title={title} back={back} />
      <Pending {...pending} />
    </>
  )
}
