import { useEffect, useState } from 'react'
import type { SessionAlert } from '../../../contract/sessionAlerts'
import { call } from '../api/client'
import { usd } from '../lib/format'
import { href } from '../lib/router'

/** How often the dashboard asks for new session alerts. */
const POLL_MS = 5000
/** Alerts up to this time (the gateway's clock) were dismissed in this browser. */
const DISMISSED = 'gw.sessionAlerts.dismissedUntil'

const dismissedUntil = () => Number(localStorage.getItem(DISMISSED) ?? 0)

/** Sessions that passed the alert threshold (Settings → Alerts), until dismissed; polled while the dashboard is open. */
export function SessionAlertBanner() {
  const [alerts, setAlerts] = useState<SessionAlert[]>([])
  useEffect(() => {
    let live = true
    const poll = () =>
      call('sessions.alerts', { since: dismissedUntil() }).then(
        (a) => live && setAlerts(a),
        // A failed poll leaves the banner as it was; the next one tries again.
        () => {},
      )
    void poll()
    const timer = setInterval(poll, POLL_MS)
    return () => {
      live = false
      clearInterval(timer)
    }
  }, [])
  if (alerts.length === 0) return null
  const dismiss = () => {
    localStorage.setItem(DISMISSED, String(Math.max(...alerts.map((a) => a.at)) + 1))
    setAlerts([])
  }
  return (
    <div className="callout callout-warn session-alerts" role="alert" data-testid="session-alerts">
      <ul>
        {alerts.map((a) => (
          <li key={`${a.key_id}/${a.session_id}`} data-testid="session-alert" data-session-id={a.session_id}>
            Session <code>{a.session_id}</code>
            {a.tool && <> ({a.tool})</>} on key <strong>{a.key_name}</strong> passed {usd(a.threshold_usd)}: it has cost {usd(a.cost_usd)}.{' '}
            <a href={href('requests', { session_id: a.session_id, key_id: a.key_id })} data-testid="session-alert-requests">
              See its requests
            </a>
          </li>
        ))}
      </ul>
      <button type="button" className="btn btn-small" onClick={dismiss} data-testid="session-alerts-dismiss">
        Dismiss
      </button>
    </div>
  )
}
