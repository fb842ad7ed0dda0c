import type { RequestListener } from 'node:http'
import express, { type ErrorRequestHandler, type Express } from 'express'
import type { SandboxWithHandlers } from '../handlers/createSandbox.js'
import { newRequestId } from '../http/requestId.js'
import { errorReply, unexpected } from '../http/respond.js'
import { ApiError } from '../schemas/ApiError.js'
import { echoed } from '../text/echoed.js'
import { sendReply } from './httpAnswers.js'
import type { CountsErrors } from './metrics.js'
import { referencePages } from './referencePages.js'
import { type EntryOptions, sandboxEntry } from './sandboxEntry.js'

/**
 * The request log's options, who may call the control plane (`allowedHosts`, `allowedOrigins`), and whether it keeps
 * metrics; proxy mode is the sandbox's own (`createSandbox({ proxy })`), not the app's.
 */
export type AppOptions = EntryOptions

/**
 * The standalone server as an Express app, answering what the command
 * answers: the sandbox's requests by its dispatch (the API, the control
 * plane, the sessions, `/openapi.json`, the console at `/_sandbox/console/`,
 * the metrics at `/_sandbox/metrics`), the reference at `/docs`, CORS for
 * browser apps on other origins (the control plane for those `options`
 * allow only), one log line per request, and JSON errors for the rest.
 * Without an admin token its control plane answers this machine only (see
 * `controlAccess`): bind it to loopback, or give the sandbox an
 * `adminToken` to serve others.
 *
 * @example
 * createApp(createSandbox()).listen(4010, '127.0.0.1')
 */
export function createApp(sandbox: SandboxWithHandlers, options: AppOptions = {}): Express {
  const entry = sandboxEntry(sandbox, options)
  const app = plainApp()
  app.use(entry.handle)
  app.use(otherPaths(sandbox))
  return app
}

/**
 * The command's listener: `createApp`'s entry ahead of Express, which sees only what the sandbox does not answer (the
 * reference at `/docs`, unknown paths). Resolves once the metrics (counting `store`'s refusals) are loaded.
 */
export async function serverListener(
  sandbox: SandboxWithHandlers,
  options: AppOptions,
  store?: CountsErrors,
): Promise<RequestListener> {
  const entry = sandboxEntry(sandbox, options, store)
  const rest = otherPaths(sandbox)
  await entry.ready
  return (request, response) => entry.handle(request, response, () => rest(request, response))
}

function plainApp(): Express {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  return app
}

/** What the sandbox's dispatch does not answer: the reference at `/docs`, a JSON 404 for the rest, JSON errors. */
function otherPaths(sandbox: SandboxWithHandlers): Express {
  const app = plainApp()
  // The interactive API reference, with its assets served from here: it works offline.
  app.use('/docs', referencePages())
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
