import path from 'node:path'
import { app, BrowserWindow, ipcMain } from 'electron'
import { startGateway, type RunningGateway } from '../gateway/server'
import { UsersRepo } from '../gateway/store/usersRepo'
import { registerIpc, type DesktopSession } from './ipc'

// The desktop app and `gw serve` share one data folder: Electron's userData for this product name.
let gateway: RunningGateway | null = null

const rendererUrl = process.env.ELECTRON_RENDERER_URL

function isOwnRenderer(url: string): boolean {
  return rendererUrl ? url.startsWith(rendererUrl) : url.startsWith('file://')
}

async function createWindow(): Promise<void> {
  const win = new BrowserWindow({
    width: 1100,
    height: 760,
    title: 'GW Gateway',
    webPreferences: {
      preload: path.join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  })
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }))
  win.webContents.on('will-navigate', (e) => e.preventDefault())
  if (rendererUrl) await win.loadURL(rendererUrl)
  else await win.loadFile(path.join(import.meta.dirname, '../renderer/index.html'))
}

if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  app.on('second-instance', () => BrowserWindow.getAllWindows()[0]?.focus())
  app.whenReady().then(async () => {
    gateway = await startGateway({ dataDir: app.getPath('userData') })
    const running = gateway
    const session: DesktopSession = { token: null }
    const users = new UsersRepo(running.gateway.db)
    registerIpc(ipcMain, running.admin, session, isOwnRenderer, (token) => (token ? (users.userForSession(token) ?? null) : null))
    await createWindow()
  })
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })
  app.on('will-quit', (e) => {
    if (!gateway) return
    e.preventDefault()
    const g = gateway
    gateway = null
    // Flush request records before the process goes.
    g.close().finally(() => app.quit())
  })
}
