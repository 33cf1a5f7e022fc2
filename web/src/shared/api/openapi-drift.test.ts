// docs/ARCHITECTURE.md: fails when the committed schema.d.ts is not what `npm run gen:api` makes of
// the committed openapi.json. Fix: `npm run gen:api` (or `make openapi`), then commit both.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const apiDir = resolve(__dirname);

describe('OpenAPI types', () => {
  it('schema.d.ts matches what openapi-typescript generates from openapi.json', () => {
    const require = createRequire(import.meta.url);
    const cli = join(dirname(require.resolve('openapi-typescript/package.json')), 'bin', 'cli.js');
    const dir = mkdtempSync(join(tmpdir(), 'kilat-openapi-'));
    try {
      const out = join(dir, 'schema.d.ts');
      execFileSync(process.execPath, [cli, join(apiDir, 'openapi.json'), '-o', out], { stdio: 'pipe' });
      const generated = readFileSync(out, 'utf8');
      const committed = readFileSync(join(apiDir, 'schema.d.ts'), 'utf8');
      expect(committed, 'src/shared/api/schema.d.ts is stale: run `npm run gen:api`').toBe(generated);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
