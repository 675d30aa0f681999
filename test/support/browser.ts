import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';

/**
 * Debian's Chromium (installed by `.ci/run`), driven by Playwright. Playwright's
 * own browser download cannot reach its CDN here. The flags keep Chromium from
 * dialling out (this machine refuses those connections, many at a time).
 */
export const CHROMIUM_PATH = process.env['DIGLOT_CHROMIUM'] ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Console errors and uncaught page errors, collected as they happen (CSP violations arrive as console errors). */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(`${error.name}: ${error.message}`));
  return errors;
}
