import type { SessionAlert } from '../contract/sessionAlerts'
import { usd } from '../gateway/pipeline/refusals'
import type { SessionAlerts } from '../gateway/pipeline/sessionAlerts'
import { usdToPico } from '../gateway/store/ledgerRepo'

/** A structural view of Electron's Notification, so tests can pass a fake. */
export interface NotificationLike {
  show(): void
  on(event: 'click' | 'close', listener: () => void): unknown
}
export type NotificationCtor = new (options: { title: string; body: string }) => NotificationLike

/** What a desktop notification says of a session that passed the alert threshold. */
export function sessionAlertNotice(a: SessionAlert): { title: string; body: string } {
  const tool = a.tool ? ` (${a.tool})` : ''
  return {
    title: `A session passed ${usd(usdToPico(a.threshold_usd))}`,
    body: `Session ${a.session_id}${tool} on key "${a.key_name}" has cost ${usd(usdToPico(a.cost_usd))}. Open the dashboard to see its requests.`,
  }
}

/**
 * Shows each session alert as a desktop notification; clicking one calls `onClick` (the app opens
 * its window, where the banner links to the session's requests). Returns the function that stops.
 */
export function notifySessionAlerts(alerts: SessionAlerts, Notification: NotificationCtor, onClick: () => void): () => void {
  // Held until closed: a notification collected while on screen loses its click handler.
  const shown = new Set<NotificationLike>()
  return alerts.subscribe((alert) => {
    const n = new Notification(sessionAlertNotice(alert))
    shown.add(n)
    n.on('click', onClick)
    n.on('close', () => shown.delete(n))
    n.show()
  })
}
