import fs from 'node:fs'
import path from 'node:path'
import type { ElectronListener } from './electronEvents'

export interface WindowState {
  width: number
  height: number
  x?: number
  y?: number
  maximized?: boolean
}

/** Desktop-only preferences, in `desktop.json` next to the store: the window's size and place, and start at login. */
export interface DesktopPrefsData {
  window: WindowState
  openAtLogin: boolean
}

export const DEFAULT_WINDOW: WindowState = { width: 1100, height: 760 }
export const MIN_WINDOW = { width: 720, height: 520 }

function sane(w: unknown): WindowState {
  const v = (w ?? {}) as Partial<WindowState>
  const int = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? Math.round(n) : undefined)
  const width = Math.min(Math.max(int(v.width) ?? DEFAULT_WINDOW.width, MIN_WINDOW.width), 10000)
  const height = Math.min(Math.max(int(v.height) ?? DEFAULT_WINDOW.height, MIN_WINDOW.height), 10000)
  const out: WindowState = { width, height }
  const x = int(v.x)
  const y = int(v.y)
  if (x !== undefined && y !== undefined) Object.assign(out, { x, y })
  if (v.maximized === true) out.maximized = true
  return out
}

export class DesktopPrefs {
  private data: DesktopPrefsData

  constructor(readonly file: string) {
    let raw: Partial<DesktopPrefsData> = {}
    try {
      raw = JSON.parse(fs.readFileSync(file, 'utf8'))
    } catch {
      /* first start, or an unreadable file: defaults */
    }
    this.data = { window: sane(raw.window), openAtLogin: raw.openAtLogin === true }
  }

  get window(): WindowState {
    return { ...this.data.window }
  }

  get openAtLogin(): boolean {
    return this.data.openAtLogin
  }

  update(changes: Partial<DesktopPrefsData>): void {
    this.data = {
      window: changes.window ? sane(changes.window) : this.data.window,
      openAtLogin: changes.openAtLogin ?? this.data.openAtLogin,
    }
    fs.mkdirSync(path.dirname(this.file), { recursive: true })
    const tmp = `${this.file}.tmp`
    fs.writeFileSync(tmp, JSON.stringify(this.data, null, 2))
    fs.renameSync(tmp, this.file)
  }
}

export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

/** Drops a remembered position that no display shows any more (a monitor was unplugged). */
export function visibleState(state: WindowState, workAreas: Rect[]): WindowState {
  if (state.x === undefined || state.y === undefined || workAreas.length === 0) return state
  const { x, y } = state
  const onScreen = workAreas.some((a) => x + 100 > a.x && y + 40 > a.y && x < a.x + a.width - 100 && y < a.y + a.height - 40)
  if (onScreen) return state
  const { x: _x, y: _y, ...rest } = state
  return rest
}

export interface TrackedWindow {
  on(event: string, listener: ElectronListener): unknown
  getNormalBounds(): Rect
  isMaximized(): boolean
  isDestroyed(): boolean
}

/** Saves the window's normal bounds and maximized state as it is resized, moved and closed. */
export function trackWindowState(win: TrackedWindow, save: (s: WindowState) => void, delayMs = 400): void {
  let timer: NodeJS.Timeout | null = null
  const now = () => {
    if (timer) clearTimeout(timer)
    timer = null
    if (win.isDestroyed()) return
    save({ ...win.getNormalBounds(), maximized: win.isMaximized() })
  }
  const later = () => {
    if (timer) clearTimeout(timer)
    timer = setTimeout(now, delayMs)
  }
  for (const e of ['resize', 'move']) win.on(e, later)
  for (const e of ['maximize', 'unmaximize', 'close']) win.on(e, now)
}
