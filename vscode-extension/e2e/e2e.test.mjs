// End to end in a real VS Code: the packaged extension (.vsix) installed into code-server, opened in headless
// chromium through playwright-core. The whole flow on the bundled example: the light bulb's "Optimize with
// AdaExplore", the progress notification, the code lens and the hover, Preview (exactly one diff), Apply with its
// confirmation, the file on disk, and Undo restoring it. The server runs on the project's Python, on the CPU.
// Run through e2e/run.sh, which checks the pieces and sets the ADAEXPLORE_E2E_* variables.
// Screenshots and, on failure, a playwright trace and code-server's log go to ADAEXPLORE_E2E_ARTIFACTS (default:
// a temporary folder, printed, removed after a pass); ADAEXPLORE_E2E_SCREENSHOTS=<folder> also writes the
// README's vscode-*.png there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const EXAMPLE = join(ROOT, "adaexplore_core", "examples", "fused_bias_gelu.py");
const NODE = required("ADAEXPLORE_E2E_NODE");
const CODE_SERVER = required("ADAEXPLORE_E2E_CODE_SERVER");
const CHROMIUM = required("ADAEXPLORE_E2E_CHROMIUM");
const VSIX = required("ADAEXPLORE_E2E_VSIX");
const PYTHON = required("ADAEXPLORE_PYTHON");
const SECOND = 1000;
const SEARCH_TIMEOUT = 240 * SECOND;   // two candidates on the Triton interpreter, on shared CPU cores
const UI_TIMEOUT = 60 * SECOND;

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this test through e2e/run.sh`);
  return value;
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

async function waitForHttp(url, timeoutMs, serverLog) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error(`code-server did not answer at ${url}:\n${serverLog()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A temporary workspace with the example module and settings for a short CPU search on the project's Python. */
function makeWorkspace(base) {
  const workspace = join(base, "workspace");
  mkdirSync(join(workspace, ".vscode"), { recursive: true });
  const file = join(workspace, "fused_bias_gelu.py");
  copyFileSync(EXAMPLE, file);
  writeFileSync(join(workspace, ".vscode", "settings.json"), JSON.stringify({
    "adaexplore.interpreter": PYTHON,
    "adaexplore.steps": 2,
    "adaexplore.device": "cpu",
    "adaexplore.cacheDir": join(base, "adaexplore-cache"),
    "adaexplore.trace.server": "messages",
  }, null, 2));
  return { workspace, file };
}

/** code-server's own folders, with a user profile quiet enough for a test (no welcome page, tips or chat). */
function makeProfile(base) {
  const userData = join(base, "user-data");
  const extensions = join(base, "extensions");
  mkdirSync(join(userData, "User"), { recursive: true });
  writeFileSync(join(userData, "User", "settings.json"), JSON.stringify({
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.welcomePage.walkthroughs.openOnInstall": false,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "chat.disableAIFeatures": true,
    "telemetry.telemetryLevel": "off",
    "security.workspace.trust.enabled": false,
    "extensions.ignoreRecommendations": true,
    "update.mode": "none",
    "editor.lightbulb.enabled": "on",
    "editor.codeLens": true,
    "editor.hover.delay": 300,
    "files.autoSave": "off",
  }, null, 2));
  return { userData, extensions };
}

function codeServerArgs(profile) {
  return [CODE_SERVER, "--user-data-dir", profile.userData, "--extensions-dir", profile.extensions,
    "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override"];
}

test("the extension's whole flow in code-server", { timeout: 600 * SECOND }, async (t) => {
  const started = Date.now();
  const base = mkdtempSync(join(tmpdir(), "adaexplore-e2e-"));
  const artifacts = process.env.ADAEXPLORE_E2E_ARTIFACTS || join(base, "artifacts");
  const readme = process.env.ADAEXPLORE_E2E_SCREENSHOTS;
  mkdirSync(artifacts, { recursive: true });
  if (readme) mkdirSync(readme, { recursive: true });
  t.diagnostic(`artifacts: ${artifacts}${process.env.ADAEXPLORE_E2E_ARTIFACTS ? "" : " (removed after a pass)"}`);
  const { workspace, file } = makeWorkspace(base);
  const original = readFileSync(file, "utf-8");
  const profile = makeProfile(base);
  const env = { ...process.env, XDG_CONFIG_HOME: join(base, "config"), XDG_DATA_HOME: join(base, "data") };

  execFileSync(NODE, [...codeServerArgs(profile), "--install-extension", VSIX], { env, stdio: "pipe" });

  const port = await freePort();
  let log = "";
  const server = spawn(NODE, [...codeServerArgs(profile), "--auth", "none", "--bind-addr", `127.0.0.1:${port}`,
    workspace], { env, stdio: ["ignore", "pipe", "pipe"] });
  server.stdout.on("data", (d) => { log += d; });
  server.stderr.on("data", (d) => { log += d; });
  t.after(() => server.kill());
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, 120 * SECOND, () => log);

  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1500, height: 900 } });
  await context.tracing.start({ screenshots: true, snapshots: true });
  const page = await context.newPage();
  page.setDefaultTimeout(UI_TIMEOUT);
  const shot = async (name) => {
    await page.screenshot({ path: join(artifacts, `${name}.png`) });
    if (readme) await page.screenshot({ path: join(readme, `${name}.png`) });
  };

  let passed = false;
  try {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator(".monaco-workbench").waitFor();
    await flow(page, shot, file, original, t);
    passed = true;
  } finally {
    if (!passed) {
      await page.screenshot({ path: join(artifacts, "failure.png") }).catch(() => {});
      await context.tracing.stop({ path: join(artifacts, "trace.zip") }).catch(() => {});
      writeFileSync(join(artifacts, "code-server.log"), log);
      console.error(`e2e failed: screenshot, trace (npx playwright show-trace) and code-server log in ${artifacts}`);
    } else {
      await context.tracing.stop();
    }
    t.diagnostic(`e2e run time: ${((Date.now() - started) / SECOND).toFixed(1)} s`);
  }
  // passed: nothing to look at unless the artifacts were asked for
  await browser.close();
  server.kill();
  if (server.exitCode === null) await new Promise((r) => server.on("exit", r));
  if (!process.env.ADAEXPLORE_E2E_ARTIFACTS) rmSync(base, { recursive: true, force: true });
});

