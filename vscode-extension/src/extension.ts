// The AdaExplore VS Code extension: a thin client of the Python language server (python -m adaexplore_server).
// It starts the server with the chosen interpreter (offering to install the server there), keeps the LLM key in
// SecretStorage, routes lens/action commands that start work or touch the source through its own commands
// (cancellable progress, one diff preview, confirmation, workspace trust), and shows server state and jobs.
import * as vscode from "vscode";
import { execFile } from "node:child_process";
import {
  CancellationToken, LanguageClient, LanguageClientOptions, ResponseError, ServerOptions, State,
} from "vscode-languageclient/node";
import { interpreter, offerInstall, probe, pythonApi } from "./interpreter";
import {
  SERVER, UI, JobSummary, SERVER_REQUIREMENT, applyQuestion, increment, isActive, isPreviewUri, jobLine,
  routeCommand, serverEnvironment,
} from "./logic";
import { ResultIndex, targetInActiveEditor } from "./results";
import { StatusView } from "./status";

const SECRET_KEY = "adaexplore.apiKey";
const POLL_MS = 1000;

let client: LanguageClient | undefined;
let status: StatusView | undefined;
let results: ResultIndex | undefined;
let pollTimer: NodeJS.Timeout | undefined;
let output: vscode.OutputChannel | undefined;
let rulesOutput: vscode.OutputChannel | undefined;

function settings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration("adaexplore");
  return {
    proposer: c.get("proposer"), steps: c.get("steps"), device: c.get("device"), model: c.get("model"),
    baseUrl: c.get("baseUrl"), cacheDir: c.get("cacheDir"),
  };
}

function clientOptions(): LanguageClientOptions {
  return {
    documentSelector: [{ scheme: "file", language: "python" }, { scheme: "untitled", language: "python" }],
    initializationOptions: { ...settings(), workDoneProgress: false },   // the extension shows its own progress
    synchronize: { configurationSection: "adaexplore" },
    outputChannel: output,
    middleware: {
      provideCodeLenses: async (document, token, next) => {
        const lenses = await next(document, token);
        const routed = lenses?.map((lens) => {
          if (lens.command) lens.command = routeCommand(lens.command);
          return lens;
        });
        results?.update(document.uri, (routed ?? []).map((lens) => lens.command));
        return routed;
      },
      provideCodeActions: async (document, range, context, token, next) => {
        const actions = await next(document, range, context, token);
        return actions?.map((action) => {
          if (action instanceof vscode.CodeAction) {
            action.command = routeCommand(action.command);
            return action;
          }
          return routeCommand(action as vscode.Command) as vscode.Command;
        });
      },
      window: {
        // The preview command opens its own diff of the file the server wrote; a second tab is not wanted.
        showDocument: async (params, next) => {
          if (isPreviewUri(params.uri)) return { success: true };
          const shown = await next(params, CancellationToken.None);
          return shown instanceof ResponseError ? { success: false } : shown;
        },
      },
    },
  };
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const python = await interpreter();
  status?.server("starting", python);
  const found = await probe(python);
  if (found.kind === "missing") {
    status?.server("failed", python, `${SERVER_REQUIREMENT} is not installed in ${python}`);
    // not awaited: activation must not wait for the user's answer or the install
    void offerInstall(python, found.modules).then((installed) => (installed ? startClient(context) : undefined));
    return;
  }
  if (found.kind === "unusable") {
    status?.server("failed", python, `${python} cannot be run`);
    void vscode.window.showErrorMessage(
      `AdaExplore could not start its language server with ${python} (${found.reason}). Install it there ` +
      `(pip install '${SERVER_REQUIREMENT}') or set adaexplore.interpreter, then run 'AdaExplore: Restart Language Server'.`);
    return;
  }
  const apiKey = await context.secrets.get(SECRET_KEY);
  const serverOptions: ServerOptions = {
    command: python,
    args: ["-m", "adaexplore_server"],
    options: { env: serverEnvironment(process.env, apiKey) },
  };
  const started = new LanguageClient("adaexplore", "AdaExplore", serverOptions, clientOptions());
  started.onDidChangeState((e) => {
    if (e.newState === State.Running) status?.server("running", python);
    else if (e.newState === State.Stopped && client === started) status?.server("stopped", python, "see AdaExplore: Show Logs");
  });
  client = started;
  try {
    await started.start();
  } catch (error) {
    client = undefined;
    status?.server("failed", python, String(error));
    void vscode.window.showErrorMessage(
      `AdaExplore could not start its language server with ${python} (${String(error)}). Install it there ` +
      `(pip install '${SERVER_REQUIREMENT}') or set adaexplore.interpreter, then run 'AdaExplore: Restart Language Server'.`);
  }
}

