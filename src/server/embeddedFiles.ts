/**
 * The package's files that the one-file build (`dist/call-sandbox.cjs`) carries inside itself, by the folder of the
 * package they come from (`console`, `dist/docs`), then by name: text as a string, anything else as bytes.
 * @note Empty here, and so in the package, which reads these files from its folders: `scripts/bundle.mjs` puts a
 * module with the files in place of this one when it writes the one file.
 */
export const EMBEDDED_FILES: ReadonlyMap<string, ReadonlyMap<string, string | Buffer>> = new Map()
