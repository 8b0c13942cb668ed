// The state file's writes, with as few trips to the disk as keep the store's promises: the new text
// in a temp file, flushed, renamed over the old; the old file kept as the last good copy by a hard
// link (no second copy of the bytes to write and flush); the folder flushed once per call.
//
// Synchronous on purpose: a tool call is one read-modify-write under the session's lock, and each
// `await` of an fs promise is a trip through libuv's thread pool and back to the event loop. On a
// loaded 2-core machine those trips, not the disk, were most of a report's time (docs/performance.md).
import {
  closeSync,
  copyFileSync,
  fsyncSync,
  linkSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { randomBytes } from "node:crypto";

/** A temp name beside `file`, unique to this write. */
function tempFor(file: string): string {
  return `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
}

/** `text` becomes `file` whole or not at all: temp file, fsync, rename. The folder is not flushed (fsyncDir). */
export function writeDurable(file: string, text: string): void {
  const tmp = tempFor(file);
  let fd: number | null = openSync(tmp, "wx", 0o666);
  try {
    const buf = Buffer.from(text, "utf8");
    for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(tmp, file);
  } catch (e) {
    if (fd !== null) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // never made, or already renamed
    }
    throw e;
  }
}

/**
 * `copy` becomes what `file` holds now. A hard link when the file system allows one: the bytes were
 * flushed when `file` was written, and `file` is only ever replaced by a rename, never written in
 * place, so the link keeps the old content once the next write renames a new file over `file`.
 * Otherwise (no hard links: some network or FAT file systems) a flushed copy.
 */
export function keepCopy(file: string, copy: string): void {
  const tmp = tempFor(copy);
  try {
    linkSync(file, tmp);
  } catch {
    copyFileSync(file, tmp);
    const fd = openSync(tmp, "r+");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  try {
    renameSync(tmp, copy);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw e;
  }
}

/**
 * A rename is durable only once the folder's entry is on disk too. Not every platform lets us open
 * a folder for that, and the data is already flushed, so a failure is ignored.
 */
export function fsyncDir(dir: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // best effort
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/**
 * What tells one version of a file from another without reading it: device, inode, size and the
 * modification and change times in nanoseconds. Our writes rename a new file in (a new inode); an
 * edit in place moves the times. Null when the file does not exist.
 */
export function fileIdentity(file: string): string | null {
  try {
    const s = statSync(file, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw e;
  }
}
