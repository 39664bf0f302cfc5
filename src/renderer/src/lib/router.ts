import { useEffect, useState } from 'react'

export interface Route {
  /** Path segments after `#/`, e.g. ['keys', 'key_x']. */
  segments: string[]
  query: URLSearchParams
  path: string
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '')
  const [pathPart = '', queryPart = ''] = raw.split('?', 2)
  const segments = pathPart.split('/').filter(Boolean).map(decodeURIComponent)
  return { segments, query: new URLSearchParams(queryPart), path: `/${segments.join('/')}` }
}

/** `href('keys', id)` → `#/keys/<id>`; a query object adds `?a=b`, skipping empty values. */
export function href(...parts: Array<string | Record<string, string | number | undefined | null>>): string {
  const segs: string[] = []
  let query = ''
  for (const p of parts) {
    if (typeof p === 'string') segs.push(encodeURIComponent(p))
    else {
      const q = new URLSearchParams()
      for (const [k, v] of Object.entries(p)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v))
      const s = q.toString()
      if (s) query = `?${s}`
    }
  }
  return `#/${segs.join('/')}${query}`
}

export function navigate(to: string, replace = false): void {
  if (replace) {
    history.replaceState(null, '', to)
    window.dispatchEvent(new HashChangeEvent('hashchange'))
  } else window.location.hash = to.replace(/^#/, '')
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash))
  useEffect(() => {
    const on = () => setRoute(parseHash(window.location.hash))
    window.addEventListener('hashchange', on)
    return () => window.removeEventListener('hashchange', on)
  }, [])
  return route
}
