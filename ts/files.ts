/**
 * Reading the files a user names (a catalog, a gateway config): regular files only, within a
 * size limit, as text without a byte-order mark.
 */
import fs from 'node:fs'

/** The largest file read: 256 MiB. */
export const MAX_FILE_BYTES = 256 * 1024 * 1024

/**
 * Read a regular file as UTF-8, refusing a FIFO, a device, a socket or a directory without
 * blocking: the file is opened non-blocking (a FIFO with no writer would block a plain open
 * forever) and checked with `fstat` on the same descriptor, so it cannot be swapped after the
 * check. A leading byte-order mark (which some editors write) is dropped. Every problem is
 * `fail(message)`, thrown.
 */
export function readFileText(file: string, what: string, fail: (message: string) => Error): string {
  let fd: number
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0))
  } catch (e) {
    throw fail(`cannot read ${what} ${file}: ${(e as Error).message}`)
  }
  let text: string
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile()) {
      const kind = st.isFIFO() ? 'a FIFO' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : st.isDirectory() ? 'a directory' : st.isSocket() ? 'a socket' : 'not a regular file'
      throw new FileProblem(`${what} ${file} is ${kind}; give a regular file`)
    }
    if (st.size > MAX_FILE_BYTES) throw new FileProblem(`${what} ${file} is ${st.size} bytes, over the ${MAX_FILE_BYTES}-byte limit`)
    text = fs.readFileSync(fd, 'utf8')
  } catch (e) {
    throw fail(e instanceof FileProblem ? e.message : `cannot read ${what} ${file}: ${(e as Error).message}`)
  } finally {
    fs.closeSync(fd)
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/** A problem found with the file itself (its message is the whole story). */
class FileProblem extends Error {}
