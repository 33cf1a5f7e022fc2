// Writes FILE.br (brotli, quality 11) and FILE.gz (gzip, level 9) beside every compressible file in
// dist, for the server to pick by Accept-Encoding (docs/ARCHITECTURE.md).
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);
const COMPRESSIBLE = /\.(?:js|mjs|css|svg|json|webmanifest|txt|xml|html)$/;

async function* files(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

export async function compressDist(dist) {
  let count = 0;
  for await (const path of files(dist)) {
    if (!COMPRESSIBLE.test(path)) continue;
    const data = await readFile(path);
    const [br, gzip] = await Promise.all([
      brotli(data, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      }),
      gz(data, { level: constants.Z_BEST_COMPRESSION }),
    ]);
    await writeFile(`${path}.br`, br);
    await writeFile(`${path}.gz`, gzip);
    count += 1;
  }
  return count;
}
