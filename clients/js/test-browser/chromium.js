// The headless Chromium the browser tests drive: Debian's, or $CHROMIUM (scripts/test-web.sh
// installs it and playwright-core).
import { chromium } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** Launches the browser with nothing of its own running beside the page. */
export function launchChromium() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}
