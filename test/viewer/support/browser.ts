import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";

/**
 * Where the browser tests save what they saw: a temporary folder, so a test run leaves the work tree
 * as it was; with SESSIONTREE_UPDATE_SCREENSHOTS=1, docs/screenshots (the pictures in docs/viewer.md).
 */
export const SCREENSHOTS =
  process.env.SESSIONTREE_UPDATE_SCREENSHOTS === "1"
    ? resolve(dirname(fileURLToPath(import.meta.url)), "../../../docs/screenshots")
    : join(tmpdir(), "sessiontree-screenshots");

export interface Browser {
  context: BrowserContext;
  /** Uncaught errors and console errors of every page, so a test can require there were none. */
  errors: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Debian's Chromium with a fresh profile, the flags the project's CI uses. */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "sessiontree-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1400, height: 860 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const errors: string[] = [];
  const watch = (page: Page) => {
    page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
    page.on("console", (msg) => {
      if (msg.type() === "error") errors.push(`console: ${msg.text()}`);
    });
  };
  context.pages().forEach(watch);
  context.on("page", watch);
  return {
    context,
    errors,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Waits until the page has listed and opened what it was asked to. */
export async function waitReady(page: Page): Promise<void> {
  await page.waitForFunction(
    () => (window as unknown as { __viewer?: { ready: boolean } }).__viewer?.ready === true,
  );
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `viewer-${name}.png`);
  await page.screenshot({ path });
  return path;
}
