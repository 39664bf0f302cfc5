import type { ContractError } from '../../contract'

/** A refusal or failure of a management operation, carried to every transport as a ContractError. */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message)
  }

  toContract(): ContractError {
    return { status: this.status, code: this.code, message: this.message, ...(this.field !== undefined && { field: this.field }) }
  }
}

export const notFound = (what: string) => new AdminError(404, 'not_found', `${what} was not found`)
export const forbidden = (why: string) => new AdminError(403, 'forbidden', why)
export const invalid = (field: string, message: string) => new AdminError(400, 'invalid_input', `${field}: ${message}`, field)
export const conflict = (message: string) => new AdminError(409, 'conflict', message)
/** GW_SECRET_KEY is missing where a provider key is to be stored or rotated: the gateway's configuration, not the caller's input. */
export const secretKeyMissing = (message: string, field?: string) => new AdminError(503, 'secret_key_missing', message, field)
