// The desktop app's composition (src/main/desktop.ts) with fakes of Electron's modules and the
// real gateway in a temp data dir: start and stop with the app, a taken port, tray, window,
// start at login, single instance; plus the app:// protocol and the web contents hardening.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { EventEmitter } from 'node:events'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { createDesktop, type DesktopDeps } from '../../src/main/desktop'
import type { Handler } from '../../src/main/ipc'
import { appProtocolHandler, resolveAppFile, CONTENT_SECURITY_POLICY, PRIVILEGED_SCHEMES } from '../../src/main/protocol'
import { hardenSession, hardenWebContents, isSafeExternalUrl, ownRendererCheck } from '../../src/main/security'
import { DesktopPrefs, visibleState } from '../../src/main/prefs'
import { iconPng } from '../../src/main/icon'
import { tempDir } from '../support/tempDir'
import { startFakeOpenAI } from '../support/fake-openai'
import { MemorySecretStore as MemoryStore } from '../support/memorySecretStore'
import { waitUntil } from '../support/waitUntil'

class FakeApp extends EventEmitter {
  lock = true
  logsDir = ''
  quitCalls = 0
  exited = false
  loginItem: unknown[] = []
  private readyResolve!: () => void
  private readonly readyP = new Promise<void>((r) => (this.readyResolve = r))
  requestSingleInstanceLock() {
    return this.lock
  }
  whenReady() {
    return this.readyP
  }
  ready() {
    this.readyResolve()
  }
  /** Like Electron: before-quit may be prevented; otherwise the app is gone. */
  quit() {
    this.quitCalls++
    let prevented = false
    this.emit('before-quit', { preventDefault: () => (prevented = true) })
    if (!prevented) this.exited = true
  }
  setLoginItemSettings(s: unknown) {
    this.loginItem.push(s)
  }
  getLoginItemSettings() {
    return { wasOpenedAtLogin: false }
  }
  getPath(name: 'logs') {
    assert.equal(name, 'logs')
    return this.logsDir
  }
}

class FakeWebContents extends EventEmitter {
  openHandler: ((d: { url: string }) => { action: string }) | null = null
  setWindowOpenHandler(h: (d: { url: string }) => { action: string }) {
    this.openHandler = h
  }
}

const windows: FakeWindow[] = []
class FakeWindow extends EventEmitter {
  readonly webContents = new FakeWebContents()
  loaded: string | null = null
  bounds: { x: number; y: number; width: number; height: number }
  destroyed = false
  maximized = false
  shown = 0
  constructor(readonly options: Record<string, any>) {
    super()
    this.bounds = { x: options.x ?? 10, y: options.y ?? 10, width: options.width, height: options.height }
    windows.push(this)
  }
  async loadURL(url: string) {
    this.loaded = url
    this.emit('ready-to-show')
  }
  show() {
    this.shown++
  }
  focus() {}
  restore() {}
  isMinimized() {
    return false
  }
  maximize() {
    this.maximized = true
  }
  isMaximized() {
    return this.maximized
  }
  getNormalBounds() {
    return this.bounds
  }
  isDestroyed() {
    return this.destroyed
  }
  resizeTo(width: number, height: number) {
    this.bounds = { ...this.bounds, width, height }
    this.emit('resize')
  }
  close() {
    this.emit('close')
    this.destroyed = true
    this.emit('closed')
  }
}

class FakeTray {
  tooltip = ''
  menu: any[] = []
  destroyed = false
  on() {}
  setToolTip(t: string) {
    this.tooltip = t
  }
  setContextMenu(m: any) {
    this.menu = m
  }
  destroy() {
    this.destroyed = true
  }
}

