// Copies Swagger UI's browser files into dist/docs (run by `npm run build`).
// @note The package serves /docs from these copies, so a consumer's install
// brings in neither swagger-ui-dist nor the telemetry postinstall it depends
// on (@scarf/scarf); swagger-ui-dist is a dev dependency only.
import { copyFileSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const FILES = [
  'swagger-ui-bundle.js',
  'swagger-ui-bundle.js.LICENSE.txt',
  'swagger-ui.css',
  'favicon-32x32.png',
  'LICENSE',
  'NOTICE',
]

const from = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
const to = fileURLToPath(new URL('../dist/docs/', import.meta.url))
mkdirSync(to, { recursive: true })
for (const file of FILES) copyFileSync(join(from, file), join(to, file))
