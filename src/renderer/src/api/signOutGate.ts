/**
 * Holds calls back while a sign-out is under way. A call made meanwhile (a poll of the screen
 * being left) waits for it and, once signed out, is not sent: it would only meet a 401, which
 * the browser reports in its console and the app would take for an expired session.
 */
export class SignOutGate {
  private pending: Promise<boolean> | null = null

  /** Resolves when a call may be sent; false when a sign-out that was under way succeeded. */
  async open(): Promise<boolean> {
    return this.pending ? !(await this.pending) : true
  }

  /** Runs the sign-out, holding other calls until it settles. */
  async signOut<T>(send: () => Promise<T>): Promise<T> {
    const done = send()
    this.pending = done.then(
      () => true,
      () => false,
    )
    try {
      return await done
    } finally {
      this.pending = null
    }
  }
}