async function flow(page, shot, file, original, t) {
  const editor = page.locator(".editor-group-container .monaco-editor").first();
  const lens = page.locator(".codelens-decoration");

  // open the module through Quick Open
  await page.keyboard.press("Control+P");
  await page.locator(".quick-input-widget input").fill("fused_bias_gelu.py");
  await page.locator(".quick-input-list .monaco-list-row", { hasText: "fused_bias_gelu.py" }).first().waitFor();
  await page.keyboard.press("Enter");
  await editor.locator(".view-line", { hasText: "class Model(nn.Module):" }).waitFor();
  await lens.filter({ hasText: "Optimize with AdaExplore" }).waitFor();           // the server is up

  // no result yet: Preview and Apply are not in the palette
  const before = await paletteTitles(page, "AdaExplore: ");
  assert.ok(before.includes("AdaExplore: Optimize Module at Cursor"), before.join(", "));
  assert.ok(!before.some((title) => /Preview Result|Apply Result/.test(title)), before.join(", "));

  // cursor inside forward; the light bulb offers the search
  await goToLine(page, 13);
  const bulb = page.locator(".lightBulbWidget");
  await bulb.waitFor({ state: "visible" });
  await bulb.click();
  const actionRow = page.locator(".action-widget .monaco-list-row", { hasText: "Optimize Model with AdaExplore" });
  await actionRow.waitFor();
  await shot("vscode-code-action");
  await actionRow.click();

  // the progress notification, then the result on the lens
  const progress = page.locator(".notification-toast", { hasText: "AdaExplore: Model" });
  await progress.first().waitFor();
  await shot("vscode-progress");
  const resultLens = lens.filter({ hasText: "validated (interpreter)" });
  await resultLens.waitFor({ timeout: SEARCH_TIMEOUT });
  assert.match(await resultLens.innerText(), /Preview/);
  assert.match(await resultLens.innerText(), /Apply/);
  await shot("vscode-lens");
  await clearNotifications(page);

  // now both are in the palette
  const titles = await paletteTitles(page, "AdaExplore: ");
  assert.ok(titles.includes("AdaExplore: Preview Result (Diff)"), titles.join(", "));
  assert.ok(titles.includes("AdaExplore: Apply Result"), titles.join(", "));

  // the language status item (the "{ }" of Python files): the server is ready; its link shows the server's log
  // (with the LSP trace the workspace settings turn on)
  await page.locator('[id="status.languageStatus"]').click();
  const statusHover = page.locator(".monaco-hover:visible", { hasText: "AdaExplore: ready" });
  await statusHover.first().waitFor();
  assert.match(await statusHover.first().innerText(), /\.venv\/bin\/python/);
  await statusHover.first().locator("a", { hasText: "Show logs" }).click();
  await page.locator(".part.panel", { hasText: "[Trace - " }).waitFor();
  await shot("vscode-logs");
  await page.keyboard.press("Control+J");               // close the panel again
  await page.locator(".part.panel").waitFor({ state: "hidden" });

  // the hover on the class name (line 6, "class Model"): cursor on it, then the editor's Show Hover
  await goToLine(page, "6:9");
  await runCommand(page, "Show or Focus Hover");
  const hover = page.locator(".monaco-hover:visible", { hasText: "AdaExplore" });
  await hover.first().waitFor();
  assert.match(await hover.first().innerText(), /Model/);
  await shot("vscode-hover");
  await page.keyboard.press("Escape");

  // Preview: exactly one new view, the diff. Every tab that ever shows is recorded, because a second editor
  // (the server's window/showDocument of its preview file) may open only briefly, in the preview slot the diff
  // then takes over.
  const tabs = page.locator(".tabs-container .tab");
  assert.equal(await tabs.count(), 1);
  await page.evaluate(() => {
    const seen = new Set();
    const record = () => document.querySelectorAll(".tabs-container .tab").forEach((tab) => seen.add(tab.textContent.trim()));
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true });
    record();
    window.adaexploreSeenTabs = seen;
  });
  await resultLens.locator("a", { hasText: "Preview" }).click();
  const diff = page.locator(".monaco-diff-editor");
  await diff.first().waitFor();
  await page.waitForTimeout(3 * SECOND);                 // a late second view would be here by now
  const labels = (await tabs.allInnerTexts()).map((l) => l.replace(/\s+/g, " ").trim());
  const seen = await page.evaluate(() => [...window.adaexploreSeenTabs]);
  t.diagnostic(`tabs after Preview: ${labels.join(" | ")}; tabs ever shown: ${seen.join(" | ")}`);
  assert.equal(labels.length, 2, labels.join(" | "));
  assert.equal(await diff.count(), 1);
  assert.ok(labels.some((l) => l.includes("original ↔ AdaExplore")), labels.join(" | "));
  assert.deepEqual(seen.filter((l) => !l.includes("fused_bias_gelu.py") && !l.includes("original ↔ AdaExplore")), [],
    `a second view opened: ${seen.join(" | ")}`);
  await shot("vscode-preview");

  // back to the module; Apply through the lens: one question (the result is untimed on the CPU), then the edit
  await tabs.filter({ hasText: "fused_bias_gelu.py" }).first().click();
  await resultLens.locator("a", { hasText: "Apply" }).click();
  await confirmApply(page, editor, shot);
  await editor.locator(".view-line", { hasText: /^class\sModelReference\b/ }).waitFor();
  await shot("vscode-applied");
  await page.keyboard.press("Control+S");
  const applied = await savedText(file, (text) => text.includes("class ModelReference("), "the applied file on disk");
  assert.match(applied, /class ModelReference\(nn\.Module\):/);
  assert.match(applied, /@triton\.jit/);
  assert.match(applied, /class Model\(/);

  // Undo restores the original, on disk too once saved
  await editor.locator(".view-lines").click();
  await page.keyboard.press("Control+Z");
  await editor.locator(".view-line", { hasText: /^class\sModelReference\b/ }).waitFor({ state: "detached" });
  await page.keyboard.press("Control+S");
  assert.equal(await savedText(file, (text) => !text.includes("ModelReference"), "the file on disk after Undo"), original);
}

