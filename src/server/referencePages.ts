import express, { type RequestHandler } from 'express'
import { extname, join } from 'node:path'
import { DOCUMENT_PATH } from '../http/paths.js'
import { EMBEDDED_FILES } from './embeddedFiles.js'
import { packageFolder } from './packageFolder.js'
import { PAGE_HEADERS } from './pageHeaders.js'

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>call-sandbox API</title>
  <link rel="stylesheet" href="./swagger-ui.css">
  <link rel="icon" type="image/png" href="./favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="./swagger-ui-bundle.js"></script>
  <script src="./swagger-ui-init.js"></script>
</body>
</html>
`

/**
 * A key typed into the page is forgotten with it (`persistAuthorization: false`: Swagger UI would keep it in
 * `localStorage`, for any script of the origin to read); no document is sent to swagger.io's validator.
 */
const SETTINGS = {
  url: DOCUMENT_PATH,
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: false,
  validatorUrl: null,
}
const INIT = `window.onload = () => {\n  window.ui = SwaggerUIBundle(${JSON.stringify(SETTINGS, null, 2)})\n}\n`

/**
 * Swagger UI's files, copied into the package's `dist/docs` by its build (`scripts/vendor-swagger-ui.mjs`), or
 * inside the one-file build.
 */
const SWAGGER_UI_FOLDER = 'dist/docs'

/** The folder of Swagger UI's files in the package; `undefined` when the build has not copied them. */
function swaggerUiFolder(): string | undefined {
  return packageFolder(join(...SWAGGER_UI_FOLDER.split('/')), 'swagger-ui-bundle.js')
}

/**
 * The interactive API reference at `/docs`: Swagger UI over `/openapi.json`,
 * its files served from the package itself, so that it works offline and the
 * package depends on no Swagger UI package (`swagger-ui-dist` brings a
 * telemetry install script, `@scarf/scarf`). Its answers forbid inline
 * script and framing (`PAGE_HEADERS`).
 *
 * @example
 * app.use('/docs', referencePages())
 */
export function referencePages(): RequestHandler {
  const router = express.Router({ strict: true })
  router.use((_request, response, next) => {
    response.set(PAGE_HEADERS)
    next()
  })
  router.get('/', (request, response) => {
    // The page names its files relative to itself: /docs must end in a slash.
    if (!request.originalUrl.split('?')[0]!.endsWith('/')) return response.redirect(301, `${request.baseUrl}/`)
    response.type('html').send(PAGE)
  })
  router.get('/swagger-ui-init.js', (_request, response) => {
    response.type('js').send(INIT)
  })
  const embedded = EMBEDDED_FILES.get(SWAGGER_UI_FOLDER)
  if (embedded) {
    router.get('/:file', (request, response, next) => {
      const file = embedded.get(request.params.file)
      if (file === undefined) return next()
      response.type(extname(request.params.file)).send(file)
    })
    return router
  }
  const files = swaggerUiFolder()
  if (files !== undefined) router.use(express.static(files, { index: false }))
  return router
}
