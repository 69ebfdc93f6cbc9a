// The Python interpreter that runs the language server: which one (the adaexplore.interpreter setting, else the
// Python extension's), whether it has adaexplore[server], and a visible pip install when it does not.
import * as vscode from "vscode";
import { execFile } from "node:child_process";
import { homedir } from "node:os";
import { PythonApiLike, ProbeResult, SERVER_REQUIREMENT, chooseInterpreter, classifyProbe, probeScript } from "./logic";

const PROBE_TIMEOUT_MS = 30000;
export const INSTALL_TASK_TYPE = "adaexplore";

export async function pythonApi(): Promise<PythonApiLike | undefined> {
  const ext = vscode.extensions.getExtension("ms-python.python");
  if (!ext) return undefined;
  try {
    return (await ext.activate()) as PythonApiLike;
  } catch {
    return undefined;
  }
}

export async function interpreter(): Promise<string> {
  const setting = vscode.workspace.getConfiguration("adaexplore").get<string>("interpreter");
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  return chooseInterpreter(await pythonApi(), setting, folder, { workspaceFolder: folder?.fsPath, userHome: homedir() });
}

/** Runs the probe in `python`: ready, missing modules, or unusable (not found, not Python, crashed). */
export function probe(python: string): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(python, ["-c", probeScript()], { timeout: PROBE_TIMEOUT_MS }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
      resolve(classifyProbe(code, String(stdout), error ? `${stderr || ""} ${error.message}` : ""));
    });
  });
}

/** Offers to pip install the server extra into `python`, as a task the user watches in the terminal. Resolves
 * true when the install ran and succeeded, false when it was declined or failed. */
export async function offerInstall(python: string, missing: string[]): Promise<boolean> {
  const answer = await vscode.window.showWarningMessage(
    `AdaExplore needs ${SERVER_REQUIREMENT} in ${python} (missing: ${missing.join(", ")}). Install it there?`,
    "Install", "Choose Interpreter Setting");
  if (answer === "Choose Interpreter Setting") {
    await vscode.commands.executeCommand("workbench.action.openSettings", "adaexplore.interpreter");
    return false;
  }
  if (answer !== "Install") return false;
  const task = new vscode.Task({ type: INSTALL_TASK_TYPE }, vscode.TaskScope.Workspace, `install ${SERVER_REQUIREMENT}`,
    "AdaExplore", new vscode.ProcessExecution(python, ["-m", "pip", "install", SERVER_REQUIREMENT]));
  task.presentationOptions = { reveal: vscode.TaskRevealKind.Always, clear: true };
  const execution = await vscode.tasks.executeTask(task);
  const exitCode = await new Promise<number | undefined>((resolve) => {
    const listener = vscode.tasks.onDidEndTaskProcess((e) => {
      if (e.execution !== execution) return;
      listener.dispose();
      resolve(e.exitCode);
    });
  });
  if (exitCode === 0) return true;
  void vscode.window.showErrorMessage(
    `AdaExplore: pip install ${SERVER_REQUIREMENT} failed in ${python} (exit code ${exitCode}); see the terminal.`);
  return false;
}
