import { randomBytes } from 'node:crypto'
import { isUniqueViolation, type Sql } from './sql'
import type { User } from '../../contract/auth'
import { hashKey } from '../keys/inferenceKey'

interface UserRow extends User {
  password_hash: string
}

const SESSION_MS = { short: 12 * 3600_000, remembered: 30 * 24 * 3600_000 }

/** Names are unique whatever their case (SQLite: a NOCASE column; PostgreSQL: a unique index on lower()). */
export class UsersRepo {
  constructor(private readonly sql: Sql) {}

  async count(): Promise<number> {
    return (await this.sql.get<{ n: number }>(`SELECT count(*) AS n FROM users`))!.n
  }

  all(): Promise<User[]> {
    return this.sql.all<User>(`SELECT id, username, role, created_at FROM users ORDER BY created_at`)
  }

  byId(id: string): Promise<User | undefined> {
    return this.sql.get<User>(`SELECT id, username, role, created_at FROM users WHERE id = ?`, [id])
  }

  withPassword(username: string): Promise<UserRow | undefined> {
    return this.sql.get<UserRow>(`SELECT * FROM users WHERE lower(username) = lower(?)`, [username])
  }

  async create(username: string, passwordHash: string, role: User['role'], now = Date.now()): Promise<User> {
    const user: User = { id: `usr_${randomBytes(9).toString('base64url')}`, username, role, created_at: now }
    try {
      await this.sql.run(`INSERT INTO users (id, username, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?)`, [
        user.id,
        username,
        passwordHash,
        role,
        now,
      ])
    } catch (err) {
      if (isUniqueViolation(err)) throw new Error(`a user named ${username} exists already`, { cause: err })
      throw err
    }
    return user
  }

  async remove(id: string): Promise<boolean> {
    return (await this.sql.run(`DELETE FROM users WHERE id = ?`, [id])) === 1
  }

  async admins(): Promise<number> {
    return (await this.sql.get<{ n: number }>(`SELECT count(*) AS n FROM users WHERE role = 'admin'`))!.n
  }

  /** A new session; only the token's hash is stored. */
  async startSession(userId: string, remember: boolean, now = Date.now()): Promise<{ token: string; expires_at: number }> {
    const token = randomBytes(32).toString('base64url')
    const expires_at = now + (remember ? SESSION_MS.remembered : SESSION_MS.short)
    await this.sql.write(async (tx) => {
      await tx.run(`DELETE FROM sessions WHERE expires_at <= ?`, [now])
      await tx.run(`INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)`, [hashKey(token), userId, now, expires_at])
    })
    return { token, expires_at }
  }

  userForSession(token: string, now = Date.now()): Promise<User | undefined> {
    return this.sql.get<User>(
      `SELECT u.id, u.username, u.role, u.created_at FROM sessions s JOIN users u ON u.id = s.user_id
       WHERE s.token_hash = ? AND s.expires_at > ?`,
      [hashKey(token), now],
    )
  }

  async endSession(token: string): Promise<void> {
    await this.sql.run(`DELETE FROM sessions WHERE token_hash = ?`, [hashKey(token)])
  }
}
