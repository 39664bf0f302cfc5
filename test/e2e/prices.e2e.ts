import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
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
    await models
      .id('price-advanced')
      .fill(JSON.stringify({ long_context: { above_prompt_tokens: 1000, input: 2, output: 4 }, schedule: [{ from: '2027-02-30', input: 3 }] }))
    await models.id('price-save').click()
    // Checked before sending, with the path inside the row.
    await models.waitForText(models.fieldError('price-advanced'), 'schedule.0.from: not a calendar date')

    await models
      .id('price-advanced')
      .fill(JSON.stringify({ long_context: { above_prompt_tokens: 1000, input: 2, output: 4 }, schedule: [{ from: '2027-02-28', input: 3, output: 6 }] }))
    const saved = await models.answerOf('prices.set', () => models.id('price-save').click())
    assert.equal(saved.status(), 200)
    await models.waitForToast('Price of openai/gpt-e2e saved')
    const row = (await stack.running.gateway.store.prices.all()).find((o) => o.model === 'openai/gpt-e2e')?.row
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

  it('refreshes prices from a listing: shows the diff, applies it on confirmation, says so when the source is down', async () => {
    let down = false
    const listing = http.createServer((_req, res) => {
      if (down) return void res.writeHead(503).end()
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          data: [
            { id: 'openai/gpt-6-luna', pricing: { prompt: '0.0000002', completion: '0.000001' } },
            { id: 'openai/gpt-e2e-new', pricing: { prompt: '0.000001', completion: '0.000002' } },
            { id: 'meta-llama/llama-9', pricing: { prompt: '0.0000001', completion: '0.0000001' } },
          ],
        }),
      )
    })
    await new Promise<void>((resolve) => listing.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(listing.address() as AddressInfo).port}/api/v1/models`
    try {
      // The reprice dialog of the test before is still open.
      await models.id('dialog-close').click()
      await models.id('reprice-dialog').waitFor({ state: 'detached' })
      assert.equal(await models.compareListing(url), 200)
      await models.waitForText(models.id('refresh-counts'), '1 new, 1 changed, 0 unchanged, 1 skipped.')
      await models.waitForCount('refresh-row', 2)
      assert.equal(
        (await stack.running.gateway.store.prices.all()).some((o) => o.model === 'openai/gpt-e2e-new'),
        false,
        'nothing saved before Apply',
      )
      assert.equal(await models.applyListing(), 200)
      await models.waitForToast('Saved 2 prices dated today')
      await models.waitForText(models.id('refresh-counts'), '— saved.')
      const saved = (await stack.running.gateway.store.prices.all()).find((o) => o.model === 'openai/gpt-6-luna')!
      assert.match(saved.note ?? '', /^refreshed from http:\/\/127\.0\.0\.1:\d+\/api\/v1\/models on \d{4}-\d{2}-\d{2} by user:admin$/)
      assert.deepEqual(
        { ...saved.row.schedule!.at(-1), from: undefined },
        { input: 0.2, output: 1, cached_input: 0.01, cache_write: 0.125, from: undefined, long_context: saved.row.long_context },
      )

      down = true
      w.allowHttpError(502, 'prices.refresh')
      assert.equal(await models.answerOf('prices.refresh', () => models.id('refresh-compare').click()).then((r) => r.status()), 502)
      await models.waitForText(models.id('form-error'), /could not read prices from .*: HTTP 503\. Nothing changed/)
    } finally {
      await new Promise<void>((resolve) => listing.close(() => resolve()))
    }
  })

  it('Refresh prices shows its source field only once the saved source has been read, so nothing typed is overwritten', async () => {
    await models.id('dialog-close').click()
    await models.id('refresh-dialog').waitFor({ state: 'detached' })
    // settings.get is held until the test lets it through: the dialog is caught while it waits.
    const settings = await models.holdAnswers('settings.get')
    try {
      await models.id('refresh-open').click()
      await models.id('dialog-loading').waitFor()
      assert.equal(await models.id('refresh-source').count(), 0, 'no field to type into while the saved source is on its way')
      assert.equal(await models.id('refresh-compare').isDisabled(), true)
      settings.release()
      // It mounts with the saved source in it (the one the test before compared).
      await models.id('refresh-source').waitFor()
      assert.match(await models.id('refresh-source').inputValue(), /^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/models$/)
    } finally {
      await settings.stop()
    }
  })

  it("a model's Set price opens with its stored price row, its fields shown once it has been read", async () => {
    await models.id('dialog-close').click()
    await models.id('refresh-dialog').waitFor({ state: 'detached' })
    const price = await models.holdAnswers('prices.get')
    try {
      await models.row('openai/gpt-6-luna').getByTestId('model-price-edit').click()
      await models.id('dialog-loading').waitFor()
      assert.equal(await models.id('price-input').count(), 0, 'no field to type into while the price is on its way')
      price.release()
      // The row as the refresh in the test before left it: the catalog's rates, and today's in its schedule.
      await models.id('price-input').waitFor()
      assert.equal(await models.id('price-input').inputValue(), '0.1')
      const advanced = JSON.parse(await models.id('price-advanced').inputValue()) as { schedule: { input: number; output: number }[] }
      assert.deepEqual(
        advanced.schedule.map(({ input, output }) => ({ input, output })),
        [{ input: 0.2, output: 1 }],
      )
      await models.id('dialog-close').click()
      await models.id('price-dialog').waitFor({ state: 'detached' })
    } finally {
      await price.stop()
    }
  })
})
