import { STATUS_CODES } from 'node:http'
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { ApiError } from '../errors'
import { newRequestId } from '../pipeline/requestContext'
import { errorReply, requestIdHeaders } from './errorShape'

export interface ConnectionLimits {
  maxHeaderBytes: number
  headersTimeoutMs: number
  requestTimeoutMs: number
}

/** `rawPacket` is the chunk the parser failed on (typed loosely by Fastify, a Buffer in Node). */
type ParserError = Error & { code?: string; rawPacket?: unknown }

/**
 * The request line's target, when the packet that broke the parser starts with it; null when
 * that line came in an earlier packet (Node keeps no copy of it before the headers are complete).
 */
function targetOf(packet: unknown): string | null {
  if (!Buffer.isBuffer(packet)) return null
  return /^[A-Z]+ (\S+)/.exec(packet.toString('latin1', 0, Math.min(packet.length, 4096)))?.[1] ?? null
}

const seconds = (ms: number) => `${+(ms / 1000).toFixed(3)} s`

function refusal(err: ParserError, limits: ConnectionLimits, headersDone: boolean): ApiError {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(
      431,
      'invalid_request_error',
      `The request line and headers are larger than the gateway's limit of ${limits.maxHeaderBytes / 1024} KB.`,
      'request_header_fields_too_large',
    )
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const message = headersDone
      ? `The request body did not arrive within the gateway's request timeout of ${seconds(limits.requestTimeoutMs)}.`
      : `The request headers did not arrive within the gateway's headers timeout of ${seconds(limits.headersTimeoutMs)}.`
    return new ApiError(408, 'invalid_request_error', message, 'request_timeout')
  }
  return new ApiError(400, 'invalid_request_error', `The request is not valid HTTP/1.1 (${err.message}).`, 'bad_request')
}

/**
 * Answers what Node's HTTP parser refuses before or while Fastify holds the request (headers too
 * large, malformed HTTP, headers or body too slow): no Fastify reply exists for these, so the
 * answer is written on the socket by hand, in the route's error shape, with a request id.
 */
export function clientErrorHandler(limits: ConnectionLimits) {
  return (err: ParserError, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return
    // Node's own handler looks here for the response of a request whose body was being read.
    const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
    if (socket.writable && !res?.headersSent) {
      // Headers are known only when the parser failed on the body (a body too slow).
      const url = res?.req.url ?? targetOf(err.rawPacket)
      const headers = res?.req.headers ?? null
      const reply = errorReply(url, headers, refusal(err, limits, res != null))
      const body = JSON.stringify(reply.body)
      let head = `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`
      for (const [name, value] of Object.entries({ ...reply.headers, ...requestIdHeaders(url, headers, newRequestId()) })) head += `${name}: ${value}\r\n`
      socket.write(`${head}connection: close\r\n\r\n${body}`)
    }
    socket.destroy()
  }
}
