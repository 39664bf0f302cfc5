import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { launch, openPage, screenshot, skipReason, type WatchedPage } from './support/browser'
import { startStack, type Stack } from './support/stack'
import { AuthPage } from './pages/auth'
import { Shell } from './pages/shell'
import { KeysPage } from './pages/keys'
import { ModelsPage } from './pages/models'

const skip = skipReason()

describe('model aliases on the Models screen', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let shell: Shell, keys: KeysPage, models: ModelsPage

  before(async () => {
    buildApp()
    stack = await startStack()
    browser = await launch()
    w = await openPage(browser, stack.url)
    ;[shell, keys, models] = [new Shell(w.page), new KeysPage(w.page), new ModelsPage(w.page)]
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

  it('an alias added in the panel routes the next /v1 request; a bad target is refused beside its field', async () => {
    await shell.nav('keys')
    const key = await keys.create('claude-code')
    await keys.closeSecret()
    await shell.nav('models')
    await models.id('aliases-empty').waitFor()

    w.allowHttpError(400, 'aliases.set')
    assert.equal(await models.addAlias('claude-haiku-*', 'nowhere/model-x'), 400)
    await models.waitForText(models.fieldError('alias-to'), 'unknown model "nowhere/model-x"')

    assert.equal(await models.addAlias('claude-haiku-*', 'openai/gpt-4o-mini'), 200)
    await models.waitForText(models.aliasRow('claude-haiku-*'), 'openai/gpt-4o-mini')

    const client = new OpenAI({ baseURL: stack.baseURL, apiKey: key.secret, maxRetries: 0 })
    const res = (await client.chat.completions.create({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'hi' }] })) as unknown as {
      gw: { routing: { alias: unknown; requested_model: string } }
    }
    assert.equal(stack.fake.received.at(-1)!.body.model, 'gpt-4o-mini')
    assert.deepEqual(res.gw.routing.alias, { pattern: 'claude-haiku-*', target: 'openai/gpt-4o-mini' })
    assert.equal(res.gw.routing.requested_model, 'claude-haiku-4-5')

    assert.equal(await models.addAlias('claude-sonnet-*', 'openai/gpt-4o'), 200)
    await models.waitForCount('alias-row', 2)
    // Saved toasts would cover the form in the pictures; they leave after 4 s.
    await models.waitForCount('toast-success', 0)
    for (const width of [1280, 390]) {
      await w.page.setViewportSize({ width, height: 900 })
      for (const theme of ['light', 'dark'] as const) {
        await w.page.emulateMedia({ colorScheme: theme })
        await screenshot(w.page, `aliases-${width}-${theme}`)
      }
    }
    await w.page.emulateMedia({ colorScheme: 'light' })
    await w.page.setViewportSize({ width: 1360, height: 900 })

    await models.removeAlias('claude-sonnet-*')
    await models.waitForCount('alias-row', 1)
  })
})