function fakes(dataDir: string, over: Partial<DesktopDeps> & { dialogAnswer?: number } = {}) {
  const app = new FakeApp()
  app.logsDir = path.join(dataDir, 'logs')
  const handlers = new Map<string, Handler>()
  const dialogs: any[] = []
  const clipboard: string[] = []
  const opened: string[] = []
  const shownInFolder: string[] = []
  const protocols: { registered: unknown[]; handlers: Map<string, (r: Request) => Promise<Response>> } = { registered: [], handlers: new Map() }
  const sessionCalls: string[] = []
  const trays: FakeTray[] = []
  const closes: number[] = []
  const deps: DesktopDeps = {
    app,
    BrowserWindow: FakeWindow as never,
    ipcMain: { handle: (c, h) => void handlers.set(c, h), removeHandler: (c) => void handlers.delete(c), on: () => {}, removeListener: () => {} },
    protocol: { registerSchemesAsPrivileged: (s) => void protocols.registered.push(...s), handle: (scheme, h) => void protocols.handlers.set(scheme, h) },
    session: {
      defaultSession: {
        setPermissionRequestHandler: () => void sessionCalls.push('request'),
        setPermissionCheckHandler: () => void sessionCalls.push('check'),
        webRequest: { onHeadersReceived: () => void sessionCalls.push('headers') },
      },
    },
    shell: { openExternal: async (u) => void opened.push(u), showItemInFolder: (f) => void shownInFolder.push(f) },
    dialog: { showMessageBox: async (o) => (dialogs.push(o), { response: over.dialogAnswer ?? 0 }) },
    clipboard: { writeText: (t) => void clipboard.push(t) },
    Menu: { buildFromTemplate: (t) => t },
    Tray: class extends FakeTray {
      constructor() {
        super()
        trays.push(this)
      }
    } as never,
    nativeImage: { createFromBuffer: (b) => b },
    startGateway: async (o, opts) => {
      const r = await startGateway(o, opts)
      const close = r.close
      return { ...r, close: () => (closes.push(Date.now()), close()) }
    },
    rendererDir: path.join(dataDir, 'renderer'),
    preloadPath: '/app/out/preload/index.cjs',
    sessionKeychain: new MemoryStore(),
    gatewayOptions: { env: {}, secrets: new MemoryStore() },
    env: { GW_DATA_DIR: dataDir },
    platform: 'darwin',
    argv: [],
    log: () => {},
    ...over,
  }
  return { deps, app, handlers, dialogs, clipboard, opened, shownInFolder, protocols, sessionCalls, trays, closes }
}

function occupy(): Promise<net.Server> {
  return new Promise((resolve) => {
    const srv = net.createServer()
    srv.listen(0, '127.0.0.1', () => resolve(srv))
  })
}

const canConnect = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1')
    s.once('connect', () => (s.destroy(), resolve(true)))
    s.once('error', () => resolve(false))
  })

