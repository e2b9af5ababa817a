/**
 * The disk store's durability barrier for a batch of written files. A put makes its temp file
 * durable (fdatasync) before it links it under its key, so a key never names bytes a power cut
 * could lose; a batch of thousands of entries would wait on thousands of those, each a journal
 * commit (about 2 ms here). One syncfs(2) of the store's filesystem makes every file written before
 * it durable at once. Node has no binding for it, so on Linux it is coreutils `sync -f DIR` (an
 * absolute path, never one looked up on PATH); elsewhere, or when that fails, the caller falls back
 * on an fdatasync per file.
 */
import { access, constants, open } from 'node:fs/promises';

const SYNC_BINARIES = ['/usr/bin/sync', '/bin/sync'];
/** A stuck `sync` must not hold a batch for ever: past this, the batch falls back on fdatasync. */
const SYNC_TIMEOUT_MS = 30_000;

let binary: Promise<string | undefined> | undefined;

function syncBinary(): Promise<string | undefined> {
  binary ??= (async () => {
    if (process.platform !== 'linux') return undefined;
    for (const path of SYNC_BINARIES) {
      try {
        await access(path, constants.X_OK);
        return path;
      } catch {
        // try the next one
      }
    }
    return undefined;
  })();
  return binary;
}

/** syncfs(2) of the filesystem holding dir; false when it could not be done (then sync each file). */
export async function syncFilesystem(dir: string): Promise<boolean> {
  const path = await syncBinary();
  if (!path) return false;
  const { execFile } = await import('node:child_process');
  return new Promise((resolve) => {
    execFile(path, ['-f', dir], { timeout: SYNC_TIMEOUT_MS, env: {} }, (err) => resolve(!err));
  });
}

/** fdatasync of one written file (the fallback barrier, file by file). */
export async function syncFile(path: string): Promise<void> {
  const fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    await fh.datasync();
  } finally {
    await fh.close();
  }
}
