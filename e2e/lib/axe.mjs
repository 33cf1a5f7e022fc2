// axe-core (WCAG 2.1 A and AA rules) run inside a playwright page: the journeys call `expectNoAxeViolations(page)`
// on each screen they reach, so an inaccessible screen fails the journey that shows it.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let source;

/** The rules checked: WCAG 2.0 and 2.1, levels A and AA. */
export const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * Runs axe on the page as it is now and returns its violations, each as `{ id, impact, help, targets }`.
 * `exclude` takes CSS selectors left out (for a third party's widget, never for our own markup).
 */
export async function axeViolations(page, { exclude = [] } = {}) {
  source ??= await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    // Evaluated through the DevTools protocol, which the pages' Content-Security-Policy (`script-src 'self'`) does not
    // govern; an injected <script> tag would be refused.
    await page.evaluate(source);
  }
  const result = await page.evaluate(
    async ({ tags, exclude }) => {
      const context = exclude.length > 0 ? { exclude: exclude.map((s) => [s]) } : document;
      const { violations } = await window.axe.run(context, { runOnly: { type: 'tag', values: tags } });
      return violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary ?? ''}`),
      }));
    },
    { tags: WCAG_21_AA, exclude },
  );
  return result;
}

/** Fails with every violation listed (rule, impact, the first elements and why) when axe finds any. */
export async function expectNoAxeViolations(page, label = page.url(), options) {
  const violations = await axeViolations(page, options);
  assert.deepEqual(
    violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.targets.join('\n    ')}`),
    [],
    `axe found WCAG 2.1 AA violations on ${label}`,
  );
}
