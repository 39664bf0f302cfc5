import { useState } from 'react'
import type { Msg } from './request'

/** The conversation the next request carries, each message editable, and the message being written. */
export function useConversation() {
  const [messages, setMessages] = useState<Msg[]>([])
  const [draft, setDraft] = useState('')
  return {
    messages,
    draft,
    setDraft,
    /** The message being written, as the user message it becomes when sent; none while it is blank. */
    drafted: (): Msg[] => (draft.trim() ? [{ role: 'user', content: draft }] : []),
    add: (ms: Msg[]) => setMessages((m) => [...m, ...ms]),
    edit: (i: number, change: Partial<Msg>) => setMessages((ms) => ms.map((x, j) => (j === i ? { ...x, ...change } : x))),
    remove: (i: number) => setMessages((ms) => ms.filter((_, j) => j !== i)),
    clear: () => setMessages([]),
  }
}

export type Conversation = ReturnType<typeof useConversation>