async function seedPort(dataDir: string, port: number) {
  const r: RunningGateway = await startGateway({ host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' }, { env: {}, secrets: new MemoryStore() })
  await r.gateway.store.settings.write({ port })
  await r.close()
}

describe('the desktop app (createDesktop)', () => {
  it('registers app:// as privileged before ready, then starts the gateway in-process, IPC, tray and a hardened window', async () => {
    const dataDir = tempDir('gw-desk-')
    const srv = await occupy()
    const free = (srv.address() as net.AddressInfo).port
    await new Promise((r) => srv.close(r))
    await seedPort(dataDir, free)
    const f = fakes(dataDir)
    const desk = createDesktop(f.deps)
    assert.deepEqual(f.protocols.registered, PRIVILEGED_SCHEMES, 'registered before ready')
    assert.equal(desk.gateway(), null, 'nothing starts before ready')
    f.app.ready()
    await desk.ready
    const running = desk.gateway()!
    assert.equal(running.config.port, free, 'listens on the remembered port')
    assert.ok(await canConnect(free))
    assert.deepEqual(f.sessionCalls.sort(), ['check', 'headers', 'request'])
    assert.ok(f.protocols.handlers.has('app'))
    assert.ok(f.handlers.has('gw:auth.status'))

    const win = windows.at(-1)!
    assert.equal(win.loaded, 'app://gw/index.html', 'the renderer comes from the app protocol, not file://')
    const wp = win.options.webPreferences
    assert.deepEqual([wp.contextIsolation, wp.sandbox, wp.nodeIntegration, wp.preload], [true, true, false, '/app/out/preload/index.cjs'])

    // The tray: base URL (copy), gateway on/off, open dashboard, start at login, quit.
    const tray = f.trays[0]
    assert.equal(tray.tooltip, `GW Gateway: http://127.0.0.1:${free}/v1`)
    const ids = tray.menu.filter((i) => i.id).map((i) => i.id)
    assert.deepEqual(ids, ['base-url', 'copy-base-url', 'gateway-on', 'open-dashboard', 'open-at-login', 'quit'])
    tray.menu.find((i) => i.id === 'copy-base-url').click()
    assert.deepEqual(f.clipboard, [`http://127.0.0.1:${free}/v1`])

    // Gateway off and on again from the tray.
    await desk.setGatewayOn(false)
    assert.equal(desk.gateway(), null)
    assert.equal(await canConnect(free), false)
    assert.equal(tray.menu.find((i) => i.id === 'gateway-on').checked, false)
    assert.equal(tray.tooltip, 'GW Gateway (off)')
    await desk.setGatewayOn(true)
    assert.ok(await canConnect(free))

    // Start at login: a setting, passed to app.setLoginItemSettings and remembered.
    desk.setOpenAtLogin(true)
    assert.deepEqual(f.app.loginItem.at(-1), { openAtLogin: true, openAsHidden: true, args: ['--hidden'] })
    assert.equal(new DesktopPrefs(path.join(dataDir, 'desktop.json')).openAtLogin, true)

    // The window remembers its size.
    win.resizeTo(1300, 900)
    win.close()
    assert.deepEqual(new DesktopPrefs(path.join(dataDir, 'desktop.json')).window, { x: 10, y: 10, width: 1300, height: 900 })
    await desk.showWindow()
    const reopened = windows.at(-1)!
    assert.notEqual(reopened, win)
    assert.deepEqual([reopened.options.width, reopened.options.height], [1300, 900])

    // Quit: the gateway closes (flushing request records) before the app exits.
    const before = f.closes.length
    f.app.quit()
    assert.equal(f.app.exited, false, 'quit waits for the gateway')
    await desk.stopped
    assert.equal(f.app.exited, true)
    assert.equal(f.closes.length, before + 1, 'RunningGateway.close() ran')
    assert.equal(await canConnect(free), false)
    assert.equal(f.handlers.size, 0, 'IPC handlers removed')
    assert.ok(tray.destroyed)
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('writes the gateway log to the app log folder, rotated at 10 MB keeping 5; Settings learns its path and opens its folder over IPC', async () => {
    const dataDir = tempDir('gw-desk-log-')
    await seedPort(dataDir, 0)
    const f = fakes(dataDir)
    const desk = createDesktop(f.deps)
    f.app.ready()
    await desk.ready
    const file = path.join(dataDir, 'logs', 'gw.log')
    const ipc = (op: string, input: unknown = {}) =>
      f.handlers.get(`gw:${op}`)!({ senderFrame: { url: 'app://gw/index.html', parent: null }, sender: { send() {} } }, input) as Promise<any>
    assert.equal((await ipc('auth.setup', { username: 'owner', password: 'correct-horse-battery' })).ok, true)
    const status = (await ipc('gateway.status')).value
    assert.equal(status.log_file, file)
    // Rotated as every log file is unless told otherwise: at 10 MB, five rotated files kept.
    assert.deepEqual(status.log_rotation, { max_bytes: 10 * 1024 * 1024, keep: 5 })
    assert.deepEqual(await ipc('gateway.showLog'), { ok: true, value: { path: file, shown: true } })
    assert.deepEqual(f.shownInFolder, [file])
    const url = desk.gateway()!.url
    assert.equal((await fetch(`${url}/healthz`)).status, 200)
    f.app.quit()
    await desk.stopped
    // Closing the gateway flushed the log: the start, the stop, nothing at info for a health check.
    const lines = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    assert.deepEqual(
      lines.map((l) => l.msg),
      [`Server listening at ${url}`, 'stopped'],
    )
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('a taken port: asks, uses another free port, remembers it as settings.port, and starts there next time without asking', async () => {
    const dataDir = tempDir('gw-desk-port-')
    const blocker = await occupy()
    const taken = (blocker.address() as net.AddressInfo).port
    await seedPort(dataDir, taken)

    const f = fakes(dataDir, { dialogAnswer: 0 })
    const desk = createDesktop(f.deps)
    f.app.ready()
    await desk.ready
    assert.equal(f.dialogs.length, 1)
    assert.match(f.dialogs[0].message, new RegExp(`Port ${taken} is already in use`))
    assert.deepEqual(f.dialogs[0].buttons, ['Use another port', 'Quit'])
    const port = desk.gateway()!.config.port
    assert.notEqual(port, taken)
    assert.ok(await canConnect(port))
    assert.equal(desk.gateway()!.gateway.settings.port, port, 'remembered as settings.port')
    f.app.quit()
    await desk.stopped

    const g = fakes(dataDir)
    const again = createDesktop(g.deps)
    g.app.ready()
    await again.ready
    assert.equal(g.dialogs.length, 0, 'no question the second time')
    assert.equal(again.gateway()!.config.port, port)
    g.app.quit()
    await again.stopped
    blocker.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('a taken port and "Quit": no gateway, no window, the app quits', async () => {
    const dataDir = tempDir('gw-desk-quit-')
    const blocker = await occupy()
    await seedPort(dataDir, (blocker.address() as net.AddressInfo).port)
    const f = fakes(dataDir, { dialogAnswer: 1 })
    const count = windows.length
    const desk = createDesktop(f.deps)
    f.app.ready()
    await desk.ready
    await desk.stopped
    assert.equal(desk.gateway(), null)
    assert.equal(windows.length, count)
    assert.equal(f.app.exited, true)
    blocker.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('a second instance quits at once, and the first shows its window', async () => {
    const dataDir = tempDir('gw-desk-single-')
    const f = fakes(dataDir)
    f.app.lock = false
    const desk = createDesktop(f.deps)
    assert.equal(desk.primary, false)
    assert.equal(f.app.exited, true)
    assert.equal(desk.gateway(), null)
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('closing the last window on Linux quits; on macOS the gateway keeps serving from the tray', async () => {
    for (const platform of ['linux', 'darwin'] as const) {
      const dataDir = tempDir('gw-desk-close-')
      await seedPort(dataDir, 0)
      const f = fakes(dataDir, { platform })
      const desk = createDesktop(f.deps)
      f.app.ready()
      await desk.ready
      f.app.emit('window-all-closed')
      if (platform === 'linux') {
        await desk.stopped
        assert.equal(f.app.exited, true)
      } else {
        assert.equal(f.app.exited, false)
        assert.ok(desk.gateway())
        f.app.quit()
        await desk.stopped
      }
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('a session passing the alert threshold shows one desktop notification; clicking it opens the window; none once the gateway is off', async () => {
    const dataDir = tempDir('gw-desk-alert-')
    await seedPort(dataDir, 0)
    const fake = await startFakeOpenAI()
    const notifications: Array<{ options: { title: string; body: string }; shown: number; emit: (e: string) => void }> = []
    class FakeNotification extends EventEmitter {
      shown = 0
      constructor(readonly options: { title: string; body: string }) {
        super()
        notifications.push(this)
      }
      show() {
        this.shown++
      }
    }
    const f = fakes(dataDir, { Notification: FakeNotification, gatewayOptions: { env: { OPENAI_API_KEY: fake.apiKey }, secrets: new MemoryStore() } })
    const desk = createDesktop(f.deps)
    f.app.ready()
    await desk.ready
    const gw = desk.gateway()!.gateway
    await gw.store.providers.upsert('openai', 'openai', fake.url)
    await gw.store.settings.write({ session_alert_usd: 0.00001 })
    const { secret } = await gw.store.keys.create('laptop')
    await gw.configChanged()
    // gpt-4o-mini at the fake's usage costs $0.0000048: the third call of the session passes $0.00001.
    const ask = () =>
      fetch(`${desk.gateway()!.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'x-gw-session-id': 'sess-loop' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'again' }] }),
      }).then((r) => assert.equal(r.status, 200))
    for (let i = 0; i < 2; i++) await ask()
    assert.equal(notifications.length, 0)
    await ask()
    await ask()
    assert.equal(notifications.length, 1, 'one notification per session')
    const [n] = notifications
    assert.equal(n.shown, 1)
    assert.deepEqual(n.options, {
      title: 'A session passed $0.00001',
      // Node's fetch names itself "node" in its user agent: the tool the gateway recognised.
      body: 'Session sess-loop (node) on key "laptop" has cost $0.000014. Open the dashboard to see its requests.',
    })
    const shown = windows.at(-1)!.shown
    n.emit('click')
    await waitUntil(() => windows.at(-1)!.shown > shown, { what: 'the window shown after the click' })
    assert.equal(windows.at(-1)!.shown, shown + 1, 'the window comes forward')

    await desk.setGatewayOn(false)
    gw.sessionAlerts.raise({ at: 0, key_id: 'k', key_name: 'laptop', session_id: 'old', tool: null, cost_usd: 1, threshold_usd: 0.00001 })
    assert.equal(notifications.length, 1, 'a stopped gateway notifies no more')
    f.app.quit()
    await desk.stopped
    await fake.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
})

describe('the app:// protocol', () => {
  const root = tempDir('gw-proto-')
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>x</title>')
  fs.mkdirSync(path.join(root, 'assets'))
  fs.writeFileSync(path.join(root, 'assets', 'a.js'), 'export {}')
  fs.writeFileSync(path.join(path.dirname(root), 'gw-secret.txt'), 'secret')

  it('serves the built renderer with the CSP header and the right types', async () => {
    const h = appProtocolHandler(root)
    const index = await h(new Request('app://gw/'))
    assert.equal(index.status, 200)
    assert.equal(index.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY)
    assert.match(index.headers.get('content-type')!, /text\/html/)
    const js = await h(new Request('app://gw/assets/a.js'))
    assert.match(js.headers.get('content-type')!, /text\/javascript/)
    assert.equal((await h(new Request('app://gw/missing.js'))).status, 404)
  })

  it('refuses path traversal and other hosts', async () => {
    const h = appProtocolHandler(root)
    for (const url of [
      'app://gw/../gw-secret.txt',
      'app://gw/%2e%2e/gw-secret.txt',
      'app://gw/..%2fgw-secret.txt',
      'app://gw/assets/..%2f..%2fgw-secret.txt',
      'app://gw/..%5cgw-secret.txt',
      'app://gw/a%00.js',
      'app://other/index.html',
    ]) {
      const res = await h(new Request(url))
      assert.ok(res.status === 403 || res.status === 404, `${url} → ${res.status}`)
      assert.notEqual(await res.text(), 'secret', url)
    }
    assert.equal(resolveAppFile(root, 'app://gw/..%2f..%2fetc/passwd'), null)
    assert.equal(resolveAppFile(root, 'file:///etc/passwd'), null)
  })

  it('the CSP allows only the app’s own scripts', () => {
    assert.match(CONTENT_SECURITY_POLICY, /default-src 'none'/)
    assert.match(CONTENT_SECURITY_POLICY, /script-src 'self'(;|$)/)
    assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe-eval/)
    assert.match(CONTENT_SECURITY_POLICY, /object-src 'none'/)
  })
})

describe('web contents and session hardening', () => {
  it('blocks navigation and new windows; only https links go to the system browser', () => {
    const wc = new FakeWebContents()
    const opened: string[] = []
    hardenWebContents(wc, { openExternal: async (u) => void opened.push(u) }, ownRendererCheck(undefined))
    for (const url of ['https://docs.example.com/x', 'http://plain.example/', 'file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share']) {
      assert.deepEqual(wc.openHandler!({ url }), { action: 'deny' })
      let prevented = false
      wc.emit('will-navigate', { preventDefault: () => (prevented = true) }, url)
      assert.ok(prevented, url)
    }
    let internal = false
    wc.emit('will-navigate', { preventDefault: () => (internal = true) }, 'app://gw/index.html')
    assert.equal(internal, false, 'reloading the app itself is allowed')
    let webview = false
    wc.emit('will-attach-webview', { preventDefault: () => (webview = true) })
    assert.ok(webview)
    assert.deepEqual(opened, ['https://docs.example.com/x', 'https://docs.example.com/x'])
    assert.equal(isSafeExternalUrl('https://user:pw@example.com/'), false)
  })

  it('denies every permission request and check, and sets the CSP on responses', () => {
    let request: any, check: any, headers: any
    hardenSession({
      setPermissionRequestHandler: (h) => (request = h),
      setPermissionCheckHandler: (h) => (check = h),
      webRequest: { onHeadersReceived: (h) => (headers = h) },
    })
    for (const p of ['media', 'notifications', 'geolocation', 'clipboard-read', 'clipboard-sanitized-write']) {
      let granted: boolean | null = null
      request({}, p, (g: boolean) => (granted = g))
      assert.equal(granted, false, p)
      assert.equal(check({}, p, 'app://gw'), false, p)
    }
    let out: any
    headers({ url: 'app://gw/index.html', responseHeaders: { 'content-security-policy': ['default-src *'] } }, (r: any) => (out = r))
    assert.deepEqual(out.responseHeaders, { 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] })
  })

  it('a remembered window position off every display is dropped; the icon is a valid PNG', () => {
    const s = { width: 900, height: 700, x: 5000, y: 5000 }
    assert.deepEqual(visibleState(s, [{ x: 0, y: 0, width: 1920, height: 1080 }]), { width: 900, height: 700 })
    assert.deepEqual(visibleState({ ...s, x: 100, y: 100 }, [{ x: 0, y: 0, width: 1920, height: 1080 }]), { ...s, x: 100, y: 100 })
    const png = iconPng(32)
    assert.deepEqual([...png.subarray(1, 4)].map((c) => String.fromCharCode(c)).join(''), 'PNG')
    assert.equal(png.readUInt32BE(16), 32)
  })
})
