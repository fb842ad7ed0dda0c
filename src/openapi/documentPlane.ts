import { z } from 'zod'
import { defineEndpoint } from '../http/Endpoint.js'
import { DOCUMENT_PATH } from '../http/paths.js'
import { openSteps, type Plane } from '../http/pipeline.js'
import { NoPath, NoQuery } from '../schemas/index.js'
import { openApiDocument } from './openApiDocument.js'

/** `GET /openapi.json`: the OpenAPI document, its servers the session's root or the bare root's. */
const getDocument = defineEndpoint({
  method: 'GET',
  path: DOCUMENT_PATH,
  requires: 'nothing',
  summary: 'This OpenAPI document',
  pathParams: NoPath,
  query: NoQuery,
  response: z.looseObject({ openapi: z.string() }),
  answer: ({ sandbox, root }) => {
    const session = root === '' ? undefined : root.slice(root.lastIndexOf('/') + 1)
    // The document is no envelope: it is sent as it is, without meta.
    return { body: openApiDocument(sandbox, { session }) as Record<string, unknown>, meta: false }
  },
})

/** The OpenAPI document: no API key, no admin token. */
export const DOCUMENT: Plane = {
  name: 'document',
  owns: (path) => path === DOCUMENT_PATH,
  endpoints: [getDocument],
  emptyBody: 'refused',
  steps: openSteps,
}
