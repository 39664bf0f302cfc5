// The management contract over IPC, without Electron: registerIpc against a fake ipcMain, the
// preload's buildBridge against a fake ipcRenderer wired to it, and a real gateway behind both.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { CANCEL_CHANNEL, channelOf, operations, type OperationName } from '../../src/contract'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { registerIpc, type IpcEvent, type IpcMainLike, type Listener } from '../../src/main/ipc'
import { DesktopSession, SESSION_ACCOUNT } from '../../src/main/session'
import { ownRendererCheck } from '../../src/main/security'
import { buildBridge, type IpcRendererLike } from '../../src/preload/bridge'
import { toApiError } from '../../src/renderer/src/api/errors'
import { tempDir } from '../support/tempDir'
import { waitForRecord } from '../support/harness'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { MemorySecretStore as MemoryStore } from '../support/memorySecretStore'

type Handler = (event: IpcEvent, ...args: unknown[]) => Promise<unknown>

class FakeIpcMain implements IpcMainLike {
  readonly handlers = new Map<string, Handler>()
  readonly registrations: string[] = []
  handle(channel: string, listener: Handler) {
    this.registrations.push(channel)
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`)
    this.handlers.set(channel, listener)
  }
  removeHandler(channel: string) {
    this.handlers.delete(channel)
  }
  readonly listeners = new Map<string, Set<Listener>>()
  on(channel: string, listener: Listener) {
    if (!this.listeners.has(channel)) this.listeners.set(channel, new Set())
    this.listeners.get(channel)!.add(listener)
  }
  removeListener(channel: string, listener: Listener) {
    this.listeners.get(channel)?.delete(listener)
  }
}

/**
 * A renderer as Electron connects it: invoke reaches the handler with the sender frame's URL,
 * events the main process sends come back to the listeners. Values cross by structured clone,
 * as over real IPC.
 */
class FakeRenderer implements IpcRendererLike {
  readonly listeners = new Map<string, Set<(e: unknown, ...a: unknown[]) => void>>()
  readonly sent: Array<{ channel: string; args: unknown[] }> = []
  /** Set to close the window: its webContents then says it is destroyed. */
  destroyed = false
  /** This window's webContents: the same object on every message, as Electron's event.sender is. */
  private readonly webContents: IpcEvent['sender'] = {
    isDestroyed: () => this.destroyed,
    send: (ch, ...a) => {
      this.sent.push({ channel: ch, args: a })
      for (const l of this.listeners.get(ch) ?? []) l({}, ...structuredClone(a))
    },
  }
  constructor(
    private readonly main: FakeIpcMain,
    public url: string,
    public parent: unknown = null,
  ) {}
  private event(): IpcEvent {
    return { senderFrame: { url: this.url, parent: this.parent }, sender: this.webContents }
  }
  async invoke(channel: string, ...args: unknown[]) {
    const h = this.main.handlers.get(channel)
    if (!h) throw new Error(`No handler registered for '${channel}'`)
    return structuredClone(await h(this.event(), ...structuredClone(args)))
  }
  send(channel: string, ...args: unknown[]) {
    for (const l of this.main.listeners.get(channel) ?? []) l(this.event(), ...structuredClone(args))
  }
  on(channel: string, l: (e: unknown, ...a: unknown[]) => void) {
    if (!this.listeners.has(channel)) this.listeners.set(channel, new Set())
    this.listeners.get(channel)!.add(l)
  }
  removeListener(channel: string, l: (e: unknown, ...a: unknown[]) => void) {
    this.listeners.get(channel)?.delete(l)
  }
}

/** What contextBridge does to a rejection: an Error is copied with its message only; a plain object is copied whole. */
function acrossContextBridge(err: unknown): unknown {
  if (err instanceof Error) return new Error(err.message)
  return structuredClone(err)
}

async function rejection(p: Promise<unknown>) {
  try {
    await p
  } catch (err) {
    return toApiError(acrossContextBridge(err))
  }
  assert.fail('expected the call to fail')
}

describe('IPC transport for the management contract', () => {
  let running: RunningGateway
  let dataDir: string
  let ipcMain: FakeIpcMain
  let session: DesktopSession
  let keychain: MemoryStore
  let own: FakeRenderer
  let gw: ReturnType<typeof buildBridge>
  let unregister: () => void
  let fake: FakeOpenAI
  const shown: string[] = []

  before(async () => {
    dataDir = tempDir('gw-ipc-')
    fake = await startFakeOpenAI()
    running = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' },
      { env: { OPENAI_API_KEY: fake.apiKey }, secrets: new MemoryStore() },
    )
    await running.gateway.store.providers.upsert('openai', 'openai', fake.url)
    await running.gateway.configChanged()
    ipcMain = new FakeIpcMain()
    keychain = new MemoryStore()
    session = new DesktopSession(keychain)
    unregister = registerIpc(ipcMain, {
      admin: () => running.admin,
      session,
      isOwnRenderer: ownRendererCheck(undefined),
      showInFolder: (f) => void shown.push(f),
    })
    own = new FakeRenderer(ipcMain, 'app://gw/index.html')
    gw = buildBridge(own)
  })
  after(async () => {
    await running.close()
    await fake.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('has exactly one handler per contract operation, and the preload exactly one function per operation', () => {
    const names = Object.keys(operations) as OperationName[]
    assert.deepEqual([...ipcMain.registrations].sort(), names.map(channelOf).sort())
    assert.equal(new Set(ipcMain.registrations).size, ipcMain.registrations.length, 'no channel registered twice')
    assert.deepEqual(Object.keys(gw).sort(), [...names].sort())
    for (const n of names) assert.equal(typeof gw[n], 'function')
    assert.ok(Object.isFrozen(gw))
    assert.ok(!('invoke' in gw) && !('on' in gw) && !('send' in gw), 'ipcRenderer itself is not exposed')
  })

  it('refuses a foreign sender: another origin, file://, a subframe, no frame', async () => {
    for (const url of ['https://evil.example/', 'file:///tmp/x.html', 'app://other/index.html', 'http://127.0.0.1:8787/']) {
      const e = await rejection(buildBridge(new FakeRenderer(ipcMain, url))['auth.status']({}))
      assert.equal(e.code, 'forbidden_sender', url)
      assert.equal(e.status, 403)
    }
    const sub = await rejection(buildBridge(new FakeRenderer(ipcMain, 'app://gw/index.html', { url: 'app://gw/' }))['auth.status']({}))
    assert.equal(sub.code, 'forbidden_sender')
    const noFrame = (await ipcMain.handlers.get(channelOf('auth.status'))!({ senderFrame: null, sender: { send() {} } }, {})) as {
      ok: boolean
      error: { code: string }
    }
    assert.equal(noFrame.ok, false)
    assert.equal(noFrame.error.code, 'forbidden_sender')
  })

  it('refuses invalid input with the contract’s message, and the renderer gets code, field and status', async () => {
    const e = await rejection(gw['auth.setup']({ username: 'owner', password: 'short' }))
    assert.equal(e.code, 'invalid_input')
    assert.equal(e.status, 400)
    assert.equal(e.field, 'password')
    assert.equal(e.message, 'password: must be at least 10 characters')
    const extra = await rejection(gw['auth.setup']({ username: 'owner', password: 'long-enough-pw', admin: true } as never))
    assert.equal(extra.code, 'invalid_input')
  })

  it('a plain Error would lose code and status across contextBridge; the bridge’s rejection keeps them', async () => {
    const lost = toApiError(acrossContextBridge(Object.assign(new Error('Sign in first.'), { code: 'unauthenticated', status: 401 })))
    assert.equal(lost.code, 'failed', 'this is why the bridge does not throw Errors')
    const kept = await rejection(gw['gateway.status']({}))
    assert.deepEqual({ code: kept.code, status: kept.status, message: kept.message }, { code: 'unauthenticated', status: 401, message: 'Sign in first.' })
  })

  it('signs in with the same accounts as headless mode; "stay signed in" keeps the token in the keychain; sign-out removes it', async () => {
    const owner = await gw['auth.setup']({ username: 'owner', password: 'correct-horse-battery' })
    assert.equal(owner.role, 'admin')
    assert.equal(keychain.map.size, 0, 'setup does not keep the session')
    assert.equal((await gw['auth.status']({})).user?.username, 'owner')
    await gw['auth.signOut']({})
    assert.equal((await gw['auth.status']({})).user, null)
    assert.equal(session.token, null)

    await gw['auth.signIn']({ username: 'owner', password: 'correct-horse-battery', remember: true })
    const kept = keychain.map.get(SESSION_ACCOUNT)
    assert.ok(kept && kept === session.token, 'the token is kept under the "session" account')

    // A restart: a fresh session restores the kept token.
    const again = new DesktopSession(keychain)
    assert.equal((await again.restore(running.admin))?.username, 'owner')
    assert.equal(again.token, kept)

    await gw['auth.signOut']({})
    assert.equal(keychain.map.has(SESSION_ACCOUNT), false, 'sign-out removes it')
    const third = new DesktopSession(keychain)
    assert.equal(await third.restore(running.admin), null)

    // A kept token the store no longer knows is dropped at start.
    keychain.map.set(SESSION_ACCOUNT, 'stale-token')
    assert.equal(await new DesktopSession(keychain).restore(running.admin), null)
    assert.equal(keychain.map.has(SESSION_ACCOUNT), false)

    await gw['auth.signIn']({ username: 'owner', password: 'correct-horse-battery', remember: false })
    assert.equal(keychain.map.has(SESSION_ACCOUNT), false, 'without "stay signed in" nothing is kept')
  })

  it('a wrong password crosses as a structured 401 error', async () => {
    const e = await rejection(gw['auth.signIn']({ username: 'owner', password: 'not-the-password', remember: false }))
    assert.equal(e.code, 'invalid_credentials')
    assert.equal(e.status, 401)
  })

  it('gateway.showLog opens nothing when the log goes to standard output', async () => {
    assert.deepEqual(await gw['gateway.showLog']({}), { path: null, shown: false })
    assert.deepEqual(shown, [])
  })

  it('streams the Playground over IPC: events reach the callback in order, only for this call', async () => {
    const s = (await gw['gateway.status']({})) as { base_url: string }
    assert.match(s.base_url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    const key = (await gw['keys.create']({ name: 'ipc' } as never)) as unknown as { key: { id: string } }
    const events: Array<{ type: string; content?: string }> = []
    own.sent.length = 0
    await gw['playground.chat']({ key_id: key.key.id, model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, (e) => events.push(e))
    assert.equal(events.at(-1)!.type, 'done', JSON.stringify(events.at(-1)))
    const deltas = events.filter((e) => e.type === 'delta')
    assert.ok(deltas.length >= 2, 'the answer arrives in pieces')
    assert.equal(deltas.map((e) => e.content).join(''), 'Hello from the fake provider.')
    assert.ok(own.sent.every((m) => /^gw:playground\.chat:[A-Za-z0-9_-]+$/.test(m.channel)))
    assert.equal(
      [...own.listeners.values()].reduce((n, s) => n + s.size, 0),
      0,
      'the listener is removed when the call ends',
    )
  })

  it('Stop over IPC ends the call: the provider connection closes and the record says aborted; another window cannot stop it', async () => {
    const key = (await gw['keys.create']({ name: 'ipc-stop' } as never)) as unknown as { key: { id: string } }
    fake.script({ kind: 'endless-stream', intervalMs: 10 })
    const closed = fake.waitForClientClose(3000)
    let cancel: () => void = () => assert.fail('the bridge gave no cancel function')
    const types: string[] = []
    let requestId = ''
    own.sent.length = 0
    await gw['playground.chat'](
      { key_id: key.key.id, model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'go on' }] },
      (e) => {
        types.push(e.type)
        if (e.type === 'request') requestId = e.request_id
        const deltas = types.filter((t) => t === 'delta').length
        if (deltas === 2) {
          // Another window that learnt this call's id sends it: not its call, nothing ends.
          const callId = own.sent[0].channel.split(':').at(-1)
          new FakeRenderer(ipcMain, 'app://gw/index.html').send(CANCEL_CHANNEL, callId)
        }
        if (deltas === 5) cancel()
      },
      (c) => (cancel = c),
    )
    await closed
    assert.ok(types.filter((t) => t === 'delta').length >= 5, `the stream ran until Stop: ${types.join(',')}`)
    assert.ok(!types.includes('done') && !types.includes('error'), 'nothing follows a Stop')
    const record = await waitForRecord(running.gateway, requestId)
    assert.deepEqual([record.outcome, record.source], ['aborted', 'playground'])
  })

  it('a window closed in the middle of a stream ends its call', async () => {
    const key = (await gw['keys.create']({ name: 'ipc-close' } as never)) as unknown as { key: { id: string } }
    fake.script({ kind: 'endless-stream', intervalMs: 10 })
    const closed = fake.waitForClientClose(3000)
    const window = new FakeRenderer(ipcMain, 'app://gw/index.html')
    let requestId = ''
    await buildBridge(window)['playground.chat']({ key_id: key.key.id, model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'go on' }] }, (e) => {
      if (e.type === 'request') requestId = e.request_id
      if (e.type === 'delta') window.destroyed = true
    })
    await closed
    const record = await waitForRecord(running.gateway, requestId)
    assert.deepEqual([record.outcome, record.source], ['aborted', 'playground'])
  })

  it('refuses a streaming call without a valid call id, and answers "gateway off" when it is off', async () => {
    const h = ipcMain.handlers.get(channelOf('playground.chat'))!
    const r = (await h({ senderFrame: { url: 'app://gw/index.html', parent: null }, sender: { send() {} } }, {}, '../x')) as {
      ok: boolean
      error: { code: string }
    }
    assert.equal(r.error.code, 'invalid_input')
    const off = new FakeIpcMain()
    registerIpc(off, {
      admin: () => null,
      session: new DesktopSession(null),
      isOwnRenderer: ownRendererCheck(undefined),
      showInFolder: () => assert.fail('no gateway, no log'),
    })
    const e = await rejection(buildBridge(new FakeRenderer(off, 'app://gw/index.html'))['auth.status']({}))
    assert.equal(e.code, 'gateway_off')
    assert.equal(e.status, 503)
  })

  it('unregisters every handler', () => {
    unregister()
    assert.equal(ipcMain.handlers.size, 0)
  })
})
