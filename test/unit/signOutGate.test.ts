import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { SignOutGate } from '../../src/renderer/src/api/signOutGate'

/** A call the test answers when it says. */
function deferred() {
  let settle!: (ok: boolean) => void
  const promise = new Promise<string>((resolve, reject) => (settle = (ok) => (ok ? resolve('done') : reject(new Error('refused')))))
  return { promise, settle }
}

describe("the dashboard's calls during a sign-out", () => {
  it('a call made while signing out waits, and is not sent once the sign-out succeeded: it would only meet a 401', async () => {
    const gate = new SignOutGate()
    assert.equal(await gate.open(), true, 'nothing holds a call back before')
    const out = deferred()
    const signingOut = gate.signOut(() => out.promise)
    let opened: boolean | null = null
    const poll = gate.open().then((o) => (opened = o))
    await new Promise((r) => setImmediate(r))
    assert.equal(opened, null, 'the poll waits for the sign-out')
    out.settle(true)
    await signingOut
    await poll
    assert.equal(opened, false)
    assert.equal(await gate.open(), true, 'calls after it (signing in again) go')
  })

  it('sends it once a sign-out failed', async () => {
    const gate = new SignOutGate()
    const out = deferred()
    const signingOut = gate.signOut(() => out.promise)
    const poll = gate.open()
    out.settle(false)
    await assert.rejects(signingOut, /refused/)
    assert.equal(await poll, true)
  })
})
