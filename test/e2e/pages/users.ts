import type { Locator } from 'playwright-core'
import { BasePage } from './base'

export class UsersPage extends BasePage {
  row(username: string): Locator {
    return this.page.locator(`[data-testid="user-row"][data-username="${username}"]`)
  }
  async add(username: string, password: string, role: 'member' | 'admin' = 'member'): Promise<void> {
    await this.id('user-username').fill(username)
    await this.id('user-password').fill(password)
    await this.id('user-role').selectOption(role)
    await this.answerOf('users.create', () => this.id('user-password').press('Enter'))
    await this.row(username).waitFor()
  }
}
