import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import './styles.css'

// The sandbox answers in a service worker, unless VITE_CALL_SANDBOX_URL names a server to ask
if (!import.meta.env.VITE_CALL_SANDBOX_URL) {
  const { setupSandboxWorker } = await import('call-sandbox/browser')
  const { worker } = setupSandboxWorker({ seed: 1, now: import.meta.env.VITE_CALL_SANDBOX_NOW }) // every option of createSandbox
  await worker.start({ onUnhandledRequest: 'bypass', quiet: true }) // quiet: no console line per request
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
