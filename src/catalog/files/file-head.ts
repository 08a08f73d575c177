import { open } from 'node:fs/promises';

/**
 * The file's first `bytes` bytes as UTF-8 text, without a leading BOM and leading whitespace:
 * what format sniffing looks at. Throws on I/O errors.
 */
export async function readHead(path: string, bytes: number): Promise<string> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await file.read(buffer, 0, bytes, 0);
    return buffer
      .toString('utf8', 0, bytesRead)
      .replace(/^\uFEFF/, '')
      .trimStart();
  } finally {
    await file.close();
  }
}
