import { BasePage } from './base'

export class PlaygroundPage extends BasePage {
  async waitForReady(): Promise<void> {
    await this.id('pg-form').or(this.id('playground-no-keys')).first().waitFor()
  }
  async choose(keyId: string, model: string): Promise<void> {
    await this.id('pg-key').selectOption(keyId)
    await this.id('pg-model').selectOption(model)
  }
  /** Types a message and presses Enter; resolves when the stream has ended (result or error shown). */
  async send(text: string): Promise<void> {
    await this.id('pg-input').fill(text)
    await this.id('pg-input').press('Enter')
    await this.id('run-result').or(this.id('run-error')).first().waitFor()
  }
  async reply(): Promise<string> {
    const assistant = this.id('pg-message-assistant').last()
    await assistant.waitFor()
    return assistant.locator('textarea').inputValue()
  }
  async cost(): Promise<string> {
    return this.id('run-cost').innerText()
  }
  async error(): Promise<{ status: string; message: string }> {
    await this.id('run-error').waitFor()
    return { status: await this.id('run-error-status').innerText(), message: await this.id('run-error-message').innerText() }
  }
}
