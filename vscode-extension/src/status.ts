// What the user sees of the server without asking: a language status item for Python files (server state, job
// progress; its link shows the logs) and a status bar item while jobs run (click: the job list).
import * as vscode from "vscode";
import { JobSummary, ServerState, UI, languageStatus, statusText } from "./logic";

export class StatusView implements vscode.Disposable {
  private readonly language: vscode.LanguageStatusItem;
  private readonly bar: vscode.StatusBarItem;
  private state: ServerState = "starting";
  private jobs: JobSummary[] = [];
  private interpreter = "";
  private problem = "";

  constructor() {
    this.language = vscode.languages.createLanguageStatusItem("adaexplore.server", { language: "python" });
    this.language.name = "AdaExplore";
    this.language.command = { title: "Show logs", command: UI.showLogs };
    this.bar = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
    this.bar.command = UI.showJobs;
    this.render();
  }

  server(state: ServerState, interpreter: string, problem = ""): void {
    this.state = state;
    this.interpreter = interpreter;
    this.problem = problem;
    this.render();
  }

  jobList(jobs: JobSummary[]): void {
    this.jobs = jobs;
    this.render();
  }

  private render(): void {
    const status = languageStatus(this.state, this.jobs, this.interpreter, this.problem);
    this.language.text = status.text;
    this.language.detail = status.detail;
    this.language.busy = status.busy;
    this.language.severity = status.error ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
    const text = statusText(this.jobs);
    if (text) {
      this.bar.text = text;
      this.bar.show();
    } else {
      this.bar.hide();
    }
  }

  dispose(): void {
    this.language.dispose();
    this.bar.dispose();
  }
}
