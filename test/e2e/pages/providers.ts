import type { Locator, Response } from 'playwright-core'
import { BasePage } from './base'

export class ProvidersPage extends BasePage {
  card(id: string): Locator {
    return this.page.locator(`[data-testid="provider-card"][data-provider-id="${id}"]`)
  }
  async waitForLoaded(): Promise<void> {
    await this.id('providers-list').waitFor()
  }
  async setKey(id: string, key: string): Promise<void> {
    const card = this.card(id)
    await card.getByTestId('provider-key-input').fill(key)
    await this.answerOf('providers.set', () => card.getByTestId('provider-key-input').press('Enter'))
  }
  /** Removes a provider's stored settings and key, confirming, and waits for the list to show it without them. */
  async remove(id: string): Promise<void> {
    await this.card(id).getByTestId('provider-remove').click()
    await this.id('confirm-dialog').waitFor()
    await this.answerOf('providers.remove', () => this.id('confirm-ok').click())
    await this.id('confirm-dialog').waitFor({ state: 'detached' })
  }
  credential(id: string): Locator {
    return this.card(id).getByTestId('provider-credential')
  }
  keyInput(id: string): Locator {
    return this.card(id).getByTestId('provider-key-input')
  }
  /** Adds a provider of kind openai through the *Add a provider* dialog; `dialect` '' leaves it to the base URL. */
  async add(p: { id: string; baseUrl: string; apiKey: string; dialect: string }): Promise<Response> {
    await this.id('add-provider').click()
    await this.id('add-provider-id').fill(p.id)
    await this.id('add-provider-url').fill(p.baseUrl)
    await this.id('add-provider-key').fill(p.apiKey)
    await this.id('add-provider-dialect').selectOption(p.dialect)
    return this.answerOf('providers.set', () => this.id('add-provider-submit').click())
  }
  dialect(id: string): Locator {
    return this.card(id).getByTestId('provider-dialect-input')
  }
  async setDialect(id: string, dialect: string): Promise<Response> {
    await this.dialect(id).selectOption(dialect)
    return this.answerOf('providers.set', () => this.card(id).getByTestId('provider-dialect-save').click())
  }
  async test(id: string): Promise<{ ok: boolean; text: string }> {
    const card = this.card(id)
    await card.getByTestId('provider-test').click()
    const result = card.getByTestId('provider-test-result')
    await result.waitFor()
    return { ok: (await result.getAttribute('data-ok')) === 'true', text: await result.innerText() }
  }
}
