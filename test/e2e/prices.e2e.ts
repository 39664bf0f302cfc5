import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { launch, openPage, skipReason, type WatchedPage } from './support/browser'
import { startStack, type Stack } from './support/stack'
import { AuthPage } from './pages/auth'
import { Shell } from './pages/shell'
import { ModelsPage } from './pages/models'

const skip = skipReason()

describe('price rows and repricing on the Models screen', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let shell: Shell, models: ModelsPage

  before(async () => {
    buildApp()
    stack = await startStack()
    browser = await launch()
    w = await openPage(browser, stack.url)
    ;[shell, models] = [new Shell(w.page), new ModelsPage(w.page)]
    const auth = new AuthPage(w.page)
    await auth.open()
    await auth.setupOwner('admin', 'admin-password-123')
    await shell.waitForSignedIn('admin')
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('saves a whole row from the common fields and the advanced editor, naming a wrong field in the row', async () => {
    await shell.nav('models')
    await models.waitForLoaded()
    await models.id('price-new').click()
    await models.id('price-model').fill('openai/gpt-e2e')
    await models.id('price-input').fill('1')
    await models.id('price-output').fill('2')
    await models.id('price-cache-write-1h').fill('2')
    await models.page.locator('[data-testid="price-dialog"] summary').click()
    await models.id('price-advanced').fill(JSON.stringify({ long_context: { above_prompt_tokens: 1000, input: 2, output: 4 }, schedule: [{ from: '2027-02-30', input: 3 }] }))
    await models.id('price-save').click()
    // Checked before sending, with the path inside the row.
    await models.waitForText(models.fieldError('price-advanced'), 'schedule.0.from: not a calendar date')

    await models.id('price-advanced').fill(JSON.stringify({ long_context: { above_prompt_tokens: 1000, input: 2, output: 4 }, schedule: [{ from: '2027-02-28', input: 3, output: 6 }] }))
    const saved = await models.answerOf('prices.set', () => models.id('price-save').click())
    assert.equal(saved.status(), 200)
    await models.waitForToast('Price of openai/gpt-e2e saved')
    const row = stack.running.gateway.prices.all().find((o) => o.model === 'openai/gpt-e2e')?.row
    assert.deepEqual(row, {
      input: 1,
      output: 2,
      cache_write_1h: 2,
      long_context: { above_prompt_tokens: 1000, input: 2, output: 4 },
      schedule: [{ from: '2027-02-28', input: 3, output: 6 }],
    })
  })

  it('previews and runs a reprice from the Models screen', async () => {
    await models.id('reprice-open').click()
    await models.id('reprice-since').fill('2026-01-01')
    await models.answerOf('prices.reprice', () => models.id('reprice-run').click())
    await models.waitForText(models.id('reprice-result'), /^Would change \d+ of \d+ requests/)
    await models.id('reprice-dry-run').uncheck()
    await models.answerOf('prices.reprice', () => models.id('reprice-run').click())
    await models.waitForText(models.id('reprice-result'), /^Changed \d+ of \d+ requests; difference \$[\d.e-]+; 0 prepaid ledger adjustments\./)
  })
})
