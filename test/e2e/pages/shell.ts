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

  async navItems(): Promise<string[]> {
    return this.page.locator('[data-testid^="nav-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice(4)))
  }

  async signOut(): Promise<void> {
    await this.id('sign-out').click()
    await this.id('signin-form').waitFor()
  }
}
