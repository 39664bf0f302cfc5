import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { waitForRecord } from '../support/harness'
import { axe, describeViolations, launch, screenshot, serious, skipReason, type WatchedPage } from './support/browser'
import { startStack, type Stack } from './support/stack'
import { playgroundWithKey } from './support/views'
import { PlaygroundPage } from './pages/playground'

const skip = skipReason()

describe('the Playground on the Anthropic Messages wire', { skip: skip ?? false }, () => {
  let stack: Stack
  let anthropic: FakeAnthropic
  let browser: Browser
  let w: WatchedPage
  let playground: PlaygroundPage
  let keyId: string

  before(async () => {
    buildApp()
    stack = await startStack()
    anthropic = await startFakeAnthropic()
    const gw = stack.running.gateway
    await gw.secrets.set('anthropic', anthropic.apiKey)
    await gw.store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    await gw.configChanged()
    browser = await launch()
    ;({ w, playground, keyId } = await playgroundWithKey(stack, browser, 'claude-code'))
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
    await anthropic?.close()
    await stack?.running.gateway.secrets.delete('anthropic').catch(() => false)
  })

  it('sends what Claude Code sends: the answer streams in, the cost footer and stop reason follow, the Request view shows the Messages body', async () => {
    anthropic.script({ kind: 'reply', text: 'Bonjour ! Comment puis-je vous aider ?', usage: { input_tokens: 20, output_tokens: 9 } })
    await playground.choose(keyId, 'anthropic/claude-sonnet-4-5')
    await playground.wire('messages')
    await playground.waitForText(playground.id('pg-wire-hint'), 'Claude Code')
    assert.equal(await playground.id('pg-max-tokens').getAttribute('placeholder'), '1024')
    await playground.id('pg-system').fill('Answer in French.')
    await playground.send('Hello')
    assert.equal(await playground.reply(), 'Bonjour ! Comment puis-je vous aider ?')
    // 20 × $3/M + 9 × $15/M
    assert.equal(await playground.cost(), '$0.000195')
    assert.equal(await playground.id('run-provider').innerText(), 'anthropic')
    assert.equal(await playground.id('run-stop-reason').innerText(), 'end_turn')
    assert.match(await playground.id('run-routing').innerText(), /Stop reason/)

    const body = JSON.parse(await playground.requestBody())
    assert.deepEqual(body, {
      model: 'anthropic/claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'Answer in French.',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
    })
    assert.match(await playground.id('pg-request').locator('summary').innerText(), /POST \/v1\/messages/)
    assert.equal(anthropic.received.at(-1)!.body.system, 'Answer in French.')
    const snippet = await playground.id('pg-snippet').innerText()
    assert.match(snippet, /\/v1\/messages[\s\S]*x-api-key: \$GW_KEY[\s\S]*"max_tokens":1024,"system":"Answer in French\."/)

    const requestId = (await playground.id('run-request-link').innerText()).trim()
    const record = await waitForRecord(stack.running.gateway, requestId)
    assert.deepEqual([record.endpoint, record.source, record.outcome], ['messages', 'playground', 'ok'])

    for (const width of [1280, 390]) {
      await w.page.setViewportSize({ width, height: 900 })
      for (const theme of ['light', 'dark'] as const) {
        await w.page.emulateMedia({ colorScheme: theme })
        await screenshot(w.page, `playground-messages-${width}-${theme}`)
        const violations = serious(await axe(w.page))
        assert.deepEqual(violations, [], `${width} ${theme}: ${describeViolations(violations)}`)
      }
    }
    await w.page.emulateMedia({ colorScheme: 'light' })
    await w.page.setViewportSize({ width: 1360, height: 900 })
  })

  it('a model on an OpenAI provider answers on the Messages wire through translation, and a provider error shows legibly', async () => {
    await playground.id('pg-clear').click()
    await playground.choose(keyId, 'openai/gpt-4o-mini')
    await playground.wire('messages')
    await playground.send('Hello')
    assert.match(await playground.reply(), /\w/)
    assert.match(await playground.cost(), /\$/)
    await playground.id('pg-clear').click()
    stack.fake.script({
      kind: 'status',
      status: 400,
      body: { error: { message: 'This model does not take that.', type: 'invalid_request_error', param: null, code: null } },
    })
    await playground.send('Hello again')
    const error = await playground.error()
    assert.match(error.status, /^400 /)
    assert.match(error.message, /does not take that/)
    await screenshot(w.page, 'playground-messages-error')
  })

  it('Stop ends a stream: the text so far stays, the provider call ends and the record says aborted', async () => {
    stack.fake.script({ kind: 'endless-stream', intervalMs: 20 })
    const closed = stack.fake.waitForClientClose(5000)
    await playground.choose(keyId, 'openai/gpt-4o-mini')
    await playground.wire('chat')
    await playground.start('Count forever')
    await playground.waitForText(playground.id('pg-reply-text'), /\w/)
    await playground.stop()
    await closed
    assert.match(await playground.reply(), /\w/, 'the text so far stays in the conversation')
    const requestId = decodeURIComponent((await playground.id('pg-stopped-link').getAttribute('href'))!.split('/').at(-1)!)
    const record = await waitForRecord(stack.running.gateway, requestId)
    assert.deepEqual([record.endpoint, record.source, record.outcome], ['chat.completions', 'playground', 'aborted'])
  })
})
