/**
 * Whether a page's host name is this machine's: `localhost`, a name under `.localhost`, 127.0.0.0/8 or `[::1]`, or
 * none (a file). Where a developer runs an app's dev server or a preview of its build.
 *
 * @example
 * isThisMachine('127.0.0.1') // true
 * isThisMachine('app.example.com') // false
 */
export function isThisMachine(hostname: string): boolean {
  // A name with its root's trailing dot (`localhost.`) is the same name.
  const name = hostname.toLowerCase().replace(/\.$/, '')
  return (
    name === '' ||
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name === '[::1]' ||
    /^127\.\d+\.\d+\.\d+$/.test(name)
  )
}

/**
 * What `setupSandboxWorker` says in the console on a page that comes from elsewhere than this machine, where the
 * sandbox may be answering real users with seeded data: a production build that starts the worker. Undefined on
 * this machine, outside a page, and on Vite's dev server opened by another name (a cloud IDE's forwarded address, a
 * phone on the network), whose page loads Vite's client: no build does.
 *
 * @example
 * beyondThisMachineWarning({ hostname: 'app.example.com' }, document) // 'call-sandbox: …'
 */
export function beyondThisMachineWarning(
  location: { hostname: string } | undefined,
  page?: { querySelector(selector: string): unknown },
): string | undefined {
  if (location === undefined || isThisMachine(location.hostname)) return undefined
  if (page?.querySelector('script[src$="/@vite/client"]')) return undefined
  return (
    `call-sandbox: made-up data answers this page's API requests (a service worker, from setupSandboxWorker), and ` +
    `this page comes from ${location.hostname}, not from this machine. If real users load it, build it without the ` +
    'sandbox: start the worker only in development (import.meta.env.DEV), as the guide "In the browser and in ' +
    'Storybook" shows.'
  )
}
