// The bundled extension (dist/extension.js) activated against a mocked `vscode` module: every command the
// manifest contributes is registered (and nothing else), an interpreter that cannot run gives one clear error
// instead of a crash, one without the server extra gets an install offer run as a task, Preview/Apply in the
// palette follow context keys the extension sets, and in an untrusted workspace Optimize never reaches the server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import Module from "node:module";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url)));

function permissive(name = "vscode") {
  // Any property is another callable, constructible stub: enough for vscode-languageclient to load.
  const fn = function () { return permissive(`${name}()`); };
  return new Proxy(fn, {
    get(target, prop) {
      if (prop === "then") return undefined;                 // not a promise
      if (prop === Symbol.toPrimitive) return () => name;
      if (!(prop in target)) target[prop] = permissive(`${name}.${String(prop)}`);
      return target[prop];
    },
    construct() { return permissive(`new ${name}`); },
  });
}

function fakeVscode(record, { interpreterSetting, answer }) {
  const vscode = permissive();
  const disposable = { dispose() {} };
  const part = (name, members) => Object.assign(permissive(name), members);
  const taskEnded = [];
  Object.assign(vscode, {
    commands: part("commands", {
      registerCommand(id, fn) { record.commands.set(id, fn); return disposable; },
      executeCommand: async (id, ...args) => {
        if (id === "setContext") record.contexts.set(args[0], args[1]);
        return undefined;
      },
    }),
    window: part("window", {
      createOutputChannel: () => part("channel", { appendLine() {}, clear() {}, show() {}, dispose() {}, append() {} }),
      createStatusBarItem: () => part("item", { show() {}, hide() {}, dispose() {} }),
      showErrorMessage: async (m) => { record.errors.push(m); },
      showWarningMessage: async (m, ...items) => { record.warnings.push({ message: m, items }); return answer; },
      showInformationMessage: async (m) => { record.infos.push(m); },
      onDidChangeActiveTextEditor: () => disposable,
      activeTextEditor: undefined,
    }),
    languages: part("languages", {
      createLanguageStatusItem: (id) => {
        const item = { id, dispose() {} };
        record.languageStatus = item;
        return item;
      },
    }),
    workspace: part("workspace", {
      isTrusted: false,
      workspaceFolders: undefined,
      getConfiguration: () => part("config", { get: (key) => (key === "interpreter" ? interpreterSetting : undefined) }),
      onDidChangeConfiguration: () => disposable,
      onDidCloseTextDocument: () => disposable,
    }),
    tasks: part("tasks", {
      executeTask: async (task) => {
        record.tasks.push(task);
        const execution = { task };
        setTimeout(() => taskEnded.forEach((fn) => fn({ execution, exitCode: 1 })), 10);
        return execution;
      },
      onDidEndTaskProcess: (fn) => { taskEnded.push(fn); return disposable; },
    }),
    Task: function (definition, scope, name, source, execution) { Object.assign(this, { definition, name, source, execution }); },
    ProcessExecution: function (process, args) { Object.assign(this, { process, args }); },
    TaskScope: { Workspace: 2 },
    TaskRevealKind: { Always: 1 },
    LanguageStatusSeverity: { Information: 0, Warning: 1, Error: 2 },
    extensions: part("extensions", { getExtension: () => undefined }),
    version: "1.95.0",
    env: part("env", { language: "en", appName: "Visual Studio Code" }),
    StatusBarAlignment: { Left: 1, Right: 2 },
    ProgressLocation: { Notification: 15 },
  });
  return vscode;
}

