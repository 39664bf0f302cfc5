// The Requests screen's tools beside the list: find a request by id, export what the filters
// match as CSV, follow new requests live, and filter by the gateway that served them.
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { startGateway } from '../../src/gateway/server'
import { MemorySecretStore } from '../support/memorySecretStore'
import { databaseUrlOf } from '../support/storeFile'
import { tempDir } from '../support/tempDir'
import { launch, skipReason, type WatchedPage } from './support/browser'
import { startStack, type Stack } from './support/stack'
import { shots, signedIn } from './support/views'
import { Shell } from './pages/shell'
import { RequestDetailPage, RequestsPage } from './pages/requests'

const skip = skipReason()

describe('Requests: find by id, CSV export, live tail, gateway filter', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let client: OpenAI
  let requests: RequestsPage
  let secret: string
  const ids: string[] = []

  const ask = async (tag: string, model = 'gpt-4o-mini') => {
    const r = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], gw: { tags: [tag] } } as never).withResponse()
    ids.push(r.response.headers.get('x-request-id')!)
  }

  before(async () => {
    buildApp()
    stack = await startStack()
    const gw = stack.running.gateway
    const key = await gw.store.keys.create('tools')
    await gw.configChanged()
    secret = key.secret
    client = new OpenAI({ baseURL: stack.baseURL, apiKey: secret, maxRetries: 0 })
    await ask('export-me')
    await ask('export-me', 'openai/=cmd|unpriced')
    await ask('other')
    await gw.records.flushed()
    browser = await launch()
    w = await signedIn(stack, browser)
    requests = new RequestsPage(w.page)
    await new Shell(w.page).nav('requests')
    await requests.waitForCount('request-row', 3)
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('finds a request by the id a client got back, and says so when there is none', async () => {
    await requests.find(`  ${ids[1]} `)
    await new RequestDetailPage(w.page).waitForLoaded()
    assert.equal(await w.page.evaluate('location.hash'), `#/requests/${ids[1]}`)
    assert.match(await w.page.getByTestId('detail-speed').innerText(), /^\d+\.\d tokens\/s over the whole request$/)
    await new Shell(w.page).nav('requests')
    await requests.waitForCount('request-row', 3)
    w.allowHttpError(404, 'requests.get')
    await requests.find('req_does_not_exist')
    await requests.waitForText(requests.id('find-request-error'), 'No request req_does_not_exist that you can see.')
  })

  it('exports exactly the filtered requests as CSV, newest first, a formula-like model defused', async () => {
    await requests.filter({ tag: 'export-me' })
    await requests.waitForCount('request-row', 2)
    const file = await requests.exportCsv()
    assert.match(file.name, /^gw-requests-\d{4}-\d\d-\d\dT\d{6}\.csv$/)
    const lines = file.text.split('\r\n')
    assert.equal(lines.length, 4, 'a header, two rows and the last line end')
    assert.match(lines[0], /^id,created_at,endpoint,status,/)
    assert.deepEqual(
      lines.slice(1, 3).map((l) => l.split(',')[0]),
      [ids[1], ids[0]],
    )
    assert.match(lines[1], /,'=cmd\|unpriced,/, 'a cell a spreadsheet would run starts with an apostrophe')
    assert.match(lines[1], /,,false,/, 'the unpriced request has no cost and says priced=false')
    assert.match(lines[2], /,\d\.\d+(e-\d+)?,true,/)
    await requests.waitForText(requests.id('requests-export-note'), '2 rows exported.')
  })

  it('follows new requests live on the newest page, and stops when switched off', async () => {
    await w.page.evaluate('location.hash = "#/requests"')
    await requests.waitForCount('request-row', 3)
    await requests.id('requests-live').check()
    await ask('live')
    await requests.waitForCount('request-row', 4)
    assert.equal(await requests.rows().first().getAttribute('data-request-id'), ids[3])
    await shots(w.page, 'requests-tools', () => requests.rows().first().waitFor())
    await requests.id('requests-live').uncheck()
    // Sorted another way, the live view does not apply.
    await requests.go('#/requests?sort=latency_ms')
    await requests.waitForCount('request-row', 4)
    assert.equal(await requests.id('requests-live').isDisabled(), true)
  })

  it('offers the gateways that served requests as a filter, and says in the detail which one served it', async () => {
    // A second gateway on the same store, as a team runs several behind a load balancer.
    const database = databaseUrlOf(stack.dataDir)
    const second = await startGateway(
      {
        host: '127.0.0.1',
        port: 0,
        logLevel: 'silent',
        instanceName: 'second-gateway',
        ...(database ? { dataDir: tempDir(), databaseUrl: database } : { dataDir: stack.dataDir }),
      },
      { env: { OPENAI_API_KEY: stack.fake.apiKey }, secrets: new MemorySecretStore() },
    )
    try {
      const served = await new OpenAI({ baseURL: `${second.url}/v1`, apiKey: secret, maxRetries: 0 }).chat.completions
        .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
        .withResponse()
      const id = served.response.headers.get('x-request-id')!
      await second.gateway.records.flushed()
      const shell = new Shell(w.page)
      await shell.nav('overview')
      await shell.nav('requests')
      await requests.waitForCount('request-row', 5)
      const first = stack.running.gateway.instance
      await requests.waitForCount('filter-instance-option', 2)
      assert.deepEqual(await requests.id('filter-instance-option').allInnerTexts(), [first, 'second-gateway'], 'the busiest first')
      await requests.filter({ instance: 'second-gateway' })
      await requests.waitForCount('request-row', 1)
      assert.equal(await requests.rows().first().getAttribute('data-request-id'), id)
      await requests.waitForText(requests.id('chip-instance'), 'gateway: second-gateway')
      await requests.openFirst()
      const detail = new RequestDetailPage(w.page)
      assert.equal(await detail.gateway().innerText(), 'second-gateway')
      await detail.gateway().click()
      await requests.waitForCount('request-row', 1)
      await requests.filter({ instance: first })
      await requests.waitForCount('request-row', 4)
    } finally {
      await second.close()
    }
  })
})
