import { BasePage } from './base'

export class AuthPage extends BasePage {
  async open(): Promise<void> {
    await this.page.goto('/')
  }

  async setupOwner(username: string, password: string, confirm = password): Promise<void> {
    await this.id('setup-form').waitFor()
    await this.id('setup-username').fill(username)
    await this.id('setup-password').fill(password)
    await this.id('setup-confirm').fill(confirm)
    await this.id('setup-confirm').press('Enter')
  }

  async signIn(username: string, password: string, remember = false): Promise<void> {
    await this.id('signin-form').waitFor()
    await this.id('signin-username').fill(username)
    await this.id('signin-password').fill(password)
    if (remember) await this.id('signin-remember').check()
    await this.id('signin-password').press('Enter')
  }
}
