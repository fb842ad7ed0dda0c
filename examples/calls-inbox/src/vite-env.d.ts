interface ImportMetaEnv {
  /**
   * `1`: a build has the sandbox in it (a production-like preview with the service worker answering); unset, only the
   * dev server has it.
   */
  readonly VITE_CALL_SANDBOX?: string
  /**
   * The standalone sandbox (`npm start` in the repository root), e.g. http://127.0.0.1:4010; unset: the service worker
   * answers.
   */
  readonly VITE_CALL_SANDBOX_URL?: string
  /**
   * The instant the service worker's world is seeded at, clock standing still (e.g. 2026-11-20T12:00:00Z); unset: now,
   * clock running.
   */
  readonly VITE_CALL_SANDBOX_NOW?: string
}
