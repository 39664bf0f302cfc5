import { useCallback, useEffect, useRef, useState } from 'react'
import { toApiError, type ApiError } from '../api/errors'

export interface Query<T> {
  data: T | undefined
  error: ApiError | null
  loading: boolean
  reload: () => void
  setData: (d: T) => void
}

/** Runs `fn` when `deps` change; keeps the last data while reloading; ignores answers that arrive out of order. */
export function useQuery<T>(fn: () => Promise<T>, deps: unknown[]): Query<T> {
  const [data, setData] = useState<T | undefined>(undefined)
  const [error, setError] = useState<ApiError | null>(null)
  const [loading, setLoading] = useState(true)
  const [tick, setTick] = useState(0)
  const seq = useRef(0)
  useEffect(() => {
    const n = ++seq.current
    // Loading shows at once when the inputs change; the answer's states are set when it arrives.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setLoading(true)
    fn().then(
      (d) => {
        if (n !== seq.current) return
        setData(d)
        setError(null)
        setLoading(false)
      },
      (e) => {
        if (n !== seq.current) return
        setError(toApiError(e))
        setLoading(false)
      },
    )
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick])
  const reload = useCallback(() => setTick((t) => t + 1), [])
  return { data, error, loading, reload, setData }
}

/** A value that follows `value` once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value)
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms)
    return () => clearTimeout(t)
  }, [value, ms])
  return v
}
