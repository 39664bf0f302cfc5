import { useState } from 'react'
import { fieldErrors, toApiError, type ApiError } from '../api/errors'

export type Errors = Record<string, string>

/**
 * What every form shares: inline errors per field, an error for the form as a whole and whether it
 * is sending. `B` names what is sending when one form state serves several buttons.
 */
export function useSubmit<B = true>() {
  const [errors, setErrors] = useState<Errors>({})
  const [formError, setFormError] = useState<string | null>(null)
  const [busy, setBusy] = useState<B | false>(false)
  /**
   * `check`: the form's own findings, shown under their fields; nothing is sent while there are any.
   * A boolean instead says only whether the form may be sent, leaving the fields' errors as they are.
   * A failed call shows its errors under the fields they name, or else `formMessage` of it for the form.
   */
  const submit = async (check: Errors | boolean, send: () => Promise<void>, opts: { as?: B; formMessage?: (e: ApiError) => string } = {}) => {
    const ok = typeof check === 'boolean' ? check : Object.keys(check).length === 0
    if (typeof check !== 'boolean') setErrors(check)
    setFormError(null)
    if (!ok) return
    setBusy(opts.as ?? (true as B))
    try {
      await send()
    } catch (err) {
      const ae = toApiError(err)
      const fe = fieldErrors(ae)
      setErrors(fe)
      if (!Object.keys(fe).length) setFormError(opts.formMessage ? opts.formMessage(ae) : ae.message)
    } finally {
      setBusy(false)
    }
  }
  return { errors, setErrors, formError, busy, submit }
}

/** Text inputs held as one object; `set(k)` is the change handler of the control for `k`. */
export function useFields<T extends Record<string, string>>(initial: T) {
  const [v, setV] = useState<T>(initial)
  const set = (k: keyof T) => (e: { target: { value: string } }) => setV((s) => ({ ...s, [k]: e.target.value }))
  return { v, setV, set }
}

/** The error at `path`, or else the first one below it (`policy.allowed_models` for `policy.allowed_models.0`). */
export function errorAt(errors: Errors, path: string): string | undefined {
  return errors[path] ?? Object.entries(errors).find(([k]) => k.startsWith(`${path}.`))?.[1]
}
