import { NO_SNIFF } from '../http/respond.js'

/*
 * The headers of the pages the sandbox serves to a browser: the console
 * (`/_sandbox/console/`, which keeps the admin token for its tab) and the
 * API reference (`/docs`, where a key may be typed). Whatever text of a
 * record, a journal entry or an upstream's answer gets into them, it runs
 * nothing, and no page of another origin can frame them to steer a click.
 */

/**
 * What a page may load and do (`Content-Security-Policy`): scripts and styles from the page's own origin only (no
 * inline script or style, no `eval`), images from it and `data:` (the console's empty icon, Swagger UI's CSS),
 * requests to it alone; no plugin, no `<base>`, no form sent anywhere (the pages send their forms with `fetch`, the
 * token dialog closes itself), no frame of another page.
 *
 * @note Swagger UI runs under it as it is: it sets its styles through the DOM (`element.style`), which a policy does
 * not govern, not in `style` attributes or `<style>` elements (`e2e/console.e2e.ts` opens every operation, tries one
 * out and authorizes under it).
 */
const POLICY = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self' data:",
  'connect-src': "'self'",
  'object-src': "'none'",
  'base-uri': "'none'",
  'form-action': "'none'",
  'frame-ancestors': "'none'",
}

/** The headers of the console's answers and of `/docs`'s. */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': Object.entries(POLICY)
    .map(([directive, sources]) => `${directive} ${sources}`)
    .join('; '),
  // For browsers that know no frame-ancestors.
  'X-Frame-Options': 'DENY',
  ...NO_SNIFF,
  // A link followed from a page (a recording) does not tell its host the page's address, a session's name in it.
  // @note Not no-referrer: under it a browser may send `Origin: null` with the page's own POSTs (the spec says so,
  // Chromium does not), which the control plane's origin guard refuses; same-origin keeps the page's own Origin.
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
}
