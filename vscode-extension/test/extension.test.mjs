// The bundled extension (dist/extension.js) activated against a mocked `vscode` module: every command the
// manifest contributes is registered (and nothing else), an interpreter without the server gives one clear
// error instead of a crash, and in an untrusted workspace Optimize never reaches the server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import Module from "node:module";
import { readFileSync } from "node:fs";

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

function fakeVscode(record) {
  const vscode = permissive();
  const disposable = { dispose() {} };
  const part = (name, members) => Object.assign(permissive(name), members);
  Object.assign(vscode, {
    commands: part("commands", {
      registerCommand(id, fn) { record.commands.set(id, fn); return disposable; },
      executeCommand: async () => undefined,
    }),
    window: part("window", {
      createOutputChannel: () => part("channel", { appendLine() {}, clear() {}, show() {}, dispose() {}, append() {} }),
      createStatusBarItem: () => part("item", { show() {}, hide() {}, dispose() {} }),
      showErrorMessage: async (m) => { record.errors.push(m); },
      showWarningMessage: async (m) => { record.warnings.push(m); },
      showInformationMessage: async () => undefined,
    }),
    workspace: part("workspace", {
      isTrusted: false,
      workspaceFolders: undefined,
      getConfiguration: () => part("config", { get: (key) => (key === "interpreter" ? "/nonexistent/python" : undefined) }),
      onDidChangeConfiguration: () => disposable,
    }),
    extensions: part("extensions", { getExtension: () => undefined }),
    version: "1.95.0",
    env: part("env", { language: "en", appName: "Visual Studio Code" }),
    StatusBarAlignment: { Left: 1, Right: 2 },
    ProgressLocation: { Notification: 15 },
  });
  return vscode;
}

test("activation with a mocked vscode", async () => {
  const record = { commands: new Map(), errors: [], warnings: [] };
  const vscode = fakeVscode(record);
  const load = Module._load;
  Module._load = function (request, ...rest) {
    return request === "vscode" ? vscode : load.call(this, request, ...rest);
  };
  try {
    const extension = require("../dist/extension.js");
    const context = { subscriptions: [], secrets: { get: async () => undefined, store: async () => {}, delete: async () => {} } };
    await extension.activate(context);

    const contributed = manifest.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual([...record.commands.keys()].sort(), contributed);
    assert.ok(contributed.every((id) => id.startsWith("adaexplore.ui.")));

    // the language client's own line, then ours with the interpreter and what to do
    assert.ok(record.errors.some((e) => /could not start its language server with \/nonexistent\/python.*pip install/.test(e)),
      record.errors.join("\n"));

    await record.commands.get("adaexplore.ui.optimize")("file:///m.py", "M");
    assert.equal(record.warnings.length, 1);
    assert.match(record.warnings[0], /untrusted workspace/);
    await extension.deactivate();
  } finally {
    Module._load = load;
  }
});
