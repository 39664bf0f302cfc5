import type { Locator } from 'playwright-core'
import type { PlaygroundWire } from '../../../src/contract/playground'
import { BasePage } from './base'

export class PlaygroundPage extends BasePage {
  async waitForReady(): Promise<void> {
    await this.id('pg-form').or(this.id('playground-no-keys')).first().waitFor()
  }
  async choose(keyId: string, model: string): Promise<void> {
    await this.id('pg-key').selectOption(keyId)
    await this.id('pg-model').selectOption(model)
  }
  /** A model's entry in the model picker; it is there once the Playground has the gateway's model list. */
  modelOption(model: string): Locator {
    return this.id('pg-model').locator(`option[value="${model}"]`)
  }
  /** What the model picker says of a model (`(unavailable)` after its id when its provider cannot serve now), once the list is in. */
  async modelLabel(model: string): Promise<string> {
    const option = this.modelOption(model)
    await option.waitFor({ state: 'attached' })
    return (await option.textContent())!.trim()
  }
  /** Chooses the wire the request goes through. */
  async wire(wire: PlaygroundWire): Promise<void> {
    await this.id(`pg-wire-${wire}`).check()
  }
  /** Types a message and presses Enter; resolves once it is streaming. */
  async start(text: string): Promise<void> {
    await this.id('pg-input').fill(text)
    await this.id('pg-input').press('Enter')
    await this.id('pg-stop').waitFor()
  }
  /** Types a message and presses Enter; resolves when the stream has ended (result or error shown). */
  async send(text: string): Promise<void> {
    await this.id('pg-input').fill(text)
    await this.id('pg-input').press('Enter')
    await this.id('run-result').or(this.id('run-error')).first().waitFor()
  }
  /** Presses Stop; resolves once the Playground says it stopped. */
  async stop(): Promise<void> {
    await this.id('pg-stop').click()
    await this.id('pg-stopped').waitFor()
  }
  async reply(): Promise<string> {
    const assistant = this.id('pg-message-assistant').last()
    await assistant.waitFor()
    return assistant.locator('textarea').inputValue()
  }
  async cost(): Promise<string> {
    return this.id('run-cost').innerText()
  }
  /** Opens the Request view and reads the body it shows. */
  async requestBody(): Promise<string> {
    await this.id('pg-request').locator('summary').click()
    return this.id('pg-request-body').innerText()
  }
  async error(): Promise<{ status: string; message: string }> {
    await this.id('run-error').waitFor()
    return { status: await this.id('run-error-status').innerText(), message: await this.id('run-error-message').innerText() }
  }
}
