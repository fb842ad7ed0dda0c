/** Where the control plane lives, below the sandbox's base URL. */
export const CONTROL_PREFIX = '/_sandbox'
/** Where the OpenAPI document is served. */
export const DOCUMENT_PATH = '/openapi.json'