async function until(check, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Activates a fresh copy of dist/extension.js against the fake `vscode`; returns the module and the record. */
async function activate(options) {
  const record = { commands: new Map(), contexts: new Map(), errors: [], warnings: [], infos: [], tasks: [] };
  const vscode = fakeVscode(record, options);
  const load = Module._load;
  Module._load = function (request, ...rest) {
    return request === "vscode" ? vscode : load.call(this, request, ...rest);
  };
  try {
    delete require.cache[require.resolve("../dist/extension.js")];
    const extension = require("../dist/extension.js");
    const context = { subscriptions: [], secrets: { get: async () => undefined, store: async () => {}, delete: async () => {} } };
    await extension.activate(context);
    return { extension, record };
  } finally {
    Module._load = load;
  }
}

test("activation with a mocked vscode", async () => {
  const { extension, record } = await activate({ interpreterSetting: "/nonexistent/python" });
  const contributed = manifest.contributes.commands.map((c) => c.command).sort();
  assert.deepEqual([...record.commands.keys()].sort(), contributed);
  assert.ok(contributed.every((id) => id.startsWith("adaexplore.ui.")));

  // the interpreter cannot be run: one error naming it and what to do, and the language status says so
  assert.equal(record.errors.length, 1, record.errors.join("\n"));
  assert.match(record.errors[0], /could not start its language server with \/nonexistent\/python.*ENOENT.*pip install/);
  assert.equal(record.languageStatus.text, "AdaExplore: server not running");
  assert.equal(record.languageStatus.severity, 2);
  assert.deepEqual(record.languageStatus.command, { title: "Show logs", command: "adaexplore.ui.showLogs" });

  await record.commands.get("adaexplore.ui.optimize")("file:///m.py", "M");
  assert.equal(record.warnings.length, 1);
  assert.match(record.warnings[0].message, /untrusted workspace/);
  await extension.deactivate();
});

test("Preview and Apply in the palette only where a result exists", async () => {
  const { extension, record } = await activate({ interpreterSetting: "/nonexistent/python" });
  const when = Object.fromEntries(manifest.contributes.menus.commandPalette.map((m) => [m.command, m.when]));
  assert.equal(when["adaexplore.ui.preview"], "adaexplore.canPreview");
  assert.equal(when["adaexplore.ui.apply"], "adaexplore.canApply");
  // the extension sets both keys (no editor, no result: false)
  assert.equal(record.contexts.get("adaexplore.canPreview"), false);
  assert.equal(record.contexts.get("adaexplore.canApply"), false);
  // run anyway (a keybinding): a message, not silence
  await record.commands.get("adaexplore.ui.preview")();
  assert.match(record.infos.at(-1), /no result to preview in this editor/);
  await extension.deactivate();
});

test("an interpreter without adaexplore[server]: offer a visible pip install", async () => {
  // a real Python without site-packages: the server extra cannot be imported there
  const work = mkdtempSync(join(tmpdir(), "adaexplore-py-"));
  const python = join(work, "python");
  writeFileSync(python, `#!/bin/sh\nexec ${process.env.ADAEXPLORE_PYTHON || "python3"} -I -S "$@"\n`);
  chmodSync(python, 0o755);
  const { extension, record } = await activate({ interpreterSetting: python, answer: "Install" });
  await until(() => record.errors.length > 0);          // the offer does not hold up activation; the task ends
  assert.equal(record.warnings.length, 1);
  assert.match(record.warnings[0].message, /needs adaexplore\[server\] in .*python \(missing: adaexplore_server, pygls/);
  assert.deepEqual(record.warnings[0].items, ["Install", "Choose Interpreter Setting"]);
  assert.equal(record.tasks.length, 1);
  assert.deepEqual({ process: record.tasks[0].execution.process, args: record.tasks[0].execution.args },
    { process: python, args: ["-m", "pip", "install", "adaexplore[server]"] });
  // the fake task exits 1: the failure is reported, and the status item shows the server is not running
  assert.match(record.errors.at(-1), /pip install adaexplore\[server\] failed/);
  assert.equal(record.languageStatus.text, "AdaExplore: server not running");
  assert.match(record.languageStatus.detail, /not installed/);
  await extension.deactivate();
});
