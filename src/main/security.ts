import { CONTENT_SECURITY_POLICY, isAppUrl } from './protocol'
import type { ElectronListener } from './electronEvents'

/** Which pages count as the app's own renderer: `app://gw/`, or the dev server's origin under `npm start`. */
export function ownRendererCheck(devUrl: string | undefined): (url: string) => boolean {
  const devOrigin = devUrl ? safeOrigin(devUrl) : null
  return (url) => isAppUrl(url) || (devOrigin !== null && safeOrigin(url) === devOrigin)
}

function safeOrigin(url: string): string | null {
  try {
    const o = new URL(url).origin
    return o === 'null' ? null : o
  } catch {
    return null
  }
}

/** Only https links are handed to the system browser; everything else (file:, javascript:, http:, custom schemes) is dropped. */
export function isSafeExternalUrl(url: string): boolean {
  try {
    const u = new URL(url)
    return u.protocol === 'https:' && u.username === '' && u.password === ''
  } catch {
    return false
  }
}

export interface ShellLike {
  openExternal(url: string): Promise<void>
}

export interface WebContentsLike {
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' } | { action: 'allow' }): void
  on(event: string, listener: ElectronListener): unknown
}

/**
 * Every web contents the app creates: no navigation away from the app, no new windows, no
 * webviews. An https link the app shows (target=_blank or a plain link) opens in the system
 * browser instead; anything else is dropped.
 */
export function hardenWebContents(contents: WebContentsLike, shell: ShellLike, isOwnRenderer: (url: string) => boolean): void {
  const openOutside = (url: string) => {
    if (isSafeExternalUrl(url)) shell.openExternal(url).catch(() => {})
  }
  contents.setWindowOpenHandler(({ url }) => {
    openOutside(url)
    return { action: 'deny' }
  })
  const blockNavigation = (event: { preventDefault(): void }, url: string) => {
    if (isOwnRenderer(url)) return
    event.preventDefault()
    openOutside(url)
  }
  contents.on('will-navigate', blockNavigation)
  contents.on('will-redirect', blockNavigation)
  contents.on('will-attach-webview', (event: { preventDefault(): void }) => event.preventDefault())
}

export interface SessionLike {
  setPermissionRequestHandler(
    handler: ((webContents: unknown, permission: string, callback: (granted: boolean) => void, details?: unknown) => void) | null,
  ): void
  setPermissionCheckHandler(handler: ((webContents: unknown, permission: string, origin?: string, details?: unknown) => boolean) | null): void
  webRequest: {
    onHeadersReceived(
      listener: (
        details: { url: string; responseHeaders?: Record<string, string | string[]> },
        callback: (response: { responseHeaders?: Record<string, string | string[]> }) => void,
      ) => void,
    ): void
  }
}

/**
 * The default session: every permission request (camera, notifications, geolocation, clipboard
 * read, …) is refused and every permission check answers no; every response carries the app's
 * CSP, except the dev server's under `npm start` (Vite needs inline scripts and a WebSocket there).
 */
export function hardenSession(session: SessionLike, devUrl?: string): void {
  session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false))
  session.setPermissionCheckHandler(() => false)
  const devOrigin = devUrl ? safeOrigin(devUrl) : null
  session.webRequest.onHeadersReceived((details, callback) => {
    if (devOrigin && safeOrigin(details.url) === devOrigin) return callback({ responseHeaders: details.responseHeaders })
    const headers = { ...(details.responseHeaders ?? {}) }
    for (const k of Object.keys(headers)) if (k.toLowerCase() === 'content-security-policy') delete headers[k]
    callback({ responseHeaders: { ...headers, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } })
  })
}

/** The window's web preferences: isolated, sandboxed, no Node in the page. */
export function secureWebPreferences(preload: string) {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
  } as const
}
