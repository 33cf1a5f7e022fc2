// Screenshots of the dashboard (not a journey; run by hand): node e2e/shoot-dashboard.tmp.mjs BASE PASSWORD
import { launchChromium } from './lib/browser.mjs';
const [base, password] = process.argv.slice(2);
const { browser, close } = await launchChromium();
try {
  for (const [w, h] of [[1366, 768], [1920, 1080]]) {
    const page = await browser.newPage({ viewport: { width: w, height: h } });
    page.on('console', (m) => { if (m.type() === 'error') console.log('console error:', m.text()); });
    await page.goto(`${base}/console/dashboard?market=IN`);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 2, name: /The book in India/ }).waitFor();
    await page.screenshot({ path: `/tmp/book/dash-in-${w}.png` });
    await page.screenshot({ path: `/tmp/book/dash-in-${w}-full.png`, fullPage: true });
    // Keyboard: tab to the first chart, arrow left twice.
    for (let i = 0; i < 40; i += 1) {
      await page.keyboard.press('Tab');
      const name = await page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
      if (name === 'Outstanding principal') break;
    }
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    const chart = page.getByRole('group', { name: 'Outstanding principal' });
    await chart.scrollIntoViewIfNeeded();
    console.log(w, 'keyboard readout:', await chart.locator('xpath=ancestor::figure').locator('.chart__readout').textContent());
    await page.screenshot({ path: `/tmp/book/dash-in-${w}-keyboard.png` });
    // Hover over the paid-out chart.
    const paid = page.getByRole('group', { name: 'Paid out' });
    const box = await paid.boundingBox();
    await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2);
    console.log(w, 'hover readout:', await paid.locator('xpath=ancestor::figure').locator('.chart__readout').textContent());
    await page.screenshot({ path: `/tmp/book/dash-in-${w}-hover.png` });
    await page.goto(`${base}/console/dashboard?market=ID`);
    await page.getByRole('heading', { level: 2, name: /The book in Indonesia/ }).waitFor();
    await page.screenshot({ path: `/tmp/book/dash-id-${w}.png` });
    await page.close();
  }
} finally {
  await close();
}
