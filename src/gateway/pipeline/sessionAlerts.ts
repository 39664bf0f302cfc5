import type { SessionAlert } from '../../contract/sessionAlerts'
import { picoToUsdNumber, usdToPico } from '../../contract/money'

/** The settings' `session_alert_usd` in pico-dollars, converted once as the settings are read; null when alerts are off. */
export const alertThresholdPico = (settings: { session_alert_usd: number | null }): bigint | null =>
  settings.session_alert_usd === null ? null : usdToPico(settings.session_alert_usd)

/** Where the stages that count sessions' spend raise alerts. */
export interface SessionAlertSink {
  /** The threshold in pico-dollars (`alertThresholdPico`); null when alerts are off. */
  threshold(): bigint | null
  raise(alert: SessionAlert): void
}

/** Where a session's spend went from `beforePico` to `afterPico`: the alert when that crossed the threshold, else null. */
export function crossedThreshold(
  thresholdPico: bigint | null,
  beforePico: bigint,
  afterPico: bigint,
  session: Omit<SessionAlert, 'cost_usd' | 'threshold_usd'>,
): SessionAlert | null {
  if (thresholdPico === null || !(beforePico < thresholdPico && afterPico >= thresholdPico)) return null
  return { ...session, cost_usd: picoToUsdNumber(afterPico), threshold_usd: picoToUsdNumber(thresholdPico) }
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
