// Pure helpers of the extension (no `vscode` import), unit-tested under plain Node.

/** Server command ids (registered by the language server) and the extension's own UI commands. */
export const SERVER = {
  optimize: "adaexplore.optimize",
  cancel: "adaexplore.cancelJob",
  jobs: "adaexplore.listJobs",
  preview: "adaexplore.preview",
  apply: "adaexplore.apply",
  show: "adaexplore.showResult",
} as const;

export const UI = {
  optimize: "adaexplore.ui.optimize",
  showJobs: "adaexplore.ui.showJobs",
  cancel: "adaexplore.ui.cancelJob",
  showRules: "adaexplore.ui.showRules",
  preview: "adaexplore.ui.preview",
  apply: "adaexplore.ui.apply",
  setApiKey: "adaexplore.ui.setApiKey",
  restart: "adaexplore.ui.restart",
  showLogs: "adaexplore.ui.showLogs",
} as const;

/** Context keys (package.json `when` clauses): the active editor's document has a result to preview / apply. */
export const CONTEXT = {
  canPreview: "adaexplore.canPreview",
  canApply: "adaexplore.canApply",
} as const;

/** Lenses and code actions run server commands; the extension routes the ones that start work or touch the
 * source through its own commands (cancellable progress, a diff before Apply, a confirmation, trust). */
const ROUTES: Record<string, string> = {
  [SERVER.optimize]: UI.optimize,
  [SERVER.preview]: UI.preview,
  [SERVER.apply]: UI.apply,
};

export interface CommandLike {
  title: string;
  command: string;
  arguments?: unknown[];
}

export function routeCommand<T extends CommandLike>(command: T | undefined): T | undefined {
  if (!command) return command;
  const target = ROUTES[command.command];
  return target ? { ...command, command: target } : command;
}

export interface JobSummary {
  id: string;
  uri: string;
  class: string;
  state: string;
  step: number;
  steps: number;
  valid: number;
  best_speedup: number | null;
  device: string;
  message: string;
}

export function isActive(job: JobSummary): boolean {
  return job.state === "queued" || job.state === "running";
}

/** "step 3/20 · best 1.42x" (or why there is no speed yet). */
export function jobLine(job: JobSummary): string {
  if (job.state === "queued") return `waiting for ${job.device}`;
  const best = job.best_speedup ? `best ${job.best_speedup.toFixed(2)}x` : job.valid > 0 ? "valid, not timed" : "no valid candidate yet";
  return `step ${job.step}/${job.steps} · ${best}`;
}

/** The status bar text for the current jobs, or undefined to hide the item. */
export function statusText(jobs: JobSummary[]): string | undefined {
  const active = jobs.filter(isActive);
  if (active.length === 0) return undefined;
  const bests = active.map((j) => j.best_speedup ?? 0).filter((b) => b > 0);
  const best = bests.length ? ` · best ${Math.max(...bests).toFixed(2)}x` : "";
  return `$(zap) AdaExplore: ${active.length} job${active.length > 1 ? "s" : ""}${best}`;
}

/** Progress increments: from the last reported step to this one, in percent. */
export function increment(previousStep: number, job: JobSummary): number {
  if (job.steps <= 0) return 0;
  return (100 * Math.max(0, job.step - previousStep)) / job.steps;
}

export interface PythonApiLike {
  environments?: {
    getActiveEnvironmentPath?: (resource?: unknown) => { path?: string } | undefined;
  };
  settings?: {
    getExecutionDetails?: (resource?: unknown) => { execCommand?: string[] } | undefined;
  };
}

/** The interpreter to run the server with, as the ruff and Black extensions choose: an explicit
 * adaexplore.interpreter setting first (${workspaceFolder} and ${userHome} expanded), then the Python
 * extension's active environment, then python3. */
export function chooseInterpreter(api: PythonApiLike | undefined, setting: string | undefined, resource?: unknown,
  folders: { workspaceFolder?: string; userHome?: string } = {}): string {
  if (setting && setting.trim()) return expandVariables(setting.trim(), folders);
  const active = api?.environments?.getActiveEnvironmentPath?.(resource)?.path;
  if (active) return active;
  const exec = api?.settings?.getExecutionDetails?.(resource)?.execCommand;
  if (exec && exec.length && exec[0]) return exec[0];
  return "python3";
}

/** `${workspaceFolder}` and `${userHome}` in a setting; a variable whose value is unknown is left as written
 * (the launch then fails with the path in the message). */
export function expandVariables(value: string, folders: { workspaceFolder?: string; userHome?: string }): string {
  return value.replace(/\$\{(workspaceFolder|userHome)\}/g, (whole, name: "workspaceFolder" | "userHome") =>
    folders[name] ?? whole);
}

