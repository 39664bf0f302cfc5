import { operations, type OperationName, type Result } from '../../contract'
import type { User } from '../../contract/auth'
import type { PlaygroundEvent } from '../../contract/playground'
import { SignInThrottle } from '../auth/throttle'
import type { Gateway } from '../gateway'
import { ClientAbort } from '../upstream/clientAbort'
import { AdminError } from './adminError'
import { InvalidQuery } from '../store/queries/invalidQuery'
import type { AdminContext, Caller, GatewayStatus, SessionChange } from './context'
import { aliasHandlers } from './handlers/aliases'
import { authHandlers } from './handlers/auth'
import { keyHandlers } from './handlers/keys'
import { playgroundHandlers } from './handlers/playground'
import { presetHandlers } from './handlers/presets'
import { providerHandlers } from './handlers/providers'
import { secretHandlers } from './handlers/secrets'
import { priceHandlers } from './handlers/prices'
import { requestHandlers } from './handlers/requests'
import { sessionHandlers } from './handlers/sessions'
import { settingsHandlers } from './handlers/settings'
import { sessionAlertHandlers } from './handlers/sessionAlerts'
import { responseCacheHandlers } from './handlers/responseCache'
import type { Handlers } from './handlers/types'

/** Exactly one handler per contract operation: a missing or extra one fails the type check. */
export const handlers: Handlers<OperationName> = {
  ...authHandlers,
  ...presetHandlers,
  ...aliasHandlers,
  ...keyHandlers,
  ...providerHandlers,
  ...secretHandlers,
  ...priceHandlers,
  ...requestHandlers,
  ...sessionHandlers,
  ...settingsHandlers,
  ...playgroundHandlers,
  ...sessionAlertHandlers,
  ...responseCacheHandlers,
}

export interface Invocation {
  result: Result<unknown>
  session: SessionChange | null
}

/**
 * The management API, implemented once for every transport (HTTP, CLI, Electron IPC): checks
 * access, validates input against the contract, runs the handler, and validates the output
 * (which also strips any field the contract does not name, so nothing private leaks).
 */
export class AdminService {
  private readonly throttle: SignInThrottle

  constructor(
    readonly gw: Gateway,
    private status: GatewayStatus,
  ) {
    this.throttle = new SignInThrottle(gw.store.signInFailures)
  }

  /** The user a session token belongs to, or null (none, expired or ended): every transport's one session lookup. */
  async userFor(token: string | null): Promise<User | null> {
    return token ? ((await this.gw.store.users.userForSession(token)) ?? null) : null
  }

  /** Known once the server listens (its port may have been chosen then). */
  listening(baseUrl: string, metrics: GatewayStatus['metrics']): void {
    this.status = { ...this.status, base_url: baseUrl, metrics }
  }

  /** `abort` is the transport's word that the caller of a streaming operation went away. */
  async invoke(name: string, rawInput: unknown, caller: Caller, onEvent?: (e: PlaygroundEvent) => void, abort = new ClientAbort()): Promise<Invocation> {
    const ctx: AdminContext = {
      gw: this.gw,
      caller,
      session: null,
      emit: onEvent ?? (() => {}),
      abort,
      status: this.status,
      throttle: this.throttle,
    }
    try {
      const value = await this.run(name, rawInput, ctx)
      return { result: { ok: true, value }, session: ctx.session }
    } catch (err) {
      // An AdminError (or a query's refusal of its input) is an answer; anything else is a defect,
      // and its stack is what finds it.
      const answer = err instanceof InvalidQuery ? new AdminError(400, 'invalid_input', err.message, err.field) : err
      if (!(answer instanceof AdminError)) this.gw.logger.error({ err, operation: name }, 'internal error')
      const e = answer instanceof AdminError ? answer : new AdminError(500, 'internal_error', `internal error: ${(err as Error).message}`)
      return { result: { ok: false, error: e.toContract() }, session: ctx.session }
    }
  }

  private async run(name: string, rawInput: unknown, ctx: AdminContext): Promise<unknown> {
    if (!Object.hasOwn(operations, name)) throw new AdminError(404, 'unknown_operation', `no operation named ${name}`)
    const opName = name as OperationName
    const op = operations[opName]
    const user = ctx.caller.user
    if (op.access !== 'public' && !user) throw new AdminError(401, 'unauthenticated', 'Sign in first.')
    if (op.access === 'admin' && user?.role !== 'admin') throw new AdminError(403, 'forbidden', `${name} is for admins only.`)
    const parsed = op.input.safeParse(rawInput ?? {})
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const field = issue.path.join('.')
      throw new AdminError(400, 'invalid_input', parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '), field || undefined)
    }
    await this.gw.refresh()
    const handler = handlers[opName] as (ctx: AdminContext, input: unknown) => unknown
    const value = await handler(ctx, parsed.data)
    if ('stream' in op && op.stream) return null
    return op.output.parse(value)
  }
}
