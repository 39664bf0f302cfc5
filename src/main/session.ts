import type { User } from '../contract/auth'
import type { SessionChange } from '../gateway/admin/context'
import type { AdminService } from '../gateway/admin/adminService'
import type { SecretStore } from '../gateway/secrets/secretStore'

/** The keychain account that holds a "stay signed in" session token. */
export const SESSION_ACCOUNT = 'session'

/**
 * The desktop window's session: one user at a time, held in the main process (never in the
 * page). "Stay signed in on this device" keeps the token in the OS keychain (its own service, so
 * it cannot collide with a provider's credential); it is restored at start and removed at sign-out.
 */
export class DesktopSession {
  token: string | null = null

  constructor(
    private readonly keychain: SecretStore | null,
    private readonly log: (msg: string) => void = () => {},
  ) {}

  /** The signed-in user, or null (no token, or it expired or was ended elsewhere). */
  user(admin: AdminService): Promise<User | null> {
    return admin.userFor(this.token)
  }

  /** Restores a kept session at start; a token the store no longer knows is removed from the keychain. */
  async restore(admin: AdminService): Promise<User | null> {
    if (!this.keychain) return null
    let kept: string | null
    try {
      kept = await this.keychain.get(SESSION_ACCOUNT)
    } catch (err) {
      this.log(`could not read the kept session: ${(err as Error).message}`)
      return null
    }
    if (!kept) return null
    const user = await admin.userFor(kept)
    if (user) this.token = kept
    else await this.forget()
    return user
  }

  /** Applies what a sign-in, setup or sign-out decided. */
  async apply(change: SessionChange): Promise<void> {
    if ('set' in change) {
      this.token = change.set.token
      if (change.set.remember) await this.keep(change.set.token)
      else await this.forget()
    } else {
      this.token = null
      await this.forget()
    }
  }

  private async keep(token: string): Promise<void> {
    if (!this.keychain) return
    try {
      await this.keychain.set(SESSION_ACCOUNT, token)
    } catch (err) {
      this.log(`could not keep the session in ${this.keychain.description}; you will be asked to sign in next time (${(err as Error).message})`)
    }
  }

  private async forget(): Promise<void> {
    if (!this.keychain) return
    try {
      await this.keychain.delete(SESSION_ACCOUNT)
    } catch {
      /* nothing kept, or no keychain: nothing to remove */
    }
  }
}
