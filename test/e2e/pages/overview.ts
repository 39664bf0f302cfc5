import { BasePage } from './base'

export class OverviewPage extends BasePage {
  async waitForLoaded(): Promise<void> {
    await this.id('totals').or(this.id('overview-error')).first().waitFor()
  }
  async range(r: '24h' | '7d' | '30d'): Promise<void> {
    await this.answerOf('analytics.overview', () => this.page.locator(`[data-testid="range-${r}"]`).check())
  }
  /** A custom range of whole days, `YYYY-MM-DD`. */
  async customRange(from: string, to: string): Promise<void> {
    await this.page.locator('[data-testid="range-custom"]').check()
    await this.id('custom-from').fill(from)
    await this.id('custom-to').fill(to)
    await this.answerOf('analytics.overview', () => this.id('custom-apply').click())
  }
  /** Groups the breakdown by one of its choices (and a dimension's name), once its answer is in. */
  async breakdownBy(by: string, dimension?: string): Promise<void> {
    if (dimension === undefined) {
      await this.answerOf('analytics.groupBy', () => this.id('breakdown-by').selectOption(by))
      return
    }
    await this.id('breakdown-by').selectOption(by)
    await this.answerOf('analytics.groupBy', () => this.id('breakdown-dimension').fill(dimension))
  }
  /** The breakdown's rows as [first column, requests]. */
  async breakdownRows(): Promise<Array<[string, string]>> {
    const rows = await this.id('breakdown').locator('tbody tr').all()
    return Promise.all(
      rows.map(async (r) => [(await r.locator('td').nth(0).innerText()).trim(), (await r.locator('td').nth(1).innerText()).trim()] as [string, string]),
    )
  }
  /** The cache row's figures, by their test ids' names (`total-cache-saved` → `cache-saved`). */
  async cacheFigures(): Promise<Record<'cache-hit-rate' | 'cache-saved' | 'cache-wasted' | 'response-cache', { value: string; hint: string }>> {
    await this.id('cache-totals').waitFor()
    const figure = async (name: string) => {
      const stat = this.id(`total-${name}`)
      return { value: (await stat.getByTestId(`total-${name}-value`).innerText()).trim(), hint: (await stat.locator('.stat-hint').innerText()).trim() }
    }
    return {
      'cache-hit-rate': await figure('cache-hit-rate'),
      'cache-saved': await figure('cache-saved'),
      'cache-wasted': await figure('cache-wasted'),
      'response-cache': await figure('response-cache'),
    }
  }
  async totalRequests(): Promise<string> {
    return this.id('total-requests-value').innerText()
  }
  async baseUrl(): Promise<string> {
    return this.id('base-url').innerText()
  }
}
