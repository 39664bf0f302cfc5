import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { launch, skipReason, type WatchedPage } from './support/browser'
import { signedIn } from './support/views'
import { startStack, type Stack } from './support/stack'
import { Shell } from './pages/shell'
import { ProvidersPage } from './pages/providers'

const skip = skipReason()

describe("a provider's dialect on the Providers screen", { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let providers: ProvidersPage
  let key: string

  /** A Messages request with a token limit to `model`; resolves to the body the provider got. */
  const sent = async (model: string) => {
    const res = await fetch(`${stack.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model, max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] }),
    })
    assert.equal(res.status, 200, await res.text())
    return stack.fake.received.at(-1)!.body
  }

  before(async () => {
    buildApp()
    stack = await startStack()
    key = (await stack.running.gateway.store.keys.create('dialects')).secret
    await stack.running.gateway.configChanged()
    browser = await launch()
    w = await signedIn(stack, browser)
    providers = new ProvidersPage(w.page)
    await new Shell(w.page).nav('providers')
    await providers.waitForLoaded()
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it("an OpenAI added under another id at an address that says nothing: chosen OpenAI's in the dialog, its requests carry max_completion_tokens", async () => {
    const res = await providers.add({ id: 'openai-eu', baseUrl: stack.fake.url, apiKey: stack.fake.apiKey, dialect: 'openai' })
    assert.equal(res.status(), 200, await res.text())
    await providers.card('openai-eu').waitFor()
    assert.equal(await providers.dialect('openai-eu').inputValue(), 'openai')
    const body = await sent('openai-eu/gpt-5.1')
    assert.equal(body.max_completion_tokens, 100)
    assert.equal(body.max_tokens, undefined)
  })

  it('changed on its card to another compatible server: saved, shown, and its requests carry max_tokens', async () => {
    const res = await providers.setDialect('openai-eu', 'generic')
    assert.equal(res.status(), 200, await res.text())
    await providers.waitForToast('Dialect of openai-eu saved')
    // Once the list is read again, the card shows the saved dialect and has nothing to save.
    await providers.card('openai-eu').locator('[data-testid="provider-dialect-save"]:disabled').waitFor()
    assert.equal(await providers.dialect('openai-eu').inputValue(), 'generic')
    const body = await sent('openai-eu/gpt-5.1')
    assert.equal(body.max_tokens, 100)
    assert.equal(body.max_completion_tokens, undefined)
  })

  it('left to the base URL in the dialog: an address that says nothing is a generic server', async () => {
    const res = await providers.add({ id: 'mybox', baseUrl: stack.fake.url, apiKey: stack.fake.apiKey, dialect: '' })
    assert.equal(res.status(), 200, await res.text())
    await providers.card('mybox').waitFor()
    assert.equal(await providers.dialect('mybox').inputValue(), 'generic')
    assert.equal((await stack.running.gateway.store.providers.all()).find((p) => p.id === 'mybox')!.dialect, null, 'nothing was set: it follows the base URL')
  })
})
