import path from 'node:path'
import { resolveConfig, type ConfigOverrides } from '../gateway/config'
import type { GatewayOptions } from '../gateway/gateway'
import type { SecretStore } from '../gateway/secrets/secretStore'
import type { RunningGateway, startGateway as StartGateway } from '../gateway/server'
import { startWithPortChoice, portInUseDialog, type PortChoice } from './gatewayControl'
import { iconPng } from './icon'
import { registerIpc, type IpcMainLike } from './ipc'
import { DesktopPrefs, MIN_WINDOW, trackWindowState, visibleState, type Rect, type TrackedWindow } from './prefs'
import { APP_INDEX_URL, APP_SCHEME, PRIVILEGED_SCHEMES, appProtocolHandler } from './protocol'
import { hardenSession, hardenWebContents, ownRendererCheck, secureWebPreferences, type SessionLike, type ShellLike, type WebContentsLike } from './security'
import { DesktopSession } from './session'
import { notifySessionAlerts, type NotificationCtor } from './sessionNotifications'
import { trayMenu, trayTooltip, type MenuItem, type TrayState } from './tray'
import type { ElectronListener } from './electronEvents'

/** The gateway's log in the desktop app's log folder. */
export const LOG_FILE_NAME = 'gw.log'

// Structural views of the Electron modules the app uses, so tests can pass fakes.

export interface AppLike {
  requestSingleInstanceLock(): boolean
  whenReady(): Promise<unknown>
  on(event: string, listener: ElectronListener): unknown
  quit(): void
  /** Electron's app.getPath; the app asks only for its log folder. */
  getPath(name: 'logs'): string
  setName?(name: string): void
  setLoginItemSettings(settings: { openAtLogin: boolean; openAsHidden?: boolean; args?: string[] }): void
  getLoginItemSettings?(): { wasOpenedAtLogin?: boolean }
  dock?: { hide(): void; show(): unknown } | undefined
}

export interface WindowLike extends TrackedWindow {
  webContents: WebContentsLike
  loadURL(url: string): Promise<unknown>
  once(event: string, listener: ElectronListener): unknown
  show(): void
  focus(): void
  restore(): void
  isMinimized(): boolean
  maximize(): void
}

export type WindowCtor = new (options: Record<string, unknown>) => WindowLike

export interface TrayLike {
  setToolTip(text: string): void
  setContextMenu(menu: unknown): void
  on(event: string, listener: ElectronListener): unknown
  destroy(): void
}

/** `Image`: what nativeImage makes and the tray takes (Electron's NativeImage; anything in tests). */
export interface DesktopDeps<Image = unknown> {
  app: AppLike
  BrowserWindow: WindowCtor
  ipcMain: IpcMainLike
  protocol: {
    registerSchemesAsPrivileged(schemes: typeof PRIVILEGED_SCHEMES): void
    handle(scheme: string, handler: (request: Request) => Promise<Response>): void
  }
  session: { defaultSession: SessionLike }
  shell: ShellLike & { showItemInFolder(fullPath: string): void }
  dialog: { showMessageBox(options: ReturnType<typeof portInUseDialog>): Promise<{ response: number }> }
  clipboard: { writeText(text: string): void }
  Menu: { buildFromTemplate(template: MenuItem[]): unknown }
  /** Absent where a tray cannot be made; then closing the window quits. */
  Tray?: new (image: Image) => TrayLike
  nativeImage?: { createFromBuffer(buffer: Buffer, options?: { scaleFactor?: number }): Image }
  screen?: { getAllDisplays(): Array<{ workArea: Rect }> }
  /** Electron's Notification where the platform supports it: session alerts become desktop notifications. */
  Notification?: NotificationCtor
  startGateway: typeof StartGateway
  /** Folder of the built renderer (served as app://gw/) and path of the built preload. */
  rendererDir: string
  preloadPath: string
  /** Keeps "stay signed in" session tokens; null disables it. */
  sessionKeychain: SecretStore | null
  /** Passed to startGateway (tests inject a memory secret store and an env). */
  gatewayOptions?: Omit<GatewayOptions, 'config' | 'logger'>
  env?: NodeJS.ProcessEnv
  platform?: NodeJS.Platform
  /** The Vite dev server's URL under `npm start`; ignored in a packaged app. */
  devUrl?: string
  argv?: string[]
  log?: (msg: string) => void
}

