import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { launch, skipReason, type WatchedPage } from './support/browser'
import { signedIn } from './support/views'
import { startStack, type Stack } from './support/stack'
import { defaultRouting } from '../../src/gateway/routing/routingConfig'
import { Shell } from './pages/shell'
import { KeysPage } from './pages/keys'
import { PlaygroundPage } from './pages/playground'
import { ProvidersPage } from './pages/providers'

const skip = skipReason()
const MODEL = 'anthropic/claude-sonnet-4-5'

// The gateway keeps each provider's health for a minute so the model list stays fast, and skips a
// provider for a while after repeated failures; a key saved or removed on the Providers screen must
// wait out neither in the Playground's picker.
describe('a provider key saved or removed shows in the Playground at once', { skip: skip ?? false }, () => {
  let stack: Stack
  let anthropic: FakeAnthropic
  let browser: Browser
  let w: WatchedPage
  let shell: Shell, keys: KeysPage, playground: PlaygroundPage, providers: ProvidersPage
  let keyId: string

  /** Opens the Playground from the sidebar, as a user would, and reads what its picker says of MODEL. */
  const pickerLabel = async () => {
    await shell.nav('playground')
    await playground.waitForReady()
    return playground.modelLabel(MODEL)
  }

  before(async () => {
    buildApp()
    stack = await startStack()
    anthropic = await startFakeAnthropic()
    // Anthropic at the fake's address, with no key anywhere yet.
    const gw = stack.running.gateway
    await gw.store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    await gw.configChanged()
    browser = await launch()
    w = await signedIn(stack, browser)
    ;[shell, keys, playground, providers] = [new Shell(w.page), new KeysPage(w.page), new PlaygroundPage(w.page), new ProvidersPage(w.page)]
    await shell.nav('keys')
    keyId = (await keys.create('playground')).id
    await keys.closeSecret()
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
    await anthropic?.close()
    await stack?.running.gateway.secrets.delete('anthropic').catch(() => false)
  })

  it('a provider without a key is unavailable, however often it is tried; once its key is saved its models are available', async () => {
    assert.equal(await pickerLabel(), `${MODEL} (unavailable)`)
    // Tried anyway, as often as failures take to cool a provider down: each time the answer says to give it a key.
    await playground.choose(keyId, MODEL)
    for (let i = 0; i < defaultRouting.cooldownAfterFailures; i++) {
      await playground.send('Hello')
      assert.match((await playground.error()).message, /no API key for provider anthropic/)
      await playground.id('pg-clear').click()
      await playground.id('run-error').waitFor({ state: 'detached' })
    }

    await shell.nav('providers')
    await providers.waitForLoaded()
    await providers.setKey('anthropic', anthropic.apiKey)
    await providers.waitForText(providers.credential('anthropic'), anthropic.apiKey.slice(-4))

    assert.equal(await pickerLabel(), MODEL)
    anthropic.script({ kind: 'reply', text: 'Hello from Claude.' })
    await playground.choose(keyId, MODEL)
    await playground.send('Hello')
    assert.equal(await playground.reply(), 'Hello from Claude.', 'the provider is called with the key saved')
  })

  it('once its key is removed, the provider is unavailable again', async () => {
    await shell.nav('providers')
    await providers.waitForLoaded()
    await providers.remove('anthropic')
    await providers.waitForText(providers.credential('anthropic'), 'no key')

    assert.equal(await pickerLabel(), `${MODEL} (unavailable)`)
  })
})
