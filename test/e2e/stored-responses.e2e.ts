import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { launch, skipReason, type WatchedPage } from './support/browser'
import { assertAccessible, assertNoSideScroll, PHONE, shots, signedIn } from './support/views'
import { startStack, type Stack } from './support/stack'
import { Shell } from './pages/shell'
import { KeyDetailPage, KeysPage } from './pages/keys'
import { SettingsPage } from './pages/settings'
import { keepTurn } from '../support/keptResponse'

const skip = skipReason()

describe('stored Responses: how long they are kept, and deleting a key’s', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let shell: Shell, keys: KeysPage, keyDetail: KeyDetailPage, settings: SettingsPage

  before(async () => {
    buildApp()
    stack = await startStack()
    browser = await launch()
    w = await signedIn(stack, browser)
    const p = w.page
    ;[shell, keys, keyDetail, settings] = [new Shell(p), new KeysPage(p), new KeyDetailPage(p), new SettingsPage(p)]
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('the retention of stored Responses is saved, refused by field when out of range, and shown after a reload', async () => {
    await shell.nav('settings')
    await settings.waitForLoaded()
    assert.equal(await settings.id('settings-response-retention').inputValue(), '30', 'the default')
    await settings.setResponseRetention('')
    await settings.waitForText(settings.fieldError('settings-response-retention'), 'enter a number of days; 0 keeps none')
    await settings.setResponseRetention('5000')
    await settings.waitForText(settings.fieldError('settings-response-retention'), 'must be between 0 and 3650')
    await settings.answerOf('settings.update', () => settings.setResponseRetention('7'))
    await settings.waitForToast('Settings saved')
    assert.equal(stack.running.gateway.settings.response_retention_days, 7)

    await w.page.reload()
    await settings.waitForLoaded()
    assert.equal(await settings.id('settings-response-retention').inputValue(), '7')
    const hint = settings.page.locator('.field:has([data-testid="settings-response-retention"]) .field-hint')
    assert.match(await hint.innerText(), /store: false keep nothing; 0 keeps none/)
    await w.page.setViewportSize(PHONE)
    await assertNoSideScroll(w.page, 'the settings page')
    await assertAccessible(w.page, 'the settings page')
    await shots(w.page, 'settings-response-retention', () => settings.id('settings-response-retention').waitFor())
  })

  it('a key’s page counts its stored responses and deletes them after a confirmation', async () => {
    await shell.nav('keys')
    const key = await keys.create('agent-sdk')
    await keys.closeSecret()
    await keepTurn(stack.running.gateway.store.responses, key.id, 'Is the tide in?')
    await keepTurn(stack.running.gateway.store.responses, key.id, 'And tomorrow?')
    await keys.open('agent-sdk')
    await keyDetail.waitForText(keyDetail.storedResponses(), 'Stored responses: 2')
    await w.page.setViewportSize(PHONE)
    await assertNoSideScroll(w.page, 'the key page')
    await assertAccessible(w.page, 'the key page')
    await shots(w.page, 'key-stored-responses', () => keyDetail.id('key-stored-responses-delete').waitFor())

    await w.page.setViewportSize(PHONE)
    await keyDetail.id('key-stored-responses-delete').click()
    const dialog = keyDetail.id('confirm-dialog')
    await dialog.waitFor()
    assert.match(await dialog.innerText(), /2 stored responses will be deleted: clients can no longer continue them/)
    const box = (await dialog.boundingBox())!
    assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `the confirmation fits a phone: ${box.x}+${box.width} px`)
    await assertAccessible(w.page, 'the confirmation')
    await w.page.setViewportSize({ width: 1280, height: PHONE.height })
    await keyDetail.id('confirm-cancel').click()
    assert.equal(await stack.running.gateway.store.responses.countForKey(key.id, Date.now()), 2, 'cancelling deletes nothing')

    await keyDetail.deleteStoredResponses()
    await keyDetail.waitForToast('Deleted 2 stored responses of “agent-sdk”')
    await keyDetail.waitForText(keyDetail.storedResponses(), 'Stored responses: 0')
    await keyDetail.id('key-stored-responses-delete').waitFor({ state: 'detached' })
    assert.equal(await stack.running.gateway.store.responses.countForKey(key.id, Date.now()), 0)
  })
})
