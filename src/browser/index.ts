/**
 * call-sandbox in the browser: the sandbox behind a service worker, for a
 * frontend dev server. Nothing here imports Node: the package's `exports`
 * give this entry to browsers and bundlers only.
 */
export * from '../index.js'
export { setupSandboxWorker } from './setupSandboxWorker.js'
