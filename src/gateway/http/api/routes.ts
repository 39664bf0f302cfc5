import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AdminService } from '../../admin/adminService'
import { operatorCaller, type Caller } from '../../admin/context'
import { operations } from '../../../contract'
import { abortWhenGone } from '../abortWhenGone'
import { openApiDocument } from './openapi'
import { OPERATOR_HEADER, presentsOperatorToken } from './runningGateway'

export const SESSION_COOKIE = 'gw_session'

/** A cookie's value; one that is not valid percent-encoding is taken as it is (it then matches no session). */
function cookie(req: FastifyRequest, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue
    const value = part.slice(eq + 1).trim()
    try {
      return decodeURIComponent(value)
    } catch {
      return value
    }
  }
  return null
}

/**
 * A browser call from another site is refused: with SameSite=Strict cookies it would carry no
 * session anyway, and this also stops it from reaching public operations (sign-in, setup).
 * Calls without Origin (curl, scripts) are not browser-driven and pass.
 */
function crossSite(req: FastifyRequest): boolean {
  if (req.headers['sec-fetch-site'] === 'cross-site') return true
  const origin = req.headers.origin
  if (!origin) return false
  try {
    return new URL(origin).host !== req.headers.host
  } catch {
    return true
  }
}

function sessionCookie(reply: FastifyReply, secure: boolean, value: string, maxAgeSeconds: number | null): void {
  const attrs = [`${SESSION_COOKIE}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Strict']
  if (maxAgeSeconds !== null) attrs.push(`Max-Age=${maxAgeSeconds}`)
  if (secure) attrs.push('Secure')
  reply.header('set-cookie', attrs.join('; '))
}

/**
 * `POST /api/<operation>`: the management contract over HTTP, for the browser dashboard and
 * scripts. A call presenting `operatorToken` (from the data dir's gateway.json) is the local
 * operator's, as the CLI's own calls are.
 */
export function apiRoutes(app: FastifyInstance, admin: AdminService, operatorToken?: string): void {
  app.get('/api/openapi.json', async () => openApiDocument())

  app.post('/api/:operation', async (req, reply) => {
    const name = (req.params as { operation: string }).operation
    if (crossSite(req)) {
      return reply.code(403).send({ error: { status: 403, code: 'cross_site', message: 'Cross-site requests to the management API are refused.' } })
    }
    const token = cookie(req, SESSION_COOKIE)
    const caller: Caller =
      operatorToken !== undefined && presentsOperatorToken(req.headers[OPERATOR_HEADER], operatorToken)
        ? operatorCaller(req.ip)
        : { user: await admin.userFor(token), sessionToken: token, address: req.ip }
    const secure = req.protocol === 'https'
    const op = Object.hasOwn(operations, name) ? operations[name as keyof typeof operations] : undefined
    if (op && 'stream' in op && op.stream) {
      // Events go out as they come; an error before the first one still gets a proper status.
      let started = false
      const start = () => {
        if (started) return
        started = true
        reply.hijack()
        reply.raw.writeHead(200, {
          ...(reply.getHeaders() as Record<string, string>),
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
        })
      }
      // Closing the connection (the Playground's Stop) ends the upstream call.
      const abort = abortWhenGone(reply.raw)
      const { result } = await admin.invoke(
        name,
        req.body,
        caller,
        (event) => {
          start()
          reply.raw.write(`data: ${JSON.stringify(event)}\n\n`)
        },
        abort,
      )
      if (!started) return reply.code(result.ok ? 200 : result.error.status).send(result.ok ? { ok: true } : { error: result.error })
      if (!result.ok)
        reply.raw.write(
          `data: ${JSON.stringify({ type: 'error', request_id: null, status: result.error.status, error: { message: result.error.message, type: result.error.code, code: result.error.code } })}\n\n`,
        )
      reply.raw.end()
      return reply
    }
    const { result, session } = await admin.invoke(name, req.body, caller)
    if (session && 'set' in session) {
      sessionCookie(reply, secure, session.set.token, session.set.remember ? Math.floor((session.set.expires_at - Date.now()) / 1000) : null)
    } else if (session) {
      sessionCookie(reply, secure, '', 0)
    }
    reply.header('cache-control', 'no-store')
    return result.ok ? reply.send(result.value) : reply.code(result.error.status).send({ error: result.error })
  })
}
