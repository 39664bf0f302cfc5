import type { Locator } from 'playwright-core'
import { BasePage } from './base'

export class KeysPage extends BasePage {
  row(name: string): Locator {
    return this.page.locator(`[data-testid="key-row"][data-key-name="${name}"]`)
  }
  async waitForLoaded(): Promise<void> {
    await this.id('keys-table').or(this.id('keys-empty')).first().waitFor()
  }
  /** Creates a key and returns its secret and id, read from the one-time secret dialog. */
  async create(name: string, opts: { balance?: string; defaultPreset?: string } = {}): Promise<{ secret: string; id: string }> {
    await this.id('create-key').click()
    await this.id('create-key-form').waitFor()
    await this.id('key-name').fill(name)
    if (opts.balance !== undefined) await this.id('key-opening-balance').fill(opts.balance)
    if (opts.defaultPreset) await this.id('key-default-preset').selectOption(opts.defaultPreset)
    const res = await this.answerOf('keys.create', () => this.id('key-name').press('Enter'))
    const body = (await res.json()) as { key: { id: string } }
    const secret = (await this.id('key-secret').innerText()).trim()
    return { secret, id: body.key.id }
  }
  async closeSecret(): Promise<void> {
    await this.id('key-secret-done').click()
    await this.id('key-secret-dialog').waitFor({ state: 'detached' })
  }
  async open(name: string): Promise<void> {
    await this.row(name).getByTestId('key-link').click()
    await this.id('key-detail').waitFor()
  }
  async revoke(name: string): Promise<void> {
    await this.row(name).getByTestId('key-revoke').click()
    await this.id('confirm-dialog').waitFor()
    await this.answerOf('keys.revoke', () => this.id('confirm-ok').click())
    await this.waitForText(this.row(name).getByTestId('key-status'), 'Revoked')
  }
  async names(): Promise<string[]> {
    return this.id('key-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key-name')!))
  }
}

export class KeyDetailPage extends BasePage {
  async setDefaultPreset(name: string): Promise<void> {
    await this.id('default-preset-select').selectOption(name)
    await this.answerOf('keys.update', () => this.id('default-preset-save').click())
  }
  async topUp(amount: string, note?: string): Promise<void> {
    await this.id('topup-amount').fill(amount)
    if (note) await this.id('topup-note').fill(note)
    await this.answerOf('keys.topUp', () => this.id('topup-amount').press('Enter'))
  }
  /** Sets the key's per-session limits in its policy form and saves. */
  async setSessionLimits(usd: string, requests: string): Promise<void> {
    await this.id('policy-session-usd').fill(usd)
    await this.id('policy-session-requests').fill(requests)
    await this.answerOf('keys.update', () => this.id('policy-save').click())
  }
  /** Sets how long the response cache keeps the key's answers (empty: off) and saves. */
  async setCacheTtl(ttl: string): Promise<void> {
    await this.id('key-cache-ttl').fill(ttl)
    await this.answerOf('keys.update', () => this.id('key-cache-save').click())
  }
  /** Sets the key's daily spend limit and saves. */
  async setDailyLimit(usd: string): Promise<void> {
    await this.id('limit-daily').fill(usd)
    await this.answerOf('keys.update', () => this.id('limits-save').click())
  }
  /** Sets the soft cap in the key's policy form and saves. */
  async setSoftCap(model: string, percent: string): Promise<void> {
    await this.id('policy-soft-cap-model').fill(model)
    await this.id('policy-soft-cap-at').fill(percent)
    await this.answerOf('keys.update', () => this.id('policy-save').click())
  }
  /** Deletes the key's stored responses, through the confirm dialog. */
  async deleteStoredResponses(): Promise<void> {
    await this.id('key-stored-responses-delete').click()
    await this.id('confirm-dialog').waitFor()
    await this.answerOf('keys.deleteResponses', () => this.id('confirm-ok').click())
  }
  storedResponses(): Locator {
    return this.id('key-stored-responses-count')
  }
  balance(): Locator {
    return this.id('key-balance-value')
  }
  ledgerRows(): Locator {
    return this.id('ledger-row')
  }
}
