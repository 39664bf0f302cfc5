import type { ContractError } from '../../../contract'

/** A management call that failed: the contract's error, thrown by both transports alike. */
export class ApiError extends Error implements ContractError {
  readonly code: string
  readonly field?: string
  readonly status: number
  constructor(e: ContractError) {
    super(e.message)
    this.name = 'ApiError'
    this.code = e.code
    this.status = e.status
    if (e.field !== undefined) this.field = e.field
  }
}

const statusOfCode: Record<string, number> = {
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
}

/**
 * Whatever a transport threw, as a ContractError. The Electron bridge may deliver a plain Error
 * carrying only `code` (properties can be lost crossing the context bridge), so the field of an
 * invalid input is recovered from its "field: message" text when it is missing.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err
  const e = (err ?? {}) as Partial<ContractError> & { message?: string }
  const raw = typeof e.message === 'string' ? e.message : String(err)
  // Electron prefixes errors from invoke: "Error invoking remote method 'gw:x': Error: …".
  const message = raw.replace(/^Error invoking remote method '[^']+': (?:\w*Error: )?/, '')
  const code = typeof e.code === 'string' ? e.code : 'failed'
  let field = typeof e.field === 'string' ? e.field : undefined
  if (!field && code === 'invalid_input') {
    const m = /^([a-zA-Z_][\w.]*): /.exec(message)
    if (m && m[1] !== 'input') field = m[1]
  }
  const status = typeof e.status === 'number' ? e.status : (statusOfCode[code] ?? 500)
  return new ApiError({ code, message, status, ...(field ? { field } : {}) })
}

/** The message to show under a field: "name: must be a slug" → "must be a slug". */
export function fieldMessage(e: ContractError): string {
  if (e.field && e.message.startsWith(`${e.field}: `)) return e.message.slice(e.field.length + 2)
  return e.message
}

/** Inline errors per field from a failed call; messages of several fields joined by "; " are split. */
export function fieldErrors(e: ContractError): Record<string, string> {
  const out: Record<string, string> = {}
  if (e.code === 'invalid_input') {
    for (const part of e.message.split('; ')) {
      const m = /^([a-zA-Z_][\w.]*): (.*)$/s.exec(part)
      if (m && m[1] !== 'input') out[m[1]] = m[2]
    }
  }
  if (e.field && !out[e.field]) out[e.field] = fieldMessage(e)
  return out
}
