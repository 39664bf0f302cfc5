import assert from 'node:assert/strict'

export interface WaitOptions {
  /** What the test waits for, as the failure says it never happened: "the record stored" (a function: what it saw last). */
  what: string | (() => string)
  /** How long it may take before the test fails; 5 s unless told. */
  timeoutMs?: number
  /** How often `check` is asked again; 10 ms unless told (a check that queries a server may want more). */
  intervalMs?: number
}

/**
 * Waits until `check` holds and resolves to how long that took; fails, naming `what`, once
 * `timeoutMs` passed without it. For state the code gives no event or promise for (a row another
 * process committed, a process gone, a gateway ready again), so that a test waits for what it
 * means, never for a fixed time that a loaded machine may outlast.
 */
export async function waitUntil(check: () => boolean | Promise<boolean>, opts: WaitOptions): Promise<number> {
  const timeoutMs = opts.timeoutMs ?? 5000
  const start = Date.now()
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) assert.fail(`${typeof opts.what === 'string' ? opts.what : opts.what()}: not within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, opts.intervalMs ?? 10))
  }
  return Date.now() - start
}
