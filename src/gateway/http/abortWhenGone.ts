import type { ServerResponse } from 'node:http'
import { ClientAbort } from '../upstream/clientAbort'

/** Fires when the client goes away: the connection closes before the answer was written in full. */
export function abortWhenGone(res: ServerResponse): ClientAbort {
  const abort = new ClientAbort()
  res.once('close', () => {
    if (!res.writableFinished) abort.abort()
  })
  return abort
}
