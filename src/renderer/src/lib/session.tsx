import { createContext, useContext } from 'react'
import type { User } from '../../../contract/auth'

export interface Session {
  user: User
  isAdmin: boolean
  signOut: () => void
}

export const SessionContext = createContext<Session | null>(null)

export function useSession(): Session {
  const s = useContext(SessionContext)
  if (!s) throw new Error('useSession outside a signed-in app')
  return s
}
