import { BasePage } from './base'

export class OverviewPage extends BasePage {
  async waitForLoaded(): Promise<void> {
    await this.id('totals').or(this.id('overview-error')).first().waitFor()
  }
  async range(r: '24h' | '7d' | '30d'): Promise<void> {
    await this.answerOf('analytics.overview', () => this.page.locator(`[data-testid="range-${r}"]`).check())
  }
  async totalRequests(): Promise<string> {
    return this.id('total-requests-value').innerText()
  }
  async baseUrl(): Promise<string> {
    return this.id('base-url').innerText()
  }
}
