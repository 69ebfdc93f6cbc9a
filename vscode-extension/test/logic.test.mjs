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

test("the interpreter: the Python extension first, then the setting, then python3", () => {
  const api = { environments: { getActiveEnvironmentPath: () => ({ path: "/venv/bin/python" }) } };
  assert.equal(logic.chooseInterpreter(api, "/custom/python"), "/venv/bin/python");
  const legacy = { settings: { getExecutionDetails: () => ({ execCommand: ["/old/python"] }) } };
  assert.equal(logic.chooseInterpreter(legacy, ""), "/old/python");
  assert.equal(logic.chooseInterpreter(undefined, " /custom/python "), "/custom/python");
  assert.equal(logic.chooseInterpreter({ environments: { getActiveEnvironmentPath: () => undefined } }, ""), "python3");
});

test("the API key goes only into the server's environment", () => {
  const env = logic.serverEnvironment({ PATH: "/bin", EMPTY: undefined }, "sk-1");
  assert.deepEqual(env, { PATH: "/bin", OPENAI_API_KEY: "sk-1" });
  assert.ok(!("OPENAI_API_KEY" in logic.serverEnvironment({ PATH: "/bin" }, undefined)));
});
