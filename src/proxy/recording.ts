import { z } from 'zod'
import { OrganizationFixture } from '../seed/fixtures.js'
import { byKind } from '../schemas/stored.js'

/** The `format` of a file `--record` writes. */
export const RECORDING_FORMAT = 'call-sandbox recording'

const RecordList = z.array(z.looseObject({ id: z.string() }))

/**
 * What a recording holds (`--record FILE`, `proxy.recording()`): the
 * upstream's records as it answered them, each of the organization of the
 * key that read it, and those organizations with a stand-in key for each
 * key that recorded (never the key itself). A sandbox starts from it with
 * `--world FILE`; the records themselves are checked then (`records`).
 */
export const Recording = z.object({
  format: z.literal(RECORDING_FORMAT),
  version: z.literal(1),
  /** The upstream's base URL. */
  upstream: z.string(),
  /**
   * The upstream's time of the newest answer recorded (its `meta.timestamp`): a sandbox started from it stands there.
   */
  recorded_at: z.iso.datetime(),
  organizations: z.array(OrganizationFixture),
  records: z.object(byKind(() => RecordList)),
})
export type Recording = z.infer<typeof Recording>
