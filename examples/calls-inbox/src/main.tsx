import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import './styles.css'

// The sandbox answers in a service worker in development, or in a build made with VITE_CALL_SANDBOX=1,
// unless VITE_CALL_SANDBOX_URL names a server to ask. A production build holds none of it: the condition
// is false there, and Vite leaves out the module the dynamic import would load.
if ((import.meta.env.DEV || import.meta.env.VITE_CALL_SANDBOX === '1') && !import.meta.env.VITE_CALL_SANDBOX_URL) {
  const { setupSandboxWorker } = await import('call-sandbox/browser')
  const { worker } = setupSandboxWorker({ seed: 1, now: import.meta.env.VITE_CALL_SANDBOX_NOW }) // every option of createSandbox
  await worker.start({ onUnhandledRequest: 'bypass', quiet: true }) // quiet: no console line per request
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
