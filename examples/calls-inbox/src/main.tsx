import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import './styles.css'

/** Without VITE_CALL_SANDBOX_URL, the sandbox answers in a service worker; with it, the standalone server does. */
async function startSandbox(): Promise<void> {
  if (import.meta.env.VITE_CALL_SANDBOX_URL) return
  const { setupSandboxWorker } = await import('call-sandbox/browser')
  const { worker } = setupSandboxWorker({ seed: 1, now: import.meta.env.VITE_CALL_SANDBOX_NOW })
  await worker.start({ onUnhandledRequest: 'bypass', quiet: true })
}

await startSandbox()
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