async function restart(context: vscode.ExtensionContext): Promise<void> {
  const running = client;
  client = undefined;
  if (running) await running.stop();
  await startClient(context);
}

async function server<T>(command: string, ...args: unknown[]): Promise<T> {
  if (!client) throw new Error("the AdaExplore language server is not running");
  return (await client.sendRequest("workspace/executeCommand", { command, arguments: args })) as T;
}

async function jobs(): Promise<JobSummary[]> {
  return (await server<JobSummary[]>(SERVER.jobs)) ?? [];
}

function startPolling(): void {
  if (pollTimer) return;
  pollTimer = setInterval(async () => {
    try {
      const list = await jobs();
      status?.jobList(list);
      if (!list.some(isActive) && pollTimer) {
        clearInterval(pollTimer);
        pollTimer = undefined;
      }
    } catch {
      /* the server is restarting */
    }
  }, POLL_MS);
}

/** The [uri, class] of a lens or palette command (lenses of untimed results add an options object). */
function target(args: unknown[]): [string, string] | undefined {
  if ((args.length === 2 || args.length === 3) && typeof args[0] === "string" && typeof args[1] === "string") {
    return [args[0], args[1]];
  }
  return undefined;
}

async function optimize(...args: unknown[]): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage("AdaExplore does not start searches in an untrusted workspace (a search imports the module's file).");
    return;
  }
  const given = target(args);
  let uri: string, className: string;
  if (given) {
    [uri, className] = given;
  } else {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return;
    const actions = (await vscode.commands.executeCommand<vscode.CodeAction[]>(
      "vscode.executeCodeActionProvider", editor.document.uri, editor.selection)) ?? [];
    const action = actions.find((a) => a.command && (a.command.command === SERVER.optimize || a.command.command === UI.optimize));
    if (!action?.command?.arguments) {
      void vscode.window.showInformationMessage("Put the cursor inside an nn.Module class with example inputs.");
      return;
    }
    [uri, className] = action.command.arguments as [string, string];
  }
  const job = await server<JobSummary & { error?: string }>(SERVER.optimize, uri, className);
  if (job.error) {
    void vscode.window.showErrorMessage(`AdaExplore: ${job.error}`);
    return;
  }
  startPolling();
  const final = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `AdaExplore: ${className}`, cancellable: true },
    async (progress, token) => {
      token.onCancellationRequested(() => void server(SERVER.cancel, job.id));
      let last = 0;
      for (;;) {
        const current = (await jobs()).find((j) => j.id === job.id);
        if (!current || !isActive(current)) return current;
        progress.report({ message: jobLine(current), increment: increment(last, current) });
        last = current.step;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    });
  if (final?.state === "done") {
    const choice = await vscode.window.showInformationMessage(`AdaExplore: ${className} — ${final.message}`, "Preview", "Apply");
    if (choice === "Preview") await preview(uri, className);
    if (choice === "Apply") await apply(uri, className);
  } else if (final?.state === "failed") {
    void vscode.window.showErrorMessage(`AdaExplore: ${className} — ${final.message}`);
  }
}

async function preview(...args: unknown[]): Promise<void> {
  const given = target(args) ?? (results && await targetInActiveEditor(results, "preview"));
  if (!given) return;
  const shown = await server<{ uri?: string; text?: string; error?: string }>(SERVER.preview, ...given);
  if (shown.error || !shown.uri) {
    void vscode.window.showErrorMessage(`AdaExplore: ${shown.error ?? "no preview"}`);
    return;
  }
  await vscode.commands.executeCommand("vscode.diff", vscode.Uri.parse(given[0]), vscode.Uri.parse(shown.uri),
    `${given[1]}: original ↔ AdaExplore`);
}