/** The modules the server extra brings, checked in the chosen interpreter before the server is launched. */
export const SERVER_MODULES = ["adaexplore_server", "pygls", "lsprotocol", "tree_sitter", "tree_sitter_python", "diskcache"];
export const SERVER_REQUIREMENT = "adaexplore[server]";
export const PROBE_MISSING_EXIT = 3;

/** The Python one-liner that prints the missing modules and exits PROBE_MISSING_EXIT when any is missing. */
export function probeScript(): string {
  return `import importlib.util, sys; missing = [m for m in ${JSON.stringify(SERVER_MODULES)} ` +
    `if importlib.util.find_spec(m) is None]; print(" ".join(missing)); sys.exit(${PROBE_MISSING_EXIT} if missing else 0)`;
}

export type ProbeResult =
  | { kind: "ready" }
  | { kind: "missing"; modules: string[] }
  | { kind: "unusable"; reason: string };

/** What running probeScript() in the interpreter said: its exit code (null when it did not run), stdout, and the
 * launch error's text. */
export function classifyProbe(exitCode: number | null, stdout: string, error: string): ProbeResult {
  if (exitCode === 0) return { kind: "ready" };
  if (exitCode === PROBE_MISSING_EXIT) return { kind: "missing", modules: stdout.trim().split(/\s+/).filter(Boolean) };
  return { kind: "unusable", reason: error.trim() || `exit code ${exitCode}` };
}

/** Files the server writes for Preview (server.py: <stem>.<Class>.<digest>.adaexplore-preview.py). The extension
 * shows them in its own diff, so the server's window/showDocument for them is answered without opening a tab. */
export function isPreviewUri(uri: string): boolean {
  return /\.adaexplore-preview\.py$/.test(uri);
}

/** The classes of one document that have a result to preview or to apply, read from its code lenses (the
 * server gives Preview and Apply lenses only for a fresh result), and per class the question to ask before
 * Apply when the server's lens carries one (an untimed result). */
export interface DocumentResults {
  preview: string[];
  apply: string[];
  confirm: Record<string, string>;
}

export function resultsFromLenses(commands: (CommandLike | undefined)[]): DocumentResults {
  const classesOf = (id: string) => [...new Set(commands
    .filter((c): c is CommandLike => c?.command === id && typeof c.arguments?.[1] === "string")
    .map((c) => c.arguments![1] as string))];
  const confirm: Record<string, string> = {};
  for (const c of commands) {
    const question = c?.command === UI.apply ? applyQuestion(c.arguments ?? []) : undefined;
    if (question) confirm[c!.arguments![1] as string] = question;
  }
  return { preview: classesOf(UI.preview), apply: classesOf(UI.apply), confirm };
}

/** The question an Apply lens asks the client to put to the user first: its third argument's `confirm`
 * (the server sends it for untimed results; the server then skips its own question when the client sends
 * it back as `confirmed`). */
export function applyQuestion(args: unknown[]): string | undefined {
  const options = args[2];
  if (typeof args[1] !== "string" || typeof options !== "object" || options === null) return undefined;
  const question = (options as { confirm?: unknown }).confirm;
  return typeof question === "string" && question ? question : undefined;
}

export type ServerState = "starting" | "running" | "stopped" | "failed";

export interface LanguageStatus {
  text: string;
  detail: string;
  busy: boolean;
  error: boolean;
}

/** The language status item: the server's state, or the progress of its running jobs. */
export function languageStatus(state: ServerState, jobs: JobSummary[], interpreter: string, problem = ""): LanguageStatus {
  const detail = problem || `server: ${interpreter}`;
  if (state === "failed") return { text: "AdaExplore: server not running", detail, busy: false, error: true };
  if (state === "stopped") return { text: "AdaExplore: server stopped", detail, busy: false, error: false };
  if (state === "starting") return { text: "AdaExplore: starting", detail, busy: true, error: false };
  const active = jobs.filter(isActive);
  if (active.length === 1) return { text: `AdaExplore: ${active[0].class} ${jobLine(active[0])}`, detail, busy: true, error: false };
  if (active.length > 1) return { text: `AdaExplore: ${active.length} jobs running`, detail, busy: true, error: false };
  return { text: "AdaExplore: ready", detail, busy: false, error: false };
}

/** The server's environment: the editor's, plus the API key from SecretStorage (never written to disk). */
export function serverEnvironment(base: Record<string, string | undefined>, apiKey: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  if (apiKey) env.OPENAI_API_KEY = apiKey;
  return env;
}
