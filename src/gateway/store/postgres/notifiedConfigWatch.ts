import type pg from 'pg'
import { CONFIG_CHANNEL, CONFIG_REV_SQL, type ConfigWatch } from '../configRev'

/** How often the revision row is read besides the notifications, and a lost listener reconnected. */
const POLL_MS = 1000

/**
 * Configuration changes on PostgreSQL: every change notifies `gw_config` when it commits, which
 * a connection of this gateway's own listens for, so a change made through any gateway or the CLI
 * reaches the next request here within the notification's trip, with no query per request. The
 * revision row is also read once a second, which catches a change whose notification was lost
 * with a dropped listener connection (reconnected at the same pace).
 */
export class NotifiedConfigWatch implements ConfigWatch {
  /** A change was heard of and not yet reported by `changed()`; true at first, so the first check loads. */
  private dirty = true
  private seenRev: number | null = null
  private listener: pg.Client | null = null
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
    const listener = this.listener
    this.listener = null
    await listener?.end().catch(() => {})
  }

  private async listen(): Promise<void> {
    if (this.closed) return
    const client = this.newClient()
    client.on('notification', () => (this.dirty = true))
    client.on('error', () => {
      // Whatever was missed meanwhile: read everything again; the timer reconnects.
      if (this.listener === client) this.listener = null
      this.dirty = true
      void client.end().catch(() => {})
    })
    await client.connect()
    await client.query(`LISTEN ${CONFIG_CHANNEL}`)
    if (this.closed) return void (await client.end())
    this.listener = client
  }

  private async poll(): Promise<void> {
    try {
      const rev = (await this.pool.query<{ rev: number }>(CONFIG_REV_SQL)).rows[0].rev
      if (rev !== this.seenRev) {
        if (this.seenRev !== null) this.dirty = true
        this.seenRev = rev
      }
    } catch {
      // The database is unreachable for now: the next poll tries again.
    }
  }
}
