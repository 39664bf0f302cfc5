import os from 'node:os'

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1']
const WILDCARDS = new Set(['0.0.0.0', '::', ''])

/** Host name without port; IPv6 brackets removed. */
export function hostName(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase()
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') === -1 ? undefined : h.indexOf(']'))
  const colon = h.lastIndexOf(':')
  return colon === -1 ? h : h.slice(0, colon)
}

/**
 * The names a browser may use to reach this gateway. Anything else in `Host` is a DNS-rebinding
 * page (evil.example resolving to 127.0.0.1) and is refused. A wildcard bind adds the machine's
 * own addresses; `*` in allowedHosts turns the check off for deployments behind a proxy.
 */
export function hostChecker(boundHost: string, allowedHosts: string[]): (hostHeader: string | undefined) => boolean {
  if (allowedHosts.includes('*')) return () => true
  const allowed = new Set([...LOOPBACK_NAMES, boundHost.toLowerCase(), ...allowedHosts.map((h) => h.toLowerCase())])
  if (WILDCARDS.has(boundHost)) {
    for (const addrs of Object.values(os.networkInterfaces())) for (const a of addrs ?? []) allowed.add(a.address.toLowerCase())
  }
  return (hostHeader) => hostHeader !== undefined && allowed.has(hostName(hostHeader))
}
