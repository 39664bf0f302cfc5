import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { launch, openPage, skipReason, type WatchedPage } from './support/browser'
import { startStack, type Stack } from './support/stack'
import { AuthPage } from './pages/auth'
import { Shell } from './pages/shell'
import { KeysPage } from './pages/keys'
import { RequestsPage } from './pages/requests'
import { UsersPage } from './pages/users'
import { SettingsPage } from './pages/settings'
import { OverviewPage } from './pages/overview'

const skip = skipReason()

describe('a member sees only their own keys and requests', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let auth: AuthPage, shell: Shell, keys: KeysPage, requests: RequestsPage, users: UsersPage, settings: SettingsPage, overview: OverviewPage
  let ownerKey: { id: string; secret: string }
  let ownerRequestId: string

  before(async () => {
    buildApp()
    stack = await startStack()
    browser = await launch()
    w = await openPage(browser, stack.url)
    const p = w.page
    ;[auth, shell, keys, requests, users, settings, overview] = [
      new AuthPage(p),
      new Shell(p),
      new KeysPage(p),
      new RequestsPage(p),
      new UsersPage(p),
      new SettingsPage(p),
      new OverviewPage(p),
    ]
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('the admin sets up, makes a key with traffic, and adds a member on the Users screen', async () => {
    await auth.open()
    await auth.setupOwner('admin', 'admin-password-123')
    await shell.waitForSignedIn('admin')
    await shell.nav('keys')
    ownerKey = await keys.create('admin-key')
    await keys.closeSecret()
    const client = new OpenAI({ baseURL: stack.baseURL, apiKey: ownerKey.secret, maxRetries: 0 })
    const res = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'admin traffic' }] })
    ownerRequestId = (res as unknown as { gw: { request_id: string } }).gw.request_id
    await stack.running.gateway.records.flushed()

    await shell.nav('users')
    await users.id('user-username').fill('mia')
    await users.id('user-password').fill('short')
    await users.id('user-password').press('Enter')
    await users.waitForText(users.fieldError('user-password'), 'at least 10 characters')
    await users.add('mia', 'mia-password-123', 'member')
    await users.waitForText(users.row('mia'), 'member')
    await shell.signOut()
  })

  it('the member signs in and sees no admin screens', async () => {
    await auth.signIn('mia', 'wrong-password-1')
    w.allowHttpError(401, 'auth.signIn')
    await auth.id('signin-error').waitFor()
    await auth.signIn('mia', 'mia-password-123', true)
    await shell.waitForSignedIn('mia')
    assert.deepEqual(await shell.navItems(), ['overview', 'playground', 'requests', 'sessions', 'keys', 'presets', 'models'])
    // Sign-in keeps the address the dashboard was at (the admin left it on Users).
    await settings.id('admins-only').waitFor()
    await shell.nav('overview')
    await overview.waitForLoaded()
    assert.equal(await overview.totalRequests(), '0', 'the admin’s traffic is not in the member’s totals')
    for (const screen of ['settings', 'users', 'providers']) {
      await settings.go(`#/${screen}`)
      await settings.id('admins-only').waitFor()
    }
  })

  it('the member cannot see the admin’s keys or requests', async () => {
    await shell.nav('keys')
    await keys.id('keys-empty').waitFor()
    await shell.nav('requests')
    await requests.id('requests-empty').waitFor()
    assert.equal(await requests.rows().count(), 0)

    w.allowHttpError(404, 'keys.get')
    await keys.go(`#/keys/${ownerKey.id}`)
    await keys.id('key-error').waitFor()
    assert.doesNotMatch(await w.page.locator('main').innerText(), /admin-key/)

    w.allowHttpError(404, 'requests.get')
    await requests.go(`#/requests/${ownerRequestId}`)
    await requests.id('request-error').waitFor()
  })

  it('the member’s own key is theirs alone', async () => {
    await shell.nav('keys')
    await keys.create('mia-key')
    await keys.closeSecret()
    await keys.row('mia-key').waitFor()
    assert.deepEqual(await keys.names(), ['mia-key'])
    await keys.open('mia-key')
    await keys.id('admin-only-note').first().waitFor()
    assert.equal(await keys.id('topup-form').count(), 0, 'members cannot top up')
    await shell.signOut()
    await auth.signIn('admin', 'admin-password-123')
    await shell.waitForSignedIn('admin')
    await shell.nav('keys')
    // The admin's list loads after navigation; wait for it before reading it.
    await keys.row('admin-key').waitFor()
    await keys.row('mia-key').waitFor()
    assert.deepEqual((await keys.names()).sort(), ['admin-key', 'mia-key'])
  })
})
