import { useState } from 'react'
import type { PlaygroundWire } from '../../../../contract/playground'
import { useFields, type Errors } from '../../lib/useForm'
import { fieldsFrom } from './request'

/** The Setup section's fields, and what a check or the gateway found wrong with them (or with the message). */
export function useRequestForm(query: URLSearchParams) {
  const { v, setV, set } = useFields(fieldsFrom(query))
  const [errors, setErrors] = useState<Errors>({})
  return { v, set, setWire: (wire: PlaygroundWire) => setV((s) => ({ ...s, wire })), errors, setErrors }
}

export type RequestForm = ReturnType<typeof useRequestForm>
