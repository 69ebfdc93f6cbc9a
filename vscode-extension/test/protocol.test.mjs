// The real Python language server over stdio, driven with vscode-languageserver-protocol (the JSON-RPC stack
// VS Code's client uses): initialize, code action, optimize on the CPU, code lens, preview (its showDocument is
// for a file the extension recognises as a preview, so it opens no second tab), apply with the server's question
// for an untimed result, shutdown.
// Python: ADAEXPLORE_PYTHON (make test sets it to the project's venv), else python3.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const rpc = require("vscode-languageserver-protocol/node");
const logic = require("../dist/logic.js");

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PYTHON = process.env.ADAEXPLORE_PYTHON || "python3";
const MODULE = [
  "import torch", "import torch.nn as nn", "", "",
  "# adaexplore: inputs=[torch.randn(4, 32)] init=[]",
  "class Scale(nn.Module):",
  "    def forward(self, x):",
  "        return torch.sigmoid(x * 2.0 - 1.0)", "",
].join("\n");

test("the server speaks LSP to the VS Code protocol stack", { timeout: 300000 }, async (t) => {
  const work = mkdtempSync(join(tmpdir(), "adaexplore-ext-"));
  const file = join(work, "scale.py");
  writeFileSync(file, MODULE);
  const uri = pathToFileURL(file).toString();
  const server = spawn(PYTHON, ["-m", "adaexplore_server"], {
    env: { ...process.env, PYTHONPATH: ROOT, TRITON_INTERPRET: "" }, stdio: ["pipe", "pipe", "inherit"],
  });
  t.after(() => { if (server.exitCode === null) server.kill(); });   // a failed check must not leave it running
  const connection = rpc.createProtocolConnection(new rpc.StreamMessageReader(server.stdout),
    new rpc.StreamMessageWriter(server.stdin));
  const edits = [];
  connection.onRequest("workspace/configuration", () => [{ steps: 2, device: "cpu", cacheDir: join(work, "cache") }]);
  connection.onRequest("workspace/applyEdit", (params) => { edits.push(params); return { applied: true }; });
  const shown = [], questions = [];
  connection.onRequest("window/showDocument", (params) => { shown.push(params.uri); return { success: true }; });
  connection.onRequest("window/showMessageRequest", (params) => {
    questions.push(params);
    return params.actions.find((a) => a.title.startsWith("Apply")) ?? null;
  });
  connection.onRequest("workspace/codeLens/refresh", () => null);
  connection.onRequest("workspace/inlayHint/refresh", () => null);
  connection.onNotification("textDocument/publishDiagnostics", () => {});
  connection.onNotification("window/showMessage", () => {});
  connection.onNotification("window/logMessage", () => {});
  connection.listen();

  const init = await connection.sendRequest("initialize", {
    processId: process.pid, rootUri: pathToFileURL(work).toString(),
    capabilities: { workspace: { configuration: true, workspaceEdit: { documentChanges: true } },
      window: { showDocument: { support: true } } },
    initializationOptions: { workDoneProgress: false, cacheDir: join(work, "cache") },
  });
  assert.ok(init.capabilities.executeCommandProvider.commands.includes("adaexplore.optimize"));
  await connection.sendNotification("initialized", {});
  await connection.sendNotification("textDocument/didOpen", {
    textDocument: { uri, languageId: "python", version: 1, text: MODULE } });

  const actions = await connection.sendRequest("textDocument/codeAction", {
    textDocument: { uri }, range: { start: { line: 6, character: 8 }, end: { line: 6, character: 8 } },
    context: { diagnostics: [] } });
  const optimize = actions.find((a) => a.title === "Optimize Scale with AdaExplore");
  assert.deepEqual(optimize.command, { title: "Optimize Scale with AdaExplore", command: "adaexplore.optimize",
    arguments: [uri, "Scale"] });

  const job = await connection.sendRequest("workspace/executeCommand",
    { command: "adaexplore.optimize", arguments: [uri, "Scale"] });
  let state;
  for (let i = 0; i < 960; i++) {
    const jobs = await connection.sendRequest("workspace/executeCommand", { command: "adaexplore.listJobs", arguments: [] });
    state = jobs.find((j) => j.id === job.id);
    if (state.state !== "queued" && state.state !== "running") break;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.equal(state.state, "done", JSON.stringify(state));
  const lenses = await connection.sendRequest("textDocument/codeLens", { textDocument: { uri } });
  const titles = lenses.map((l) => l.command.title);
  assert.equal(titles.length, 3, titles.join(" | "));
  assert.match(titles[0], /validated \(interpreter\), not timed/);
  assert.equal(titles[1], "Preview");
  assert.match(titles[2], /^Apply/);

  const preview = await connection.sendRequest("workspace/executeCommand", { command: "adaexplore.preview", arguments: [uri, "Scale"] });
  assert.ok(preview.uri && preview.text.includes("class ScaleReference(nn.Module):"), JSON.stringify(preview));
  assert.deepEqual(shown, [preview.uri]);
  assert.ok(logic.isPreviewUri(preview.uri), preview.uri);
  assert.ok(!logic.isPreviewUri(uri));

  const applied = await connection.sendRequest("workspace/executeCommand", { command: "adaexplore.apply", arguments: [uri, "Scale"] });
  assert.equal(applied.applied, true, JSON.stringify(applied));
  assert.ok(questions.length <= 1, JSON.stringify(questions));          // asked only for an untimed result
  if (questions.length) assert.match(questions[0].message, /never timed/);
  const change = edits[0].edit.documentChanges[0];
  assert.equal(change.textDocument.version, 1);
  assert.ok(change.edits.some((e) => e.newText.includes("class ScaleReference(nn.Module):")));

  await connection.sendRequest("shutdown");
  await connection.sendNotification("exit");
  connection.dispose();
  await new Promise((r) => server.on("exit", r));
});
