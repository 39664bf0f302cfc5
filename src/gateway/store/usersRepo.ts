import { randomBytes } from 'node:crypto'
import type { Db } from './db'
import type { User } from '../../contract/auth'
import { hashKey } from '../keys/inferenceKey'

interface UserRow extends User {
  password_hash: string
}

const SESSION_MS = { short: 12 * 3600_000, remembered: 30 * 24 * 3600_000 }

export class UsersRepo {
  constructor(private readonly db: Db) {}

  count(): number {
    return this.db.prepare(`SELECT count(*) FROM users`).pluck().get() as number
  }

  all(): User[] {
    return this.db.prepare(`SELECT id, username, role, created_at FROM users ORDER BY created_at`).all() as User[]
  }

  byId(id: string): User | undefined {
    return this.db.prepare(`SELECT id, username, role, created_at FROM users WHERE id = ?`).get(id) as User | undefined
  }

  withPassword(username: string): UserRow | undefined {
    return this.db.prepare(`SELECT * FROM users WHERE username = ?`).get(username) as UserRow | undefined
  }

  create(username: string, passwordHash: string, role: User['role'], now = Date.now()): User {
    const user: User = { id: `usr_${randomBytes(9).toString('base64url')}`, username, role, created_at: now }
    try {
      this.db
        .prepare(`INSERT INTO users (id, username, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?)`)
        .run(user.id, username, passwordHash, role, now)
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new Error(`a user named ${username} exists already`, { cause: err })
      throw err
    }
    return user
  }

  remove(id: string): boolean {
    return this.db.prepare(`DELETE FROM users WHERE id = ?`).run(id).changes === 1
  }

  admins(): number {
    return this.db.prepare(`SELECT count(*) FROM users WHERE role = 'admin'`).pluck().get() as number
  }

  /** A new session; only the token's hash is stored. */
  startSession(userId: string, remember: boolean, now = Date.now()): { token: string; expires_at: number } {
    const token = randomBytes(32).toString('base64url')
    const expires_at = now + (remember ? SESSION_MS.remembered : SESSION_MS.short)
    this.db.prepare(`DELETE FROM sessions WHERE expires_at <= ?`).run(now)
    this.db.prepare(`INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)`).run(hashKey(token), userId, now, expires_at)
    return { token, expires_at }
  }

  userForSession(token: string, now = Date.now()): User | undefined {
    return this.db
      .prepare(
        `SELECT u.id, u.username, u.role, u.created_at FROM sessions s JOIN users u ON u.id = s.user_id
         WHERE s.token_hash = ? AND s.expires_at > ?`,
      )
      .get(hashKey(token), now) as User | undefined
  }

  endSession(token: string): void {
    this.db.prepare(`DELETE FROM sessions WHERE token_hash = ?`).run(hashKey(token))
  }
}
