import type { Locator } from 'playwright-core'
import { BasePage } from './base'

export class ModelsPage extends BasePage {
  row(id: string): Locator {
    return this.page.locator(`[data-testid="model-row"][data-model-id="${id}"]`)
  }
  async waitForLoaded(): Promise<void> {
    await this.id('models-table').or(this.id('models-empty')).first().waitFor()
  }
  async search(text: string): Promise<void> {
    await this.id('models-search').fill(text)
  }
  aliasRow(pattern: string): Locator {
    return this.page.locator(`[data-testid="alias-row"][data-pattern="${pattern}"]`)
  }
  /** Fills the Aliases panel's form and submits it; resolves to the answer of `aliases.set`. */
  async addAlias(pattern: string, to: string): Promise<number> {
    await this.id('alias-pattern').fill(pattern)
    await this.id('alias-to').fill(to)
    const res = await this.answerOf('aliases.set', () => this.id('alias-add').click())
    return res.status()
  }
  async removeAlias(pattern: string): Promise<void> {
    await this.answerOf('aliases.remove', () => this.aliasRow(pattern).getByTestId('alias-remove').click())
    await this.aliasRow(pattern).waitFor({ state: 'detached' })
  }
  /** Opens Refresh prices, sets the source and compares; resolves to the answer of `prices.refresh`. */
  async compareListing(url: string): Promise<number> {
    await this.id('refresh-open').click()
    await this.id('refresh-source').fill(url)
    const res = await this.answerOf('prices.refresh', () => this.id('refresh-compare').click())
    return res.status()
  }
  /** Applies the differences shown; resolves to the answer of `prices.refresh`. */
  async applyListing(): Promise<number> {
    const res = await this.answerOf('prices.refresh', () => this.id('refresh-apply').click())
    return res.status()
  }
}
