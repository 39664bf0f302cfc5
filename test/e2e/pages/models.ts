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
}
