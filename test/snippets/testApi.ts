// The parallel-CI set-up of docs/guides/sessions.md, word for word: the module
// every test of a worker imports for its API's base URL.
// Run by workerSession.test.ts, in process, where the sandbox's handlers answer that URL as the server would.

// One session per test worker (Playwright numbers them in TEST_WORKER_INDEX; elsewhere, the process id)
const session = `ci-${process.env.GITHUB_RUN_ID ?? 'local'}-${process.env.TEST_WORKER_INDEX ?? process.pid}`
export const API_URL = `http://127.0.0.1:4010/sessions/${session}` // each worker's own world, on one server
// and before each test: await fetch(`${API_URL}/_sandbox/reset`, { method: 'POST' })
