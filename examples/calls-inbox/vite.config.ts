import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

export default defineConfig({
  plugins: [react()],
  resolve: {
    // call-sandbox comes from the repository root (file:../..), a symlink whose
    // own node_modules holds another msw: one copy in the bundle, this app's.
    dedupe: ['msw'],
  },
})
