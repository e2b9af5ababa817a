/**
 * The stats page in a real browser (Debian's chromium, driven by playwright-core; skipped when it
 * is not installed — .ci/run installs it): opened from disk with every request outside the file
 * refused and counted, it asks for nothing; the figures read from its DOM are `cg stats --json`'s
 * and each is laid out where a reader sees it; its screenshots, light and dark, are not blank and
 * the dark one is dark. Slow (a browser start), so it is a *.slow.test.ts.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { expectedKeys, mismatches } from './page-figures.js';
import { cg } from './run-cg.js';
import { writeHtmlLedger } from './stats-html-ledger.js';

const CHROMIUM = process.env.CG_TEST_CHROMIUM ?? '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
/** What Chromium needs on these machines (no network but the registries; root, no sandbox). */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface Shot {
  width: number;
  height: number;
  mean: number;
  sd: number;
  /** Share of pixels that differ from the top-left one (the page's background). */
  inked: number;
}

/** The browser globals the page-side code uses (cg's TypeScript has no DOM library). */
interface Canvas {
  createImageBitmap(blob: Blob): Promise<{ width: number; height: number }>;
  OffscreenCanvas: new (
    width: number,
    height: number,
  ) => {
    getContext(kind: '2d'): {
      drawImage(image: unknown, x: number, y: number): void;
      getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
    } | null;
  };
}
interface Styles {
  document: { body: unknown };
  getComputedStyle(element: unknown): { backgroundColor: string };
}

let dir: string;
let context: BrowserContext;
let page: Page;
let report: Record<string, unknown> & Parameters<typeof expectedKeys>[0];
const refused: string[] = [];

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  dir = tempDir('cg-stats-html-browser-');
  const store = join(dir, 'store');
  await writeHtmlLedger(`${store}.state`, Date.now());
  const file = join(dir, 'stats.html');
  expect(cg(['stats', '--html', file], { storeDir: store }).code).toBe(0);
  report = JSON.parse(cg(['stats', '--json'], { storeDir: store }).out);
  // A new, empty profile for this run only.
  context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
    colorScheme: 'light',
    timeout: 0,
  });
  context.setDefaultTimeout(0);
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url === pathToFileURL(file).href) return route.continue();
    refused.push(url);
    return route.abort();
  });
  page = context.pages()[0] ?? (await context.newPage());
  await page.goto(pathToFileURL(file).href);
  expect(readFileSync(file, 'utf8')).toContain('</html>');
}, 600_000);

afterAll(async () => {
  await context?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Mean, spread and inked share of a PNG's luminance, decoded by the browser itself. */
async function measure(png: Buffer): Promise<Shot> {
  const probe = await context.newPage();
  try {
    return await probe.evaluate(async (b64: string) => {
      const { createImageBitmap, OffscreenCanvas } = globalThis as unknown as Canvas;
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const g = canvas.getContext('2d')!;
      g.drawImage(bitmap, 0, 0);
      const px = g.getImageData(0, 0, bitmap.width, bitmap.height).data;
      const lum = (i: number) => 0.2126 * px[i]! + 0.7152 * px[i + 1]! + 0.0722 * px[i + 2]!;
      const bg = lum(0);
      let sum = 0;
      let sq = 0;
      let inked = 0;
      const n = px.length / 4;
      for (let i = 0; i < px.length; i += 4) {
        const l = lum(i);
        sum += l;
        sq += l * l;
        if (Math.abs(l - bg) > 24) inked++;
      }
      const mean = sum / n;
      return {
        width: bitmap.width,
        height: bitmap.height,
        mean,
        sd: Math.sqrt(sq / n - mean * mean),
        inked: inked / n,
      };
    }, png.toString('base64'));
  } finally {
    await probe.close();
  }
}

describe.skipIf(!HAS_CHROMIUM)('the stats page in Chromium', () => {
  it('loads nothing but itself', () => {
    expect(refused).toEqual([]);
  });

  it("shows cg stats --json's figures, each one laid out where a reader sees it", async () => {
    const figures = await page.$$eval('[data-key]', (els) =>
      els.map((e) => {
        const box = e.getBoundingClientRect();
        return {
          key: e.getAttribute('data-key')!,
          text: e.textContent ?? '',
          shown:
            box.width > 0 &&
            box.height > 0 &&
            e.checkVisibility({ opacityProperty: true, visibilityProperty: true }),
        };
      }),
    );
    expect(
      mismatches(
        figures.map((f) => [f.key, f.text]),
        report,
      ),
    ).toEqual([]);
    const keys = new Set(figures.map((f) => f.key));
    expect(expectedKeys(report).filter((k) => !keys.has(k))).toEqual([]);
    expect(figures.filter((f) => !f.shown).map((f) => f.key)).toEqual([]);
  });

  it('draws every chart at a readable size with its bars', async () => {
    const charts = await page.$$eval('svg.chart', (svgs) =>
      svgs.map((s) => {
        const box = s.getBoundingClientRect();
        const bars = [...s.querySelectorAll('.bar')].map((b) => b.getBoundingClientRect());
        return {
          id: s.getAttribute('aria-labelledby'),
          width: box.width,
          height: box.height,
          bars: bars.length,
          drawn: bars.filter((b) => b.width > 0 && b.height > 0).length,
        };
      }),
    );
    expect(charts.map((c) => c.id)).toEqual([
      'time-chart-title time-chart-desc',
      'command-chart-title command-chart-desc',
      'host-chart-title host-chart-desc',
      'recall-chart-title recall-chart-desc',
      'discover-chart-title discover-chart-desc',
    ]);
    for (const c of charts) {
      expect(c.width).toBeGreaterThan(400);
      expect(c.height).toBeGreaterThan(60);
      expect(c.drawn).toBeGreaterThan(0);
    }
    // A week, the day without runs drawn as a gap: six of seven columns have height.
    expect(charts[0]).toMatchObject({ bars: 7, drawn: 6 });
  });

  it('is not blank, light by default and dark when the reader prefers dark', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await measure(await page.screenshot({ fullPage: true }));
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await measure(await page.screenshot({ fullPage: true }));
    const background = await page.evaluate(() => {
      const { document, getComputedStyle } = globalThis as unknown as Styles;
      return getComputedStyle(document.body).backgroundColor;
    });
    for (const shot of [light, dark]) {
      expect(shot.height).toBeGreaterThan(1500); // every section laid out, not one screen
      expect(shot.sd).toBeGreaterThan(10);
      expect(shot.inked).toBeGreaterThan(0.02);
    }
    expect(light.mean).toBeGreaterThan(200);
    expect(dark.mean).toBeLessThan(60);
    expect(background).toBe('rgb(13, 17, 23)');
  });
});
