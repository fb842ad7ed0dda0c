import { createMiddleware } from '@mswjs/http-middleware'
import cors from 'cors'
import express, { type ErrorRequestHandler, type Express, type Response as ExpressResponse } from 'express'
import morgan from 'morgan'
import { ApiError } from '../http/ApiError.js'
import { errorResponse } from '../http/pipeline.js'
import { newRequestId } from '../http/requestId.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import type { Latency } from './latency.js'

export interface AppOptions {
  /** No request log. */
  quiet?: boolean
  /** Added to every answer under `/v1/`. */
  latency?: Latency
  /** Where the request log goes; default stdout. */
  log?: (line: string) => void
}

/** Headers a browser app on another origin may read. */
const EXPOSED_HEADERS = ['X-Request-Id', 'Location', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']

/**
 * The standalone server: the sandbox's MSW handlers behind Express, with
 * CORS for browser apps on other origins, one log line per request, and
 * JSON errors for whatever the handlers do not answer.
 *
 * @example
 * createApp(createSandbox()).listen(4010)
 */
export function createApp(sandbox: Sandbox, options: AppOptions = {}): Express {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  if (!options.quiet) {
    const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`))
    app.use(morgan(':method :url :status :response-time ms :res[x-request-id]', { stream: { write: (line) => log(line.trimEnd()) } }))
  }
  // Any origin, no cookies: keys travel in Authorization, which the preflight allows.
  const preflight = cors({ origin: '*', exposedHeaders: EXPOSED_HEADERS, maxAge: 600 })
  // An OPTIONS that is no preflight is an API request like any other (405).
  const headersOnly = cors({ origin: '*', exposedHeaders: EXPOSED_HEADERS, preflightContinue: true })
  app.use((request, response, next) =>
    (request.method === 'OPTIONS' && request.headers['access-control-request-method'] === undefined ? headersOnly : preflight)(request, response, next),
  )
  if (options.latency) {
    const latency = options.latency
    app.use('/v1', (_request, _response, next) => void setTimeout(next, latency.next()))
  }
  // The middleware is CommonJS and types handlers with msw's CommonJS declarations; they are the same objects.
  const handlers = createMiddleware(...(sandbox.handlers as unknown as Parameters<typeof createMiddleware>))
  // @note Only API paths go through MSW: the middleware turns every request
  // body into a web stream, and a body nobody reads then stalls its client.
  app.use((request, response, next) => (request.path === '/v1' || request.path.startsWith('/v1/') ? handlers(request, response, next) : next()))
  app.use((request, response) => {
    const error = new ApiError('not_found', `No endpoint at ${request.path}. The API is under /v1/, e.g. GET /v1/calls.`)
    void send(response, errorResponse(sandbox, newRequestId(), error))
  })
  const onError: ErrorRequestHandler = (error, _request, response, _next) => {
    const status = typeof error?.status === 'number' && error.status >= 400 && error.status < 500 ? error.status : 500
    const apiError =
      status === 413
        ? new ApiError('payload_too_large', 'The body is too large.')
        : status < 500
          ? new ApiError('invalid_parameter', `The request could not be read: ${error.message}.`)
          : new ApiError('internal_error', `The sandbox failed unexpectedly: ${error?.message ?? error}.`)
    if (status >= 500) console.error('[call-sandbox] unexpected server error:', error)
    void send(response, errorResponse(sandbox, newRequestId(), apiError))
  }
  app.use(onError)
  return app
}

async function send(response: ExpressResponse, answer: Response): Promise<void> {
  response.status(answer.status)
  answer.headers.forEach((value, name) => response.setHeader(name, value))
  response.end(await answer.text())
}
