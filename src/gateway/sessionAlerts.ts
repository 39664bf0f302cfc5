import type { SessionAlert } from '../contract/sessionAlerts'

/** Alerts kept for the dashboard to poll; older ones were seen or are stale. */
const KEPT = 200

/**
 * Sessions that passed the alert threshold, in the order they did: the dashboard polls them
 * (`sessions.alerts`), the desktop app subscribes to show each as a notification.
 */
export class SessionAlerts {
  private alerts: SessionAlert[] = []
  private readonly listeners = new Set<(alert: SessionAlert) => void>()

  raise(alert: SessionAlert): void {
    this.alerts.push(alert)
    if (this.alerts.length > KEPT) this.alerts.splice(0, this.alerts.length - KEPT)
    for (const listener of this.listeners) listener(alert)
  }

  since(at: number): SessionAlert[] {
    return this.alerts.filter((a) => a.at >= at)
  }

  /** Returns the function that unsubscribes. */
  subscribe(listener: (alert: SessionAlert) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}
