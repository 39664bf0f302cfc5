import { useEffect, type ReactNode } from 'react'

/** A screen's title bar; also sets the document title and moves focus for screen readers on navigation. */
export function PageHeader(props: { title: string; subtitle?: ReactNode; actions?: ReactNode; back?: { href: string; label: string } }) {
  useEffect(() => {
    document.title = `${props.title} · GW Gateway`
  }, [props.title])
  return (
    <header className="page-header">
      <div>
        {props.back && (
          <a className="back-link" href={props.back.href}>
            ← {props.back.label}
          </a>
        )}
        <h1 tabIndex={-1} data-testid="page-title">
          {props.title}
        </h1>
        {props.subtitle && <p className="page-subtitle">{props.subtitle}</p>}
      </div>
      {props.actions && <div className="page-actions">{props.actions}</div>}
    </header>
  )
}

export function Section(props: { title: string; children: ReactNode; actions?: ReactNode; testId?: string; description?: ReactNode }) {
  return (
    <section className="card" data-testid={props.testId} aria-label={props.title}>
      <div className="card-head">
        <h2>{props.title}</h2>
        {props.actions && <div className="card-actions">{props.actions}</div>}
      </div>
      {props.description && <p className="card-desc">{props.description}</p>}
      {props.children}
    </section>
  )
}

export function Badge(props: { kind?: 'ok' | 'warn' | 'danger' | 'muted' | 'accent'; children: ReactNode; testId?: string; title?: string }) {
  return (
    <span className={`badge badge-${props.kind ?? 'muted'}`} data-testid={props.testId} title={props.title}>
      {props.children}
    </span>
  )
}

/** Labelled values in two columns. */
export function Facts({ items, testId }: { items: Array<[string, ReactNode]>; testId?: string }) {
  return (
    <dl className="facts" data-testid={testId}>
      {items.map(([k, v]) => (
        <div key={k} className="fact">
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  )
}