export interface Desktop {
  /** False when another instance holds the lock (this one quits). */
  primary: boolean
  /** Resolves once the gateway runs and the window (unless started hidden) is open. */
  ready: Promise<void>
  gateway(): RunningGateway | null
  window(): WindowLike | null
  session: DesktopSession | null
  trayState(): TrayState
  trayMenu(): MenuItem[]
  setGatewayOn(on: boolean): Promise<void>
  setOpenAtLogin(on: boolean): void
  showWindow(): Promise<void>
  /** Resolves when quitting finished (gateway closed, records flushed). */
  stopped: Promise<void>
}

/**
 * The desktop app as a composition of small parts: single-instance lock, the gateway started
 * in-process (asking for another port when the remembered one is taken), IPC for the management
 * contract, a hardened window served from app://gw/, a tray, remembered window bounds, start at
 * login, and a shutdown that closes the gateway (flushing request records) before the app exits.
 */
export function createDesktop<Image>(d: DesktopDeps<Image>): Desktop {
  const { app } = d
  const env = d.env ?? process.env
  const platform = d.platform ?? process.platform
  const log = d.log ?? ((m: string) => console.error(m))
  const argv = d.argv ?? process.argv

  // Before ready: the renderer's own scheme, standard and secure.
  d.protocol.registerSchemesAsPrivileged(PRIVILEGED_SCHEMES)

  let resolveStopped!: () => void
  const stopped = new Promise<void>((r) => (resolveStopped = r))

  if (!app.requestSingleInstanceLock()) {
    app.quit()
    resolveStopped()
    return {
      primary: false,
      ready: Promise.resolve(),
      gateway: () => null,
      window: () => null,
      session: null,
      trayState: () => ({ baseUrl: null, gatewayOn: false, busy: false, openAtLogin: false, loginItemSupported: false }),
      trayMenu: () => [],
      setGatewayOn: async () => {},
      setOpenAtLogin: () => {},
      showWindow: async () => {},
      stopped,
    }
  }

  app.setName?.('GW Gateway')
  // The same data folder as `gw serve` (GW_DATA_DIR, else the platform's app data folder).
  const dataDir = resolveConfig({}, env).dataDir
  const prefs = new DesktopPrefs(path.join(dataDir, 'desktop.json'))
  const session = new DesktopSession(d.sessionKeychain, log)
  const isOwnRenderer = ownRendererCheck(d.devUrl)
  const loginItemSupported = platform === 'darwin' || platform === 'win32'
  const startHidden = argv.includes('--hidden') || app.getLoginItemSettings?.().wasOpenedAtLogin === true

  let running: RunningGateway | null = null
  let busy: Promise<void> | null = null
  let win: WindowLike | null = null
  let tray: TrayLike | null = null
  let quitting = false
  let closed = false
  let unregisterIpc: (() => void) | null = null
  let stopNotifying: (() => void) | null = null

  const start = (overrides: ConfigOverrides) => d.startGateway(overrides, { ...d.gatewayOptions, dashboardDir: d.rendererDir })

  const askPort = async (p: { port: number; host: string }): Promise<PortChoice> => {
    const { response } = await d.dialog.showMessageBox(portInUseDialog(p))
    return response === 0 ? 'another-port' : 'quit'
  }

  const state = (): TrayState => ({
    baseUrl: running ? `${running.url}/v1` : null,
    gatewayOn: running !== null,
    busy: busy !== null,
    openAtLogin: prefs.openAtLogin,
    loginItemSupported,
  })

  const menu = (): MenuItem[] =>
    trayMenu(state(), {
      copyBaseUrl: () => {
        const s = state()
        if (s.baseUrl) d.clipboard.writeText(s.baseUrl)
      },
      toggleGateway: () => void setGatewayOn(!running).catch((err) => log(`gateway: ${(err as Error).message}`)),
      openDashboard: () => void showWindow().catch((err) => log(`window: ${(err as Error).message}`)),
      toggleOpenAtLogin: () => setOpenAtLogin(!prefs.openAtLogin),
      quit: () => app.quit(),
    })

  const refreshTray = () => {
    if (!tray) return
    tray.setToolTip(trayTooltip(state()))
    tray.setContextMenu(d.Menu.buildFromTemplate(menu()))
  }

  async function gatewayOn(): Promise<boolean> {
    if (running) return true
    // The gateway's log goes to the platform's log folder for apps (GW_LOG_FILE to put it
    // elsewhere), rotated as any log file is: at 10 MB, five kept (GW_LOG_MAX_SIZE, GW_LOG_KEEP).
    const logFile = env.GW_LOG_FILE || path.join(app.getPath('logs'), LOG_FILE_NAME)
    const r = await startWithPortChoice(start, { dataDir, logFile }, askPort)
    if (!r) return false
    running = r
    if (d.Notification) stopNotifying = notifySessionAlerts(r.gateway.sessionAlerts, d.Notification, () => void showWindow())
    return true
  }

  async function gatewayOff(): Promise<void> {
    const r = running
    running = null
    stopNotifying?.()
    stopNotifying = null
    // Closing flushes queued request records and closes the store.
    if (r) await r.close()
  }

  async function setGatewayOn(on: boolean): Promise<void> {
    while (busy) await busy
    busy = (async () => {
      if (on) {
        if (!(await gatewayOn())) log('the gateway stays off: its port is in use')
      } else await gatewayOff()
    })()
    refreshTray()
    try {
      await busy
    } finally {
      busy = null
      refreshTray()
    }
  }

  function setOpenAtLogin(on: boolean): void {
    prefs.update({ openAtLogin: on })
    if (loginItemSupported) app.setLoginItemSettings({ openAtLogin: on, openAsHidden: true, args: ['--hidden'] })
    refreshTray()
  }

  async function showWindow(): Promise<void> {
    if (win && !win.isDestroyed()) {
      if (win.isMinimized()) win.restore()
      win.show()
      win.focus()
      return
    }
    const bounds = visibleState(prefs.window, d.screen?.getAllDisplays().map((x) => x.workArea) ?? [])
    const w = new d.BrowserWindow({
      width: bounds.width,
      height: bounds.height,
      ...(bounds.x !== undefined ? { x: bounds.x, y: bounds.y } : {}),
      minWidth: MIN_WINDOW.width,
      minHeight: MIN_WINDOW.height,
      show: false,
      title: 'GW Gateway',
      webPreferences: secureWebPreferences(d.preloadPath),
    })
    win = w
    if (bounds.maximized) w.maximize()
    w.once('ready-to-show', () => w.show())
    w.on('closed', () => {
      if (win === w) win = null
    })
    trackWindowState(w, (s) => prefs.update({ window: s }))
    await w.loadURL(d.devUrl ?? APP_INDEX_URL)
  }

  // Any web contents (the window, and anything that tries to open): no navigation, no popups.
  app.on('web-contents-created', (_e: unknown, contents: WebContentsLike) => hardenWebContents(contents, d.shell, isOwnRenderer))
  app.on('second-instance', () => void showWindow())
  app.on('activate', () => void showWindow())
  app.on('window-all-closed', () => {
    // With a tray the gateway keeps serving; without one (or on Linux, where trays are often hidden) quit.
    if (!tray || platform === 'linux') app.quit()
  })
  app.on('before-quit', (event: { preventDefault(): void }) => {
    quitting = true
    if (closed) return
    event.preventDefault()
    if (busy && !running) {
      /* a start in flight: wait for it below */
    }
    void (async () => {
      try {
        while (busy) await busy.catch(() => {})
        unregisterIpc?.()
        unregisterIpc = null
        await gatewayOff()
      } catch (err) {
        log(`shutdown: ${(err as Error).message}`)
      } finally {
        tray?.destroy()
        tray = null
        closed = true
        resolveStopped()
        app.quit()
      }
    })()
  })

  const ready = (async () => {
    await app.whenReady()
    hardenSession(d.session.defaultSession, d.devUrl)
    d.protocol.handle(APP_SCHEME, appProtocolHandler(d.rendererDir))
    if (loginItemSupported) app.setLoginItemSettings({ openAtLogin: prefs.openAtLogin, openAsHidden: true, args: ['--hidden'] })

    if (!(await gatewayOn())) {
      app.quit()
      return
    }
    if (quitting) return
    await session.restore(running!.admin)
    unregisterIpc = registerIpc(d.ipcMain, {
      admin: () => running?.admin ?? null,
      session,
      isOwnRenderer,
      showInFolder: (file) => d.shell.showItemInFolder(file),
    })

    if (d.Tray && d.nativeImage) {
      try {
        tray = new d.Tray(d.nativeImage.createFromBuffer(iconPng(platform === 'darwin' ? 44 : 32), { scaleFactor: 2 }))
        tray.on('click', () => void showWindow())
        refreshTray()
      } catch (err) {
        log(`no tray icon: ${(err as Error).message}`)
      }
    }
    if (!startHidden || !tray) await showWindow()
  })()

  return {
    primary: true,
    ready,
    gateway: () => running,
    window: () => win,
    session,
    trayState: state,
    trayMenu: menu,
    setGatewayOn,
    setOpenAtLogin,
    showWindow,
    stopped,
  }
}
