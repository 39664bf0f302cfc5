/**
 * A store's failure in a few words for an answer anyone may read: a socket error's code alone
 * (its message names the database's address), a database error's code and message.
 */
export function storeFailure(err: unknown): string {
  const { code, message } = err as { code?: unknown; message?: string }
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code
  return typeof code === 'string' ? `${code}: ${message}` : String(message)
}
