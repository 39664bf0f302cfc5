import type { ContractError } from '../../contract'
import type { ApiError, OpenAIErrorBody } from '../errors'

/** The management API answers in the contract's error shape; every other route in OpenAI's. */
export const isManagementPath = (url: string): boolean => url === '/api' || url.startsWith('/api/') || url.startsWith('/api?')

type ManagementErrorBody = { error: ContractError }

/**
 * An error's body in the documented shape of the route `url` belongs to. Where the route cannot
 * be known (the connection failed before its request line could be read), the body carries both
 * shapes' fields, so either side's client reads it.
 */
export function errorBody(url: string | null, e: ApiError): OpenAIErrorBody | ManagementErrorBody {
  if (url !== null && !isManagementPath(url)) return e.toBody()
  const management: ContractError = { status: e.status, code: e.code ?? e.type, message: e.message, ...(e.param !== null && { field: e.param }) }
  return { error: url === null ? { ...e.toBody().error, ...management } : management }
}
