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

/** The interpreter to run the server with: the Python extension's active environment, else the
 * adaexplore.interpreter setting, else python3. */
export function chooseInterpreter(api: PythonApiLike | undefined, setting: string | undefined, resource?: unknown): string {
  const active = api?.environments?.getActiveEnvironmentPath?.(resource)?.path;
  if (active) return active;
  const exec = api?.settings?.getExecutionDetails?.(resource)?.execCommand;
  if (exec && exec.length && exec[0]) return exec[0];
  if (setting && setting.trim()) return setting.trim();
  return "python3";
}

/** The server's environment: the editor's, plus the API key from SecretStorage (never written to disk). */
export function serverEnvironment(base: Record<string, string | undefined>, apiKey: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  if (apiKey) env.OPENAI_API_KEY = apiKey;
  return env;
}
