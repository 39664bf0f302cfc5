import path from 'node:path'
import electron, { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, nativeImage, Notification, protocol, session, shell, Tray } from 'electron'
import { APP_NAME } from '../gateway/config'
import { KeychainSecretStore } from '../gateway/secrets/secretStore'
import { startGateway } from '../gateway/server'
import { createDesktop } from './desktop'

// A thin composition: every decision lives in ./desktop and the modules it uses, which take
// Electron's modules as parameters so they can be tested without Electron.
const desktop = createDesktop({
  app,
  BrowserWindow: BrowserWindow as never,
  ipcMain: ipcMain as never,
  protocol: protocol as never,
  session: session as never,
  shell,
  dialog: dialog as never,
  clipboard,
  Menu: Menu as never,
  Tray: Tray as never,
  nativeImage: nativeImage as never,
  // Asked once the gateway starts, after the app is ready.
  get Notification() {
    return Notification.isSupported() ? Notification : undefined
  },
  // Read lazily: the screen module is usable only once the app is ready.
  get screen() {
    return electron.screen
  },
  startGateway,
  rendererDir: path.join(import.meta.dirname, '../renderer'),
  preloadPath: path.join(import.meta.dirname, '../preload/index.cjs'),
  // "Stay signed in" tokens: a keychain service of their own, apart from provider credentials.
  sessionKeychain: new KeychainSecretStore(`${process.env.GW_KEYCHAIN_SERVICE ?? APP_NAME} session`),
  devUrl: app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL,
})

desktop.ready.catch((err) => {
  dialog.showErrorBox('GW Gateway could not start', (err as Error)?.stack ?? String(err))
  app.exit(1)
})

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit())
