/**
 * What the gateway says about a PostgreSQL URL before it connects: without `pg`, so the CLI's
 * checks and messages do not load the client (only a store on PostgreSQL does).
 */

/** The URL as people may see it: without its password. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return 'the database URL'
  }
}

/** What is wrong with a database URL before any connection is tried, in a few words; null when nothing. */
export function postgresUrlProblem(url: string): string | null {
  if (!/^postgres(ql)?:\/\//.test(url.trim())) return `"${redactUrl(url)}" is not a postgres:// or postgresql:// URL`
  try {
    new URL(url.trim())
    return null
  } catch {
    return 'the URL cannot be parsed (a password with special characters must be percent-encoded)'
  }
}
