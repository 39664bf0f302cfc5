import type { Locator, Page, Response } from 'playwright-core'

/** What every page object shares: test-id lookups, hash navigation and waiting on app state. */
export class BasePage {
  constructor(readonly page: Page) {}

  id(testId: string): Locator {
    return this.page.getByTestId(testId)
  }

  /** Navigates by hash, as a user following a link would. */
  async go(hash: string): Promise<void> {
    await this.page.evaluate(`window.location.hash = ${JSON.stringify(hash.replace(/^#/, ''))}`)
  }

  async title(): Promise<string> {
    return (await this.id('page-title').innerText()).trim()
  }

  async waitForTitle(text: string): Promise<void> {
    await this.page.getByTestId('page-title').filter({ hasText: text }).first().waitFor()
  }

  /** Waits until `locator` shows `text`. */
  async waitForText(locator: Locator, text: string | RegExp): Promise<void> {
    await locator.filter({ hasText: text }).first().waitFor()
  }

  /**
   * Waits until exactly `count` elements carry this test id: a list re-renders after its answer
   * arrives, so counting at once could read the rows it is about to replace. A timeout fails.
   */
  async waitForCount(testId: string, count: number): Promise<void> {
    // A function, not a string expression: Playwright evaluates a string with eval() when it has
    // to poll, which the dashboard's CSP (script-src 'self') refuses. The page's DOM types are not
    // in the Node-side type check, hence the narrow cast.
    type Page = { document: { querySelectorAll(selector: string): { length: number } } }
    await this.page.waitForFunction(([id, n]) => (globalThis as unknown as Page).document.querySelectorAll(`[data-testid="${id}"]`).length === n, [
      testId,
      count,
    ] as const)
  }

  /** The answer of a management call, started by `action`. */
  async answerOf(op: string, action: () => Promise<unknown>): Promise<Response> {
    const [res] = await Promise.all([this.page.waitForResponse((r) => r.url().endsWith(`/api/${op}`) && r.request().method() === 'POST'), action()])
    return res
  }

  /**
   * Holds the answers of a management call until `release()`, to catch a screen while it waits for
   * one; `stop()` lets any held answer through and holds no more.
   */
  async holdAnswers(op: string): Promise<{ release: () => void; stop: () => Promise<void> }> {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const url = `**/api/${op}`
    await this.page.route(url, async (route) => {
      await held
      await route.continue()
    })
    return {
      release,
      stop: async () => {
        release()
        await this.page.unroute(url)
      },
    }
  }

  async toast(kind: 'success' | 'error' | 'info' = 'success'): Promise<string> {
    const t = this.id(`toast-${kind}`).last()
    await t.waitFor()
    return (await t.innerText()).trim()
  }

  async waitForToast(text: string | RegExp, kind: 'success' | 'error' | 'info' = 'success'): Promise<void> {
    await this.waitForText(this.id(`toast-${kind}`), text)
  }

  /** Field error shown beside the control with this test id. */
  fieldError(controlTestId: string): Locator {
    return this.page.locator(`.field:has([data-testid="${controlTestId}"]) [data-testid="field-error"]`)
  }
}
