/**
 * What a coding-agent CLI run left in a gateway: the records of its requests and the log lines of
 * those that got none (a refused key). An agent asks as often as it decides, so its tests count
 * what is new since a run began rather than look a request up by id.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import type { Gateway } from '../../src/gateway/gateway'
import { waitForRecord } from './harness'

/** How many records the gateway holds, queued ones included. */
export async function recordCount(gw: Gateway): Promise<number> {
  await gw.records.flushed()
  return gw.store.requests.count()
}

/** The records of the requests made since there were `before` (a `recordCount`), oldest first. */
export async function newRecords(gw: Gateway, before: number) {
  await gw.records.flushed()
  const list = await gw.store.requests.list(1000)
  const fresh = list.slice(0, list.length - before).reverse()
  return Promise.all(fresh.map((r) => waitForRecord(gw, r.id)))
}

/** The log file's lines matching `pattern`, once there are `want` or 3 s passed: the log is written asynchronously. */
export async function logLines(file: string, pattern: RegExp, want = 1): Promise<string[]> {
  const deadline = Date.now() + 3000
  for (;;) {
    const lines = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => pattern.test(line))
    if (lines.length >= want || Date.now() > deadline) return lines
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Equal to the cent's ten-millionth: prices are per million tokens, so sums of products carry float noise. */
export const assertUsd = (actual: number | null | undefined, expected: number, what: string) =>
  assert.ok(typeof actual === 'number' && Math.abs(actual - expected) < 1e-9, `${what}: ${actual} USD, expected ${expected}`)
