import express, { type ErrorRequestHandler, type Express } from 'express'
import { ApiError } from '../schemas/ApiError.js'
import { echoed } from '../schemas/echoed.js'
import { isSandboxPath } from '../handlers/answer.js'
import { newRequestId } from '../http/requestId.js'
import { errorReply, unexpected } from '../http/respond.js'
import { referencePages } from './referencePages.js'
import type { SandboxWithHandlers } from '../handlers/createSandbox.js'
import { controlAccess } from './controlAccess.js'
import { corsHeaders, crossOrigin } from './crossOrigin.js'
import { requestLog, sendReply } from './httpAnswers.js'
import { refusedByHttp } from './httpRefusals.js'
import { answerSandboxRequest, type EntryOptions, pathOf, type SandboxEntry, urlOf } from './sandboxRequests.js'

/**
 * The request log's options, and who may call the control plane (`allowedHosts`, `allowedOrigins`); proxy mode is
 * the sandbox's own (`createSandbox({ proxy })`), not the app's.
 */
export type AppOptions = EntryOptions

/**
 * The standalone server as an Express app: the sandbox's requests answered
 * by its dispatch, the reference at `/docs`, CORS for browser apps on other
 * origins (the control plane for those `options` allow only), one log line
 * per request, and JSON errors for the rest. Without an admin token its
 * control plane answers this machine only (see `controlAccess`): bind it
 * to loopback, or give the sandbox an `adminToken` to serve others.
 *
 * @example
 * createApp(createSandbox()).listen(4010, '127.0.0.1')
 */
export function createApp(sandbox: SandboxWithHandlers, options: AppOptions = {}): Express {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  const log = requestLog(options, sandbox)
  const entry: SandboxEntry = { sandbox, access: controlAccess(sandbox.options.adminToken, options) }
  app.use((request, response, next) => {
    log?.(request, response)
    const path = pathOf(request, urlOf(request))
    const refusal = refusedByHttp(request)
    if (refusal) {
      corsHeaders(entry.access, request, response, path)
      return sendReply(response, errorReply(sandbox, newRequestId(), refusal))
    }
    if (!crossOrigin(entry, request, response, path)) next()
  })
  // The interactive API reference, with its assets served from here: it works offline.
  app.use('/docs', referencePages())
  app.use((request, response, next) => {
    if (!isSandboxPath(request.path, true)) return next()
    answerSandboxRequest(entry, request, response, urlOf(request)).then((answered) => answered || next(), next)
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
