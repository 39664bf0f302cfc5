// What several screens' tests do: sign in as the owner, check a screen fits a phone, take its screenshots.
import assert from 'node:assert/strict'
import type { Browser, Page } from 'playwright-core'
import { axe, describeViolations, openPage, screenshot, serious, type WatchedPage } from './browser'
import type { Stack } from './stack'
import { AuthPage } from '../pages/auth'
import { Shell } from '../pages/shell'
import { KeysPage } from '../pages/keys'
import { PlaygroundPage } from '../pages/playground'

export const PHONE = { width: 390, height: 844 }

/** No serious accessibility violation on the current screen, in the light and dark themes; ends in light. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme })
    const bad = serious(await axe(page))
    assert.equal(bad.length, 0, `${what} (${theme}):\n${describeViolations(bad)}`)
  }
  await page.emulateMedia({ colorScheme: 'light' })
}

type Doc = { document: { documentElement: { scrollWidth: number } } }

/** Asserts the page does not scroll sideways at 390 px, once its layout has settled after a resize. */
export async function assertNoSideScroll(page: Page, what: string): Promise<void> {
  // A function, not a string: the dashboard's CSP refuses eval() when Playwright polls a string.
  const fits = await page
    .waitForFunction((w) => (globalThis as unknown as Doc).document.documentElement.scrollWidth <= w, PHONE.width, { timeout: 3_000 })
    .then(() => true)
    .catch(() => false)
  const width = (await page.evaluate('document.documentElement.scrollWidth')) as number
  assert.ok(fits, `${what} is ${width} px wide at 390 px`)
}

/**
 * Screenshots of the current screen at 1280 and 390 px, light and dark, each once `waitFor` is
 * done and then `check`ed (what must hold at every width and theme); ends at 1280 px, light.
 */
export async function shots(
  page: Page,
  name: string,
  waitFor: () => Promise<void>,
  check?: (width: number, theme: 'light' | 'dark') => Promise<void>,
): Promise<void> {
  for (const width of [1280, PHONE.width]) {
    await page.setViewportSize({ width, height: PHONE.height })
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme })
      await waitFor()
      await screenshot(page, `${name}-${width}-${theme}`)
      await check?.(width, theme)
    }
  }
  await page.emulateMedia({ colorScheme: 'light' })
  await page.setViewportSize({ width: 1280, height: PHONE.height })
}

export async function signedIn(stack: Stack, browser: Browser): Promise<WatchedPage> {
  const w = await openPage(browser, stack.url)
  const auth = new AuthPage(w.page)
  await auth.open()
  await auth.setupOwner('owner', 'owner-password-123')
  await new Shell(w.page).waitForSignedIn('owner')
  return w
}

/** The Playground, signed in as the owner, with a key made for it: where each wire's e2e starts. */
export interface PlaygroundSession {
  w: WatchedPage
  shell: Shell
  keys: KeysPage
  playground: PlaygroundPage
  keyId: string
}

export async function playgroundWithKey(stack: Stack, browser: Browser, keyName: string): Promise<PlaygroundSession> {
  const w = await signedIn(stack, browser)
  const [shell, keys, playground] = [new Shell(w.page), new KeysPage(w.page), new PlaygroundPage(w.page)]
  await shell.nav('keys')
  const keyId = (await keys.create(keyName)).id
  await keys.closeSecret()
  await shell.nav('playground')
  await playground.waitForReady()
  return { w, shell, keys, playground, keyId }
}
