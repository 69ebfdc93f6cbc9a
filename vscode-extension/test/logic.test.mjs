// Unit tests of the extension's pure logic (dist/logic.js, built from src/logic.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const logic = require("../dist/logic.js");

const job = (over) => ({ id: "job-1", uri: "file:///m.py", class: "M", state: "running", step: 3, steps: 20, valid: 2,
  best_speedup: null, device: "cuda:0", message: "", ...over });

test("lens and action commands that start work or touch the source go through the extension", () => {
  for (const [server, ui] of [["adaexplore.optimize", "adaexplore.ui.optimize"], ["adaexplore.apply", "adaexplore.ui.apply"],
    ["adaexplore.preview", "adaexplore.ui.preview"]]) {
    const routed = logic.routeCommand({ title: "t", command: server, arguments: ["u", "C"] });
    assert.deepEqual(routed, { title: "t", command: ui, arguments: ["u", "C"] });
  }
  const show = { title: "⚡ 2.00x", command: "adaexplore.showResult", arguments: ["u", "C"] };
  assert.equal(logic.routeCommand(show), show);
  assert.equal(logic.routeCommand(undefined), undefined);
});

test("extension and server command ids never clash", () => {
  const server = new Set(Object.values(logic.SERVER));
  for (const id of Object.values(logic.UI)) assert.ok(!server.has(id), id);
});

test("job lines and the status bar", () => {
  assert.equal(logic.jobLine(job({})), "step 3/20 · valid, not timed");
  assert.equal(logic.jobLine(job({ valid: 0 })), "step 3/20 · no valid candidate yet");
  assert.equal(logic.jobLine(job({ best_speedup: 1.4567 })), "step 3/20 · best 1.46x");
  assert.equal(logic.jobLine(job({ state: "queued" })), "waiting for cuda:0");
  assert.equal(logic.statusText([job({ state: "done" })]), undefined);
  assert.equal(logic.statusText([job({ best_speedup: 2.5 }), job({ id: "j2", best_speedup: 1.1 })]),
    "$(zap) AdaExplore: 2 jobs · best 2.50x");
  assert.equal(logic.statusText([job({})]), "$(zap) AdaExplore: 1 job");
});

test("progress increments add up to 100", () => {
  let last = 0, total = 0;
  for (const step of [1, 1, 5, 20]) {
    total += logic.increment(last, job({ step }));
    last = step;
  }
  assert.equal(total, 100);
  assert.equal(logic.increment(0, job({ steps: 0 })), 0);
});

test("the interpreter: an explicit setting first, then the Python extension, then python3", () => {
  const api = { environments: { getActiveEnvironmentPath: () => ({ path: "/venv/bin/python" }) } };
  assert.equal(logic.chooseInterpreter(api, "/custom/python"), "/custom/python");
  assert.equal(logic.chooseInterpreter(api, "  "), "/venv/bin/python");
  const legacy = { settings: { getExecutionDetails: () => ({ execCommand: ["/old/python"] }) } };
  assert.equal(logic.chooseInterpreter(legacy, ""), "/old/python");
  assert.equal(logic.chooseInterpreter(undefined, " /custom/python "), "/custom/python");
  assert.equal(logic.chooseInterpreter({ environments: { getActiveEnvironmentPath: () => undefined } }, ""), "python3");
  assert.equal(logic.chooseInterpreter(api, "${workspaceFolder}/.venv/bin/python", undefined, { workspaceFolder: "/w" }),
    "/w/.venv/bin/python");
  assert.equal(logic.expandVariables("${userHome}/py ${workspaceFolder}", { userHome: "/home/u" }), "/home/u/py ${workspaceFolder}");
});

test("the server probe: ready, missing modules (offer the install) or an unusable interpreter", () => {
  assert.deepEqual(logic.classifyProbe(0, "\n", ""), { kind: "ready" });
  assert.deepEqual(logic.classifyProbe(logic.PROBE_MISSING_EXIT, "pygls diskcache\n", ""),
    { kind: "missing", modules: ["pygls", "diskcache"] });
  assert.deepEqual(logic.classifyProbe(null, "", " spawn /x ENOENT "), { kind: "unusable", reason: "spawn /x ENOENT" });
  assert.deepEqual(logic.classifyProbe(1, "", ""), { kind: "unusable", reason: "exit code 1" });
  assert.match(logic.probeScript(), /find_spec/);
  assert.ok(logic.SERVER_MODULES.includes("adaexplore_server"));
});

test("the server's preview files are recognised (their showDocument opens no second tab)", () => {
  assert.ok(logic.isPreviewUri("file:///c/previews/m.Model.1a2b3c4d.adaexplore-preview.py"));
  assert.ok(!logic.isPreviewUri("file:///w/m.py"));
  assert.ok(!logic.isPreviewUri("file:///w/adaexplore-preview.py.bak"));
});

test("results per document come from the routed lenses", () => {
  const lens = (command, cls) => ({ title: "t", command, arguments: ["file:///m.py", cls] });
  assert.deepEqual(logic.resultsFromLenses([lens("adaexplore.showResult", "A"), lens("adaexplore.ui.preview", "A"),
    lens("adaexplore.ui.apply", "A"), lens("adaexplore.ui.preview", "B"), lens("adaexplore.ui.optimize", "C"), undefined]),
  { preview: ["A", "B"], apply: ["A"], confirm: {} });
  assert.deepEqual(logic.resultsFromLenses([]), { preview: [], apply: [], confirm: {} });
});

test("an Apply lens of an untimed result carries the question to ask first", () => {
  const untimed = { title: "Apply (untimed)", command: "adaexplore.ui.apply",
    arguments: ["file:///m.py", "A", { confirm: "never timed. Apply it anyway?" }] };
  assert.deepEqual(logic.resultsFromLenses([untimed]).confirm, { A: "never timed. Apply it anyway?" });
  assert.equal(logic.applyQuestion(untimed.arguments), "never timed. Apply it anyway?");
  for (const args of [["file:///m.py", "A"], ["file:///m.py", "A", { confirm: "" }], ["file:///m.py", "A", null],
    ["file:///m.py", "A", { confirm: 3 }], ["file:///m.py", 7, { confirm: "q" }]]) {
    assert.equal(logic.applyQuestion(args), undefined, JSON.stringify(args));
  }
});

test("the language status: server state, then job progress", () => {
  assert.deepEqual(logic.languageStatus("starting", [], "/py"),
    { text: "AdaExplore: starting", detail: "server: /py", busy: true, error: false });
  assert.deepEqual(logic.languageStatus("running", [job({ state: "done" })], "/py"),
    { text: "AdaExplore: ready", detail: "server: /py", busy: false, error: false });
  assert.equal(logic.languageStatus("running", [job({})], "/py").text, "AdaExplore: M step 3/20 · valid, not timed");
  assert.equal(logic.languageStatus("running", [job({}), job({ id: "j2" })], "/py").text, "AdaExplore: 2 jobs running");
  const failed = logic.languageStatus("failed", [], "/py", "adaexplore[server] is not installed in /py");
  assert.deepEqual(failed, { text: "AdaExplore: server not running", detail: "adaexplore[server] is not installed in /py",
    busy: false, error: true });
});

test("the API key goes only into the server's environment", () => {
  const env = logic.serverEnvironment({ PATH: "/bin", EMPTY: undefined }, "sk-1");
  assert.deepEqual(env, { PATH: "/bin", OPENAI_API_KEY: "sk-1" });
  assert.ok(!("OPENAI_API_KEY" in logic.serverEnvironment({ PATH: "/bin" }, undefined)));
});
