import type { Locator } from 'playwright-core'
import { BasePage } from './base'

export type Screen = 'overview' | 'playground' | 'requests' | 'sessions' | 'keys' | 'presets' | 'models' | 'providers' | 'users' | 'settings'

/** The sidebar and whoever is signed in. */
export class Shell extends BasePage {
  async waitForSignedIn(username: string): Promise<void> {
    await this.waitForText(this.id('whoami'), username)
  }

  async nav(screen: Screen): Promise<void> {
    await this.id(`nav-${screen}`).click()
    await this.id(`screen-${screen}`).waitFor()
  }

  /** The banner line of a session that passed the alert threshold (the dashboard polls for them). */
  sessionAlert(sessionId: string): Locator {
    return this.page.locator(`[data-testid="session-alert"][data-session-id="${sessionId}"]`)
  }

  async dismissSessionAlerts(): Promise<void> {
    await this.id('session-alerts-dismiss').click()
    await this.id('session-alerts').waitFor({ state: 'detached' })
  }

  async navItems(): Promise<string[]> {
    return this.page.locator('[data-testid^="nav-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice(4)))
  }

  async signOut(): Promise<void> {
    await this.id('sign-out').click()
    await this.id('signin-form').waitFor()
  }
}
