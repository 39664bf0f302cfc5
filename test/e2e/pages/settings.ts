import { BasePage } from './base'

export class SettingsPage extends BasePage {
  async waitForLoaded(): Promise<void> {
    await this.id('settings-form').or(this.id('admins-only')).first().waitFor()
  }
  async adminsOnlyShown(): Promise<boolean> {
    return this.id('admins-only').isVisible()
  }
}
