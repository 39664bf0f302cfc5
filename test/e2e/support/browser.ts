import fs from 'node:fs'
import path from 'node:path'
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core'
import { ROOT } from '../../support/build'

export const CHROMIUM = '/usr/bin/chromium'

/** Why the browser tests cannot run here, or null. */
export function skipReason(): string | null {
  return fs.existsSync(CHROMIUM)
    ? null
    : `${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium) to run the dashboard e2e tests`
}

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  })
}

export type Theme = 'light' | 'dark'

/**
 * A page that remembers every console error and uncaught exception. HTTP failures the test
 * expects (Chromium logs each 4xx/5xx fetch as a console error) are allowed by status and
 * operation with `allowHttpError`.
 */
export class WatchedPage {
  readonly errors: string[] = []
  private readonly allowed: Array<{ status: number; op: string }> = []
  constructor(
    readonly page: Page,
    readonly context: BrowserContext,
  ) {
    page.on('console', (m: ConsoleMessage) => {
      if (m.type() !== 'error') return
      const text = m.text()
      const url = m.location().url ?? ''
      const status = Number(/status of (\d{3})/.exec(text)?.[1] ?? 0)
      if (status && this.allowed.some((a) => a.status === status && url.endsWith(`/api/${a.op}`))) return
      this.errors.push(`${text}${url ? ` (${url})` : ''}`)
    })
    page.on('pageerror', (e) => this.errors.push(`uncaught: ${e.message}`))
  }
  allowHttpError(status: number, op: string): void {
    this.allowed.push({ status, op })
  }
  /** Throws if anything was logged as an error since the last check (each error is reported once). */
  assertNoConsoleErrors(): void {
    const found = this.errors.splice(0)
    if (found.length) throw new Error(`console errors:\n${found.join('\n')}`)
  }
}

/** The window a page opens in. */
export const DESKTOP = { width: 1360, height: 900 }

export async function openPage(browser: Browser, baseUrl: string, theme: Theme = 'light'): Promise<WatchedPage> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: DESKTOP,
    colorScheme: theme,
    permissions: ['clipboard-read', 'clipboard-write'],
  })
  context.setDefaultTimeout(15_000)
  const page = await context.newPage()
  return new WatchedPage(page, context)
}

export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = path.join(ROOT, 'test-results/screenshots')
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${name}.png`)
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled' })
  return file
}

const axeSource = () => fs.readFileSync(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8')

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: Array<{ target: string[]; failureSummary?: string }>
}

/** Runs axe-core in the page (evaluated over the DevTools protocol, so the page's CSP stays on). */
export async function axe(page: Page): Promise<AxeViolation[]> {
  // Plain strings, not functions: tsx may wrap compiled functions in helpers the page lacks.
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axeSource())
  const json = (await page.evaluate(
    `window.axe.run(document, { resultTypes: ['violations'] }).then((r) => JSON.stringify(r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }))))`,
  )) as string
  return JSON.parse(json) as AxeViolation[]
}

export const serious = (vs: AxeViolation[]) => vs.filter((v) => v.impact === 'serious' || v.impact === 'critical')

export const describeViolations = (vs: AxeViolation[]) =>
  vs
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help}\n${v.nodes
          .slice(0, 5)
          .map((n) => `   ${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(0, 2).join(' ')}`)
          .join('\n')}`,
    )
    .join('\n')
