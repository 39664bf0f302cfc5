import type { Locator } from 'playwright-core'
import { BasePage } from './base'

export class SessionsPage extends BasePage {
  rows(): Locator {
    return this.id('session-row')
  }
  row(sessionId: string): Locator {
    return this.page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`)
  }
  async waitForLoaded(): Promise<void> {
    await this.id('sessions-table').or(this.id('sessions-empty')).first().waitFor()
  }
  /** Picks a filter's option and waits for the list it asks for. */
  async choose(filter: 'tool' | 'key' | 'sort', value: string): Promise<void> {
    await this.answerOf('sessions.list', () => this.id(`sessions-${filter}`).selectOption(value))
    await this.waitForLoaded()
  }
  async open(sessionId: string): Promise<void> {
    await this.row(sessionId).getByTestId('session-link').click()
    await this.id('session-timeline').waitFor()
  }
}

export class SessionDetailPage extends BasePage {
  steps(): Locator {
    return this.id('timeline-row')
  }
  /** The marker before the first request the key's soft cap sent to its cheaper model. */
  softCapMarker(): Locator {
    return this.id('timeline-soft-cap')
  }
  /** The timeline's rows in order, steps and markers, by their test ids. */
  rowKinds(): Promise<Array<string | null>> {
    return this.id('timeline-table')
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-testid')))
  }
  /** The marker before a request routing moved to another provider or model. */
  moveMarker(): Locator {
    return this.id('timeline-moved')
  }
  /** The "so far" figure of each step, in order. */
  async soFar(): Promise<string[]> {
    return (await this.id('timeline-so-far').allInnerTexts()).map((t) => t.trim())
  }
}
