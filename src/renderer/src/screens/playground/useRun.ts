import { useReducer, useRef } from 'react'
import type { Input } from '../../../../contract'
import type { PlaygroundEvent } from '../../../../contract/playground'
import { stream } from '../../api/client'
import { toApiError } from '../../api/errors'

export type Done = Extract<PlaygroundEvent, { type: 'done' }>
export type Failed = Extract<PlaygroundEvent, { type: 'error' }>
export type Sent = Extract<PlaygroundEvent, { type: 'request' }>

/** One run of the Playground: the answer as it streams in, then how it ended. */
export interface RunState {
  streaming: boolean
  /** The answer so far while streaming; null otherwise (a finished answer joins the conversation). */
  reply: string | null
  sent: Sent | null
  done: Done | null
  failure: Failed | null
  /** The user stopped it. */
  stopped: boolean
}

type Action =
  | { type: 'start' }
  | { type: 'event'; event: PlaygroundEvent }
  | { type: 'failed'; failure: Failed }
  | { type: 'stopped' }
  | { type: 'end' }
  | { type: 'clear' }

const idle: RunState = { streaming: false, reply: null, sent: null, done: null, failure: null, stopped: false }

function reduce(s: RunState, a: Action): RunState {
  switch (a.type) {
    case 'start':
      return { ...idle, streaming: true, reply: '' }
    case 'event': {
      const e = a.event
      if (e.type === 'request') return { ...s, sent: e }
      if (e.type === 'delta') return { ...s, reply: (s.reply ?? '') + e.content }
      if (e.type === 'done') return { ...s, done: e }
      return { ...s, failure: e }
    }
    case 'failed':
      return { ...s, failure: a.failure }
    case 'stopped':
      return { ...s, stopped: true }
    case 'end':
      return { ...s, streaming: false, reply: null }
    case 'clear':
      return { ...s, sent: null, done: null, failure: null, stopped: false }
  }
}

const failure = (status: number, message: string, type: string, code: string | null): Failed => ({
  type: 'error',
  request_id: null,
  status,
  error: { message, type, code },
})

/**
 * Streams Playground requests, one at a time, and holds what the last one showed. `onReply` gets
 * the answer's text when a run ends with any (a stopped run keeps what arrived).
 */
export function useRun(onReply: (text: string) => void) {
  const [state, dispatch] = useReducer(reduce, idle)
  const stopper = useRef<AbortController | null>(null)

  const start = async (input: Input<'playground.chat'>) => {
    dispatch({ type: 'start' })
    const stop = new AbortController()
    stopper.current = stop
    let text = ''
    let ended = false
    try {
      await stream(
        input,
        (event) => {
          if (event.type === 'delta') text += event.content
          else if (event.type !== 'request') ended = true
          dispatch({ type: 'event', event })
        },
        stop.signal,
      )
      if (stop.signal.aborted) dispatch({ type: 'stopped' })
      else if (!ended)
        dispatch({
          type: 'failed',
          failure: failure(502, 'The gateway ended the stream without a result. See Requests for what happened.', 'stream_ended', null),
        })
    } catch (err) {
      const ae = toApiError(err)
      if (stop.signal.aborted) dispatch({ type: 'stopped' })
      else dispatch({ type: 'failed', failure: failure(ae.status, ae.message, ae.code, ae.code) })
    } finally {
      stopper.current = null
      dispatch({ type: 'end' })
      if (text) onReply(text)
    }
  }

  return { ...state, start, stop: () => stopper.current?.abort(), clear: () => dispatch({ type: 'clear' }) }
}
