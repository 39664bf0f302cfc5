import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { launch, skipReason, type WatchedPage } from './support/browser'
import { assertNoSideScroll, PHONE, shots, signedIn } from './support/views'
import { startStack, type Stack } from './support/stack'
import { Shell } from './pages/shell'
import { SettingsPage } from './pages/settings'

const skip = skipReason()

describe('Settings shows where traces go and what they carry', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let shell: Shell, settings: SettingsPage

  before(async () => {
    buildApp()
    // Spans would go to this collector; the screen must show it without the user, password or query.
    stack = await startStack(
      {},
      {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:s3cret@127.0.0.1:4318/v1/traces?api_key=k3y',
        GW_TRACE_PROPAGATE: 'true',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      },
    )
    browser = await launch()
    w = await signedIn(stack, browser)
    ;[shell, settings] = [new Shell(w.page), new SettingsPage(w.page)]
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('the endpoint without credentials, propagation, and content capture as body logging allows it', async () => {
    await shell.nav('settings')
    await settings.waitForLoaded()
    const shown = await settings.tracing()
    assert.equal(shown.endpoint, 'http://127.0.0.1:4318/v1/traces')
    assert.equal(shown.detail, 'traceparent sent on to providers; prompts and answers asked for, but body logging is off')
    assert.doesNotMatch(shown.text, /s3cret|k3y/)
    await settings.setLogBodies(true)
    assert.equal((await settings.tracing()).detail, 'traceparent sent on to providers; prompts and answers in spans')
    await w.page.setViewportSize(PHONE)
    await assertNoSideScroll(w.page, 'Settings with tracing on')
    await shots(w.page, 'settings-tracing', () => settings.id('settings-tracing-endpoint').waitFor())
  })
})
