import cors from 'cors'
import express, { type ErrorRequestHandler, type Express } from 'express'
import { ApiError } from '../schemas/ApiError.js'
import { echoed } from '../schemas/echoed.js'
import { isSandboxPath, methodsOf } from '../handlers/answer.js'
import { newRequestId } from '../http/requestId.js'
import { errorReply, unexpected } from '../http/respond.js'
import { referencePages } from './referencePages.js'
import type { SandboxWithHandlers } from '../handlers/createSandbox.js'
import { allowAnyOrigin, EXPOSED_HEADERS, type LogOptions, requestLog, sendReply } from './httpAnswers.js'
import { answerSandboxRequest, urlOf } from './sandboxRequests.js'

/** The request log's options; proxy mode is the sandbox's own (`createSandbox({ proxy })`), not the app's. */
export type AppOptions = LogOptions

/**
 * The standalone server as an Express app: the sandbox's requests answered
 * by its dispatch, the reference at `/docs`, CORS for browser apps on other
 * origins, one log line per request, and JSON errors for the rest.
 *
 * @example
 * createApp(createSandbox()).listen(4010)
 */
export function createApp(sandbox: SandboxWithHandlers, options: AppOptions = {}): Express {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  const log = requestLog(options)
  // Any origin, no cookies: keys travel in Authorization, which the preflight allows.
  // The methods a preflight allows are those of the path asked about (GET, POST for /v1/contacts), as Allow says.
  const preflight = cors((request, done) => {
    const methods = methodsOf((request as express.Request).path)
    done(null, {
      origin: '*',
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
      methods: methods.length > 0 ? methods : 'GET',
    })
  })
  app.use((request, response, next) => {
    log?.(request, response)
    // An OPTIONS that is no preflight is an API request like any other (405).
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined)
      return preflight(request, response, next)
    allowAnyOrigin(response)
    next()
  })
  // The interactive API reference, with its assets served from here: it works offline.
  app.use('/docs', referencePages())
  app.use((request, response, next) => {
    if (!isSandboxPath(request.path, true)) return next()
    answerSandboxRequest(sandbox, request, response, urlOf(request), request.path).then(
      (answered) => answered || next(),
      next,
    )
  })
  app.use((request, response) => {
    const error = new ApiError(
      'not_found',
      `No endpoint at ${echoed(request.path)}. The API is under /v1/ (e.g. GET /v1/calls), the sandbox's controls under /_sandbox/, the reference at /docs.`,
    )
    sendReply(response, errorReply(sandbox, newRequestId(), error))
  })
  const onError: ErrorRequestHandler = (error, _request, response, _next) => {
    const status = typeof error?.status === 'number' && error.status >= 400 && error.status < 500 ? error.status : 500
    const apiError =
      status === 413
        ? new ApiError('payload_too_large', 'The body is too large.')
        : status < 500
          ? new ApiError('invalid_parameter', `The request could not be read: ${error.message}.`)
          : unexpected(error)
    if (status >= 500) console.error('[call-sandbox] unexpected server error:', error)
    sendReply(response, errorReply(sandbox, newRequestId(), apiError))
  }
  app.use(onError)
  return app
}