/** The palette's command titles for `query` (the palette is closed again). */
async function paletteTitles(page, query) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.fill(`>${query}`);
  const rows = page.locator(".quick-input-list .monaco-list-row");
  await rows.first().waitFor();
  await page.waitForTimeout(500);                        // the list settles after filtering
  const titles = (await rows.locator(".label-name").allInnerTexts()).map((s) => s.replace(/\s+/g, " ").trim());
  await page.keyboard.press("Escape");
  return titles.sort();
}

async function runCommand(page, title) {
  await page.keyboard.press("F1");
  await page.locator(".quick-input-widget input").fill(`>${title}`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().click();
}

async function goToLine(page, line) {
  await page.keyboard.press("Control+G");
  await page.locator(".quick-input-widget input").fill(`:${line}`);
  await page.keyboard.press("Enter");
}

async function clearNotifications(page) {
  await runCommand(page, "Notifications: Clear All Notifications");
  await page.locator(".notification-toast").first().waitFor({ state: "detached" }).catch(() => {});
}

/** Confirms Apply and checks that the user is asked exactly once: the extension's modal dialog, which for this
 * untimed (CPU) result is the server's own question, so neither a second dialog nor a notification asks again. */
async function confirmApply(page, editor, shot) {
  const replaced = editor.locator(".view-line", { hasText: /^class\sModelReference\b/ });
  const dialog = page.locator(".monaco-dialog-box");
  const dialogButton = dialog.locator(".monaco-button", { hasText: /^Apply/ });
  const toastButton = page.locator(".notification-toast .monaco-button", { hasText: /^Apply/ });
  await dialogButton.first().waitFor();
  assert.match(await dialog.first().innerText(), /never timed[\s\S]*Reference; Undo reverts it/);
  await shot("vscode-apply-confirm");
  await dialogButton.first().click();
  let confirmations = 1;
  const deadline = Date.now() + UI_TIMEOUT;
  while (Date.now() < deadline && !(await replaced.count())) {
    if (await dialogButton.count()) {
      await dialogButton.first().click();
      confirmations++;
    } else if (await toastButton.count()) {
      await toastButton.first().click();
      confirmations++;
    }
    await page.waitForTimeout(300);
  }
  assert.equal(confirmations, 1, "Apply asked more than once");
}

/** The file's text once a save has landed: `done` holds, and a second read a moment later gives the same text
 * (a save may truncate before it writes). */
async function savedText(file, done, what, timeoutMs = 30 * SECOND) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = readFileSync(file, "utf-8");
    await new Promise((r) => setTimeout(r, 300));
    if (done(text) && readFileSync(file, "utf-8") === text) return text;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the file holds:\n${text}`);
  }
}
