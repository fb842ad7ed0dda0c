import { readFileSync } from 'node:fs'
import { extname, join } from 'node:path'
import { z } from 'zod'
import { defineEndpoint } from '../http/Endpoint.js'
import { CONTROL_PREFIX } from '../http/paths.js'
import { openSteps, type Plane } from '../http/pipeline.js'
import { ApiError } from '../schemas/ApiError.js'
import { echoed } from '../text/echoed.js'
import { NoQuery } from '../schemas/index.js'
import { EMBEDDED_FILES } from './embeddedFiles.js'
import { packageFolder } from './packageFolder.js'
import { PAGE_HEADERS } from './pageHeaders.js'

/** Where the console is served, below a root: the bare root's, or a session's. */
export const CONSOLE_PATH = `${CONTROL_PREFIX}/console`

/** The console's files: the page, its style, and its script's modules (`console.js` imports the rest). */
const FILES = [
  'index.html',
  'console.css',
  'requests.css',
  'console.js',
  'elements.js',
  'sandbox.js',
  'choices.js',
  'requests.js',
  'exchange.js',
  'chart.js',
  'world.js',
  'controls.js',
  'sessions.js',
  'usage.js',
  'cards.js',
  'faultRules.js',
  'settings.js',
]

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
}

/**
 * The console's files (`console/` in the package, or inside the one-file build), read once: plain HTML, CSS and a
 * script in a few ES modules, no framework and no build step.
 */
function consoleFiles(): Map<string, string> {
  const embedded = EMBEDDED_FILES.get('console')
  if (embedded) {
    const files = new Map<string, string>()
    for (const name of FILES) {
      const text = embedded.get(name)
      if (typeof text === 'string') files.set(name, text)
    }
    return files
  }
  const folder = packageFolder('console', 'console.js')
  if (folder === undefined) return new Map()
  return new Map(FILES.map((name) => [name, readFileSync(join(folder, name), 'utf8')]))
}

/**
 * The console at `/_sandbox/console/` (and `/sessions/{name}/_sandbox/console/`): served by the package itself,
 * offline, with no telemetry. The page asks for the admin token when the control plane wants it; the files
 * themselves want none. Its answers forbid inline script and framing (`PAGE_HEADERS`).
 */
export function consolePlane(): Plane {
  const files = consoleFiles()
  const file = (name: string) => {
    const text = files.get(name)
    if (text === undefined)
      throw new ApiError('not_found', `The console has no file ${echoed(name)}: ${[...files.keys()].join(', ')}.`)
    return { body: {}, text, headers: { ...PAGE_HEADERS, 'Content-Type': TYPES[extname(name)]! } }
  }
  return {
    name: 'console',
    owns: (path) => path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`),
    emptyBody: 'refused',
    needsWorld: false,
    steps: openSteps,
    endpoints: [
      defineEndpoint({
        method: 'GET',
        path: CONSOLE_PATH,
        requires: 'nothing',
        summary: 'The console (to its folder)',
        pathParams: z.object({}),
        query: NoQuery,
        status: 301,
        response: z.string(),
        // The page names its files relative to itself: the console's path ends in a slash (a session's root is put
        // before the Location by the dispatch, as for every answer of a session).
        answer: () => ({ body: {}, text: '', headers: { ...PAGE_HEADERS, Location: `${CONSOLE_PATH}/` } }),
      }),
      defineEndpoint({
        method: 'GET',
        path: `${CONSOLE_PATH}/`,
        requires: 'nothing',
        summary: 'The console',
        pathParams: z.object({}),
        query: z.object({}).catchall(z.string()),
        response: z.string(),
        answer: () => file('index.html'),
      }),
      defineEndpoint({
        method: 'GET',
        path: `${CONSOLE_PATH}/:file`,
        requires: 'nothing',
        summary: "The console's files",
        pathParams: z.object({ file: z.string() }),
        query: NoQuery,
        response: z.string(),
        answer: ({ params }) => file(params.file),
      }),
    ],
  }
}
