import fs from 'node:fs/promises'
import path from 'node:path'

/** The renderer is served from `app://gw/`: a standard, secure origin of its own, never `file://`. */
export const APP_SCHEME = 'app'
export const APP_HOST = 'gw'
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`
export const APP_INDEX_URL = `${APP_ORIGIN}/index.html`

/**
 * The desktop window's Content-Security-Policy: only the app's own scripts, no eval, no inline
 * scripts, no plugins, no frames, no network (management calls go over IPC, not fetch).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-src 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ')

/** Headers every response of the app protocol carries. */
export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Referrer-Policy': 'no-referrer',
}

/** Registered before the app is ready: standard (relative URLs, origin) and secure (like https). */
export const PRIVILEGED_SCHEMES = [{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } }]

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
}

/** Whether a URL belongs to the app's own renderer origin (`app://gw/…`). */
export function isAppUrl(url: string): boolean {
  try {
    const u = new URL(url)
    return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST
  } catch {
    return false
  }
}

/**
 * The file under `rootDir` an `app://gw/…` URL names, or null when it is another host or would
 * leave `rootDir` (`..`, encoded slashes or backslashes, NUL bytes).
 */
export function resolveAppFile(rootDir: string, url: string): string | null {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return null
  }
  if (u.protocol !== `${APP_SCHEME}:` || u.host !== APP_HOST) return null
  let rel: string
  try {
    rel = decodeURIComponent(u.pathname)
  } catch {
    return null
  }
  if (rel.includes('\0') || rel.includes('\\')) return null
  if (rel.split('/').some((seg) => seg === '..')) return null
  if (rel === '' || rel === '/') rel = '/index.html'
  const root = path.resolve(rootDir)
  const file = path.resolve(root, `.${rel}`)
  if (!file.startsWith(root + path.sep)) return null
  return file
}

const plain = (status: number, text: string) => new Response(text, { status, headers: { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' } })

/** The `protocol.handle` handler serving the built renderer from `rootDir`. */
export function appProtocolHandler(rootDir: string): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'method not allowed')
    const file = resolveAppFile(rootDir, request.url)
    if (!file) return plain(403, 'forbidden')
    let body: Buffer
    try {
      body = await fs.readFile(file)
    } catch {
      return plain(404, 'not found')
    }
    const type = MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream'
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
      status: 200,
      headers: { ...SECURITY_HEADERS, 'Content-Type': type, 'Cache-Control': 'no-cache' },
    })
  }
}
