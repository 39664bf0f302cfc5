import type pg from 'pg'
import { CONFIG_CHANNEL, CONFIG_REV_SQL, type ConfigWatch } from '../configRev'

/** How often the revision row is read besides the notifications, and a lost listener reconnected. */
const POLL_MS = 1000

/**
 * Configuration changes on PostgreSQL: every change notifies `gw_config` when it commits, which
 * a connection of this gateway's own listens for, so a change made through any gateway or the CLI
 * reaches the next request here within the notification's trip, with no query per request. The
 * revision row is also read once a second, which catches a change whose notification was lost
 * with a dropped listener connection.
 *
 * A lost listener is reconnected once a second. Until it is back, the configuration in memory
 * keeps serving (nothing is reloaded from a database that cannot answer); once it listens again,
 * everything is read again, which catches up with whatever changed meanwhile.
 */
export class NotifiedConfigWatch implements ConfigWatch {
  /** A change was heard of and not yet reported by `changed()`; true at first, so the first check loads. */
  private dirty = true
  private seenRev: number | null = null
  private listener: pg.Client | null = null
  /** A connection attempt under way (one at a time, however long the server takes to answer). */
  private connecting: Promise<void> | null = null
  private polling = false
  private timer: NodeJS.Timeout | null = null
  private closed = false

  constructor(
    private readonly pool: pg.Pool,
    private readonly newClient: () => pg.Client,
  ) {}

  async start(): Promise<void> {
    await this.listen()
    await this.poll()
    this.timer = setInterval(() => {
      void this.poll()
      if (!this.listener) void this.listen().catch(() => {})
    }, POLL_MS)
    this.timer.unref()
  }

  changed(): boolean {
    if (!this.dirty) return false
    this.dirty = false
    return true
  }

  invalidate(): void {
    this.dirty = true
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    await this.connecting?.catch(() => {})
    const listener = this.listener
    this.listener = null
    await listener?.end().catch(() => {})
  }

  private listen(): Promise<void> {
    this.connecting ??= this.connect().finally(() => (this.connecting = null))
    return this.connecting
  }

  private async connect(): Promise<void> {
    if (this.closed || this.listener) return
    const client = this.newClient()
    // An error ends the connection ('end' follows); either way the timer reconnects.
    client.on('error', () => {})
    client.on('end', () => {
      if (this.listener === client) this.listener = null
    })
    client.on('notification', () => (this.dirty = true))
    try {
      await client.connect()
      await client.query(`LISTEN ${CONFIG_CHANNEL}`)
    } catch (err) {
      await client.end().catch(() => {})
      throw err
    }
    if (this.closed) return void (await client.end())
    // Listening again after a loss: whatever changed while nobody listened is read now.
    if (this.seenRev !== null) this.dirty = true
    this.listener = client
  }

  private async poll(): Promise<void> {
    if (this.polling) return
    this.polling = true
    try {
      const rev = (await this.pool.query<{ rev: number }>(CONFIG_REV_SQL)).rows[0].rev
      if (rev !== this.seenRev) {
        if (this.seenRev !== null) this.dirty = true
        this.seenRev = rev
      }
    } catch {
      // The database is unreachable for now: the next poll tries again.
    } finally {
      this.polling = false
    }
  }
}
