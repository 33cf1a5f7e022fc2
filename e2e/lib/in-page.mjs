// Recorders that run inside the page and time things with the page's own clock (performance.now()), so a
// loaded CI machine slowing the test process down does not skew what is measured.

/**
 * Starts timing a toast with exactly `text` in a `[role="status"]` element: `clickAt` (the next click anywhere),
 * `shownAt` (first frame it is visible), `goneAt` (first frame after that it is not) and `refAt` (when a 1 s timer
 * started at `shownAt` fired). Read with `readToast`.
 */
export async function watchToast(page, text) {
  await page.evaluate(
    (text) => {
      // Rendered, and not hidden or fully transparent through any ancestor. (Inline: the page's CSP forbids eval.)
      const shown = (el) => {
        if (!el.isConnected || el.getClientRects().length === 0) return false;
        for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
          const style = getComputedStyle(node);
          if (style.display === 'none' || style.visibility === 'hidden' || Number(style.opacity) === 0) return false;
        }
        return true;
      };
      // refAt: when a 1 s timer started with the toast really fired. On a busy machine timers run late, the toast's
      // own 1 s timer included; the gap between refAt and goneAt is what the toast added on top of that.
      const rec = { text, clickAt: null, shownAt: null, goneAt: null, refAt: null, seen: [] };
      window.__kilatToast = rec;
      document.addEventListener(
        'click',
        () => {
          rec.clickAt ??= performance.now();
        },
        { capture: true, once: true },
      );
      const visible = () =>
        [...document.querySelectorAll('[role="status"]')].some((el) => {
          const t = el.textContent.replace(/\s+/g, ' ').trim();
          if (t && !rec.seen.includes(t)) rec.seen.push(t);
          return t === text && shown(el);
        });
      const tick = () => {
        const now = performance.now();
        const v = visible();
        if (v && rec.shownAt === null) {
          rec.shownAt = now;
          setTimeout(() => {
            rec.refAt = performance.now();
          }, 1000);
        }
        if (!v && rec.shownAt !== null) {
          rec.goneAt = now;
          return;
        }
        if (now - (rec.clickAt ?? now) < 10_000) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    },
    text,
  );
}

/** Waits until the watched toast has come and gone (or `timeout` passes) and returns the record. */
export async function readToast(page, { timeout = 6000 } = {}) {
  await page
    .waitForFunction(() => window.__kilatToast?.goneAt != null, null, { timeout, polling: 100 })
    .catch(() => {});
  return page.evaluate(() => window.__kilatToast);
}

/**
 * Starts recording which banner slide is on show, every animation frame. A slide is "on show" when it covers at
 * least 90% of the banner's width; in between (a transition) the index is null. `offset` is the left edge of the
 * most visible slide relative to the banner, so a banner that follows a finger shows up as a moving offset.
 * The log keeps one entry per change: { t, index, offset }.
 *
 * With `fromFirstFrame`, call it before the page is opened: the recording starts with the first frame the banner is
 * drawn in, so what was on show first does not depend on how soon the test process got round to looking (on a busy
 * machine that took over 3 s once, and the first advance had already happened).
 */
export async function watchBanner(page, { root, slide }, { fromFirstFrame = false } = {}) {
  if (fromFirstFrame) await page.addInitScript(bannerRecorder, { root, slide });
  else await page.evaluate(bannerRecorder, { root, slide });
}

// Runs in the page (and is serialised there, so it uses nothing from this module). Until the banner has its slides
// it looks again every frame, for 30 s at most; only in the top frame.
function bannerRecorder({ root, slide }) {
  if (window !== window.top) return;
  const began = performance.now();
  const start = () => {
    let slides = [...(document.querySelector(root)?.querySelectorAll(slide) ?? [])];
    if (slides.length === 0) {
      if (performance.now() - began < 30_000) requestAnimationFrame(start);
      return;
    }
    // The slides' own frame (the carousel may hold more, e.g. a pause button).
    let box = slides[0]?.parentElement ?? document.querySelector(root);
    const rec = { log: [], slides: slides.length, width: box.getBoundingClientRect().width };
    window.__kilatBanner = rec;
    const sample = () => {
      // Found in the prerendered page, the slides may be replaced when the app takes it over: follow the new ones.
      if (!slides[0].isConnected) {
        const now = [...(document.querySelector(root)?.querySelectorAll(slide) ?? [])];
        if (now.length > 0) {
          slides = now;
          box = slides[0].parentElement ?? document.querySelector(root);
        }
      }
      const b = box.getBoundingClientRect();
      let best = -1;
      let bestCover = 0;
      let offset = 0;
      slides.forEach((s, i) => {
        const r = s.getBoundingClientRect();
        const cover = Math.max(0, Math.min(r.right, b.right) - Math.max(r.left, b.left)) / b.width;
        if (cover > bestCover) {
          best = i;
          bestCover = cover;
          offset = Math.round(r.left - b.left);
        }
      });
      return { index: bestCover >= 0.9 ? best : null, offset };
    };
    const tick = () => {
      const now = performance.now();
      const s = sample();
      const last = rec.log[rec.log.length - 1];
      if (!last || last.index !== s.index || last.offset !== s.offset) rec.log.push({ t: now, ...s });
      if (rec.log.length < 5000) requestAnimationFrame(tick);
    };
    tick();
  };
  start();
}

export async function readBanner(page) {
  return page.evaluate(() => ({ ...window.__kilatBanner, now: performance.now() }));
}

/**
 * Reduces a banner recording to the moments a slide settled on show: [{ t, index }]. A slide counts once it has
 * stayed on show for `dwellMs` (a carousel that rewinds from the third slide to the first sweeps past the second
 * for a frame or two; that is not an advance), and a repeat of the same slide is dropped.
 */
export function settledSlides({ log, now }, dwellMs = 500) {
  const out = [];
  let start = null;
  for (let i = 0; i <= log.length; i++) {
    const e = log[i];
    if (start && (!e || e.index !== start.index)) {
      const end = e ? e.t : now;
      if (end - start.t >= dwellMs && out.at(-1)?.index !== start.index) out.push({ t: start.t, index: start.index });
      start = null;
    }
    if (e && e.index !== null && !start) start = e;
  }
  return out;
}

/** Polls the banner recording until `count` advances have settled after the first slide seen. */
export async function waitForAdvances(page, count, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rec = await readBanner(page);
    const settled = settledSlides(rec);
    if (settled.length >= count + 1) return { ...rec, settled };
    if (Date.now() > deadline) {
      throw new Error(`the banner advanced ${Math.max(0, settled.length - 1)} time(s), not ${count}, within ${timeoutMs} ms: ` +
        JSON.stringify(settled.map((s) => [Math.round(s.t), s.index])));
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
