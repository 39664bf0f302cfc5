import type { Locator } from 'playwright-core'
import { BasePage } from './base'

export class RequestsPage extends BasePage {
  rows(): Locator {
    return this.id('request-row')
  }
  async waitForLoaded(): Promise<void> {
    await this.id('requests-table').or(this.id('requests-empty')).first().waitFor()
  }
  async filter(values: Record<string, string>): Promise<void> {
    for (const [k, v] of Object.entries(values)) {
      const el = this.id(`filter-${k}`)
      if ((await el.evaluate((e) => e.tagName)) === 'SELECT') await el.selectOption(v)
      else await el.fill(v)
    }
    await this.answerOf('requests.list', () => this.id('filters-apply').click())
    await this.waitForLoaded()
  }
  /** Types a request id into the search box and submits it. */
  async find(id: string): Promise<void> {
    await this.id('find-request').fill(id)
    await this.answerOf('requests.get', () => this.id('find-request-go').click())
  }
  /** Exports the filtered list and returns the downloaded file's name and text. */
  async exportCsv(): Promise<{ name: string; text: string }> {
    const [download] = await Promise.all([this.page.waitForEvent('download'), this.id('requests-export').click()])
    const chunks: Buffer[] = []
    for await (const c of (await download.createReadStream()) as AsyncIterable<Buffer>) chunks.push(c)
    return { name: download.suggestedFilename(), text: Buffer.concat(chunks).toString('utf8') }
  }
  async openFirst(): Promise<string> {
    const id = (await this.rows().first().getAttribute('data-request-id'))!
    await this.rows().first().getByTestId('request-link').click()
    await this.id('request-detail').waitFor()
    return id
  }
}

export class RequestDetailPage extends BasePage {
  async waitForLoaded(): Promise<void> {
    await this.id('request-detail').waitFor()
  }
  tags(): Locator {
    return this.id('detail-tags')
  }
  /** The gateway that served the request, a link to the requests it served. */
  gateway(): Locator {
    return this.id('detail-instance')
  }
  /** What the request page says of the response cache. */
  cache(): Locator {
    return this.id('detail-response-cache')
  }
  /** What the request page says of a session's move (only on the turn that moved). */
  moved(): Locator {
    return this.id('detail-moved')
  }
  /** The request page's prompt-cache section (the cache doctor's). */
  promptCache(): Locator {
    return this.id('detail-prompt-cache')
  }
  async followSession(): Promise<void> {
    await this.id('follow-session').click()
    await this.id('requests-table').or(this.id('requests-empty')).first().waitFor()
  }
}
