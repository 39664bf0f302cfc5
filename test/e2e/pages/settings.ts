import { BasePage } from './base'

export class SettingsPage extends BasePage {
  async waitForLoaded(): Promise<void> {
    await this.id('settings-form').or(this.id('admins-only')).first().waitFor()
  }
  async setSessionAlert(usd: string): Promise<void> {
    await this.id('settings-session-alert').fill(usd)
    await this.answerOf('settings.update', () => this.id('settings-save').click())
  }
  /** Ticks or clears "Keep request and response bodies" and saves. */
  async setLogBodies(on: boolean): Promise<void> {
    await this.id('settings-log-bodies').setChecked(on)
    await this.answerOf('settings.update', () => this.id('settings-save').click())
  }
  /** Types the days stored Responses are kept and saves (the answer may be a refusal shown beside the field). */
  async setResponseRetention(days: string): Promise<void> {
    await this.id('settings-response-retention').fill(days)
    await this.id('settings-save').click()
  }
  /** Clears the response cache through its confirmation. */
  async clearResponseCache(): Promise<void> {
    await this.id('settings-cache-clear').click()
    await this.id('confirm-dialog').waitFor()
    await this.answerOf('cache.clear', () => this.id('confirm-ok').click())
  }
  async adminsOnlyShown(): Promise<boolean> {
    return this.id('admins-only').isVisible()
  }
  /** What the status section says of metrics: off and how to turn them on, or where they are scraped. */
  async metrics(): Promise<string> {
    await this.id('settings-metrics').waitFor()
    return (await this.id('settings-metrics').innerText()).trim()
  }
  /** The Tracing fact: "Off …", or the endpoint and what the spans carry. */
  async tracing(): Promise<{ text: string; endpoint: string | null; detail: string | null }> {
    await this.id('settings-tracing').waitFor()
    const on = await this.id('settings-tracing-endpoint').isVisible()
    return {
      text: (await this.id('settings-tracing').innerText()).trim(),
      endpoint: on ? (await this.id('settings-tracing-endpoint').innerText()).trim() : null,
      detail: on ? (await this.id('settings-tracing-detail').innerText()).trim() : null,
    }
  }
  /** The log file's path and rotation as the status section shows them, and whether it offers to open its folder (desktop only). */
  async logFile(): Promise<{ path: string; rotation: string; showButton: boolean }> {
    await this.id('settings-log-file').waitFor()
    return {
      path: (await this.id('settings-log-file').innerText()).trim(),
      rotation: (await this.id('settings-log-rotation').innerText()).trim(),
      showButton: await this.id('settings-log-show').isVisible(),
    }
  }
}
