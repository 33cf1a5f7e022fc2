// `npm run gen:phone-metadata`: libphonenumber-js's min metadata cut down to the markets Kilat serves
// (India, Indonesia), written to src/shared/phone/metadata.json. The whole min metadata is about 19 KB
// gzip of the borrower app's first load; these two countries are about 1 KB. A test fails when the
// committed file is not what this makes of the installed libphonenumber-js (`--print` writes it to stdout).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const COUNTRIES = { IN: '91', ID: '62' };
const METADATA_FILE = fileURLToPath(new URL('../src/shared/phone/metadata.json', import.meta.url));

function phoneMetadata() {
  const require = createRequire(import.meta.url);
  const min = JSON.parse(readFileSync(require.resolve('libphonenumber-js/metadata.min.json'), 'utf8'));
  const countries = {};
  const callingCodes = {};
  for (const [country, code] of Object.entries(COUNTRIES)) {
    if (!min.countries[country]) throw new Error(`libphonenumber-js has no metadata for ${country}`);
    countries[country] = min.countries[country];
    callingCodes[code] = [country];
  }
  return `${JSON.stringify({ version: min.version, country_calling_codes: callingCodes, countries, nonGeographic: {} })}\n`;
}

if (process.argv.includes('--print')) {
  process.stdout.write(phoneMetadata());
} else {
  writeFileSync(METADATA_FILE, phoneMetadata());
  console.log(`wrote ${METADATA_FILE}`);
}