async function apply(...args: unknown[]): Promise<void> {
  const given = target(args) ?? (results && await targetInActiveEditor(results, "apply"));
  if (!given) return;
  // One question, here: for an untimed result it is the server's own question (the lens carries it), sent back
  // as `confirmed` so that the server does not ask a second time.
  const question = applyQuestion(args) ?? results?.confirmation(given[0], given[1]);
  const keep = `The original stays as ${given[1]}Reference; Undo reverts it.`;
  const yes = question ? "Apply the untimed version" : "Apply";
  const answer = await vscode.window.showWarningMessage(
    question ? `${question} ${keep}` : `Apply the Triton version of ${given[1]}? ${keep}`,
    { modal: true }, yes, "Preview first");
  if (answer === "Preview first") return preview(...given);
  if (answer !== yes) return;
  const result = await server<{ applied?: boolean; error?: string; reason?: string }>(
    SERVER.apply, ...given, ...(question ? [{ confirmed: question }] : []));
  if (result.error) void vscode.window.showErrorMessage(`AdaExplore: ${result.error}`);
  else if (result.applied === false && result.reason) void vscode.window.showInformationMessage(`AdaExplore: ${result.reason}`);
}

async function showJobs(): Promise<void> {
  const list = await jobs();
  if (list.length === 0) {
    void vscode.window.showInformationMessage("AdaExplore: no jobs in this session.");
    return;
  }
  const pick = await vscode.window.showQuickPick(list.map((j) => ({
    label: `${j.class} — ${j.state}`, description: isActive(j) ? jobLine(j) : j.message, detail: j.uri, job: j,
  })), { title: "AdaExplore jobs (pick one to cancel it)" });
  if (pick && isActive(pick.job)) await server(SERVER.cancel, pick.job.id);
}

async function cancelJob(): Promise<void> {
  const active = (await jobs()).filter(isActive);
  const pick = await vscode.window.showQuickPick(active.map((j) => ({ label: j.class, description: jobLine(j), job: j })),
    { title: "Cancel which AdaExplore job?" });
  if (pick) await server(SERVER.cancel, pick.job.id);
}

async function showRules(): Promise<void> {
  const python = await interpreter();
  const device = String(vscode.workspace.getConfiguration("adaexplore").get("device") ?? "auto");
  const args = ["-m", "adaexplore_core.cli", "rules", "list", "--device", device];
  const cacheDir = String(vscode.workspace.getConfiguration("adaexplore").get("cacheDir") ?? "");
  if (cacheDir) args.push("--cache-dir", cacheDir);
  execFile(python, args, { timeout: 60000 }, (error, stdout, stderr) => {
    rulesOutput?.clear();
    rulesOutput?.appendLine(error ? `adaexplore rules list failed: ${stderr || error.message}` : stdout);
    rulesOutput?.show(true);
  });
}

async function setApiKey(context: vscode.ExtensionContext): Promise<void> {
  const key = await vscode.window.showInputBox({ prompt: "API key for the LLM endpoint (kept in VS Code's secret storage)", password: true, ignoreFocusOut: true });
  if (key === undefined) return;
  if (key) await context.secrets.store(SECRET_KEY, key);
  else await context.secrets.delete(SECRET_KEY);
  await restart(context);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("AdaExplore");
  rulesOutput = vscode.window.createOutputChannel("AdaExplore Rules");
  status = new StatusView();
  results = new ResultIndex();
  context.subscriptions.push(output, rulesOutput, status, results,
    vscode.commands.registerCommand(UI.showLogs, () => output?.show(true)),
    vscode.workspace.onDidCloseTextDocument((document) => results?.forget(document.uri)),
    vscode.commands.registerCommand(UI.optimize, optimize),
    vscode.commands.registerCommand(UI.preview, preview),
    vscode.commands.registerCommand(UI.apply, apply),
    vscode.commands.registerCommand(UI.showJobs, showJobs),
    vscode.commands.registerCommand(UI.cancel, cancelJob),
    vscode.commands.registerCommand(UI.showRules, showRules),
    vscode.commands.registerCommand(UI.setApiKey, () => setApiKey(context)),
    vscode.commands.registerCommand(UI.restart, () => restart(context)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("adaexplore.interpreter")) void restart(context);
    }));
  const api = await pythonApi();
  const onChange = (api as { environments?: { onDidChangeActiveEnvironmentPath?: vscode.Event<unknown> } } | undefined)
    ?.environments?.onDidChangeActiveEnvironmentPath;
  if (onChange) context.subscriptions.push(onChange(() => void restart(context)));
  await startClient(context);
}

export async function deactivate(): Promise<void> {
  if (pollTimer) clearInterval(pollTimer);
  if (client) await client.stop();
}
