import type { SessionAlert } from '../../contract/sessionAlerts'
import { usdToPico } from '../store/ledgerRepo'

/** Where a session's spend went from `beforePico` to `afterPico`: the alert when that crossed the threshold, else null. */
export function crossedThreshold(
  thresholdUsd: number | null,
  beforePico: bigint,
  afterPico: bigint,
  session: Omit<SessionAlert, 'cost_usd' | 'threshold_usd'>,
): SessionAlert | null {
  if (thresholdUsd === null) return null
  const at = usdToPico(thresholdUsd)
  if (!(beforePico < at && afterPico >= at)) return null
  return { ...session, cost_usd: Number(afterPico) / 1e12, threshold_usd: thresholdUsd }
}

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
