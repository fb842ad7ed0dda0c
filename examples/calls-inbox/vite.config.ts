import { readFile } from 'node:fs/promises'
import react from '@vitejs/plugin-react'
import { defineConfig, type Plugin } from 'vite'

export default defineConfig({
  plugins: [react(), sandboxWorkerScript()],
  resolve: {
    // call-sandbox comes from the repository root (file:../..), a symlink whose
    // own node_modules holds another msw: one copy in the bundle, this app's.
    dedupe: ['msw'],
  },
})

/**
 * msw's worker script lives in sandbox-worker/ (`npx msw init sandbox-worker --save`), not in public/, which Vite
 * copies into every build. The dev server serves it, and a build gets it only where src/main.tsx starts the worker:
 * a development build, or one made with VITE_CALL_SANDBOX=1.
 */
function sandboxWorkerScript(): Plugin {
  const script = () => readFile(new URL('./sandbox-worker/mockServiceWorker.js', import.meta.url), 'utf8')
  let wanted = false
  return {
    name: 'sandbox-worker-script',
    configResolved({ command, env, logger }) {
      wanted = (env.DEV || env.VITE_CALL_SANDBOX === '1') && !env.VITE_CALL_SANDBOX_URL
      // Vite says it builds "for production" also where NODE_ENV=test (a CI job's, say) makes DEV true.
      if (wanted && command === 'build') {
        logger.warn('call-sandbox: this build has the sandbox in it (DEV, or VITE_CALL_SANDBOX=1): not for your users.')
      }
    },
    configureServer(server) {
      server.middlewares.use('/mockServiceWorker.js', (_request, response, next) => {
        if (!wanted) return next()
        response.setHeader('Content-Type', 'text/javascript')
        script().then((text) => response.end(text), next)
      })
    },
    async generateBundle() {
      if (wanted) this.emitFile({ type: 'asset', fileName: 'mockServiceWorker.js', source: await script() })
    },
  }
}
