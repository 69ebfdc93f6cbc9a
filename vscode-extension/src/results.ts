// Which classes have a result, per document, as the server's code lenses report them; the context keys that
// show Preview and Apply in the command palette only where they can do something.
import * as vscode from "vscode";
import { CONTEXT, CommandLike, DocumentResults, resultsFromLenses } from "./logic";

export class ResultIndex implements vscode.Disposable {
  private readonly byDocument = new Map<string, DocumentResults>();
  private readonly listener: vscode.Disposable;

  constructor() {
    this.listener = vscode.window.onDidChangeActiveTextEditor(() => this.refreshContext());
    this.refreshContext();
  }

  /** Records the lenses the server just gave for `document` (commands already routed to the extension's). */
  update(document: vscode.Uri, commands: (CommandLike | undefined)[]): void {
    this.byDocument.set(document.toString(), resultsFromLenses(commands));
    this.refreshContext();
  }

  forget(document: vscode.Uri): void {
    this.byDocument.delete(document.toString());
    this.refreshContext();
  }

  /** The classes of `document` with a result for `kind`. */
  classes(document: vscode.Uri, kind: "preview" | "apply"): string[] {
    return this.byDocument.get(document.toString())?.[kind] ?? [];
  }

  /** The question to ask before applying the result of `className` (untimed results), if its lens has one. */
  confirmation(document: string, className: string): string | undefined {
    return this.byDocument.get(document)?.confirm[className];
  }

  private refreshContext(): void {
    const document = vscode.window.activeTextEditor?.document.uri;
    const results = document ? this.byDocument.get(document.toString()) : undefined;
    void vscode.commands.executeCommand("setContext", CONTEXT.canPreview, (results?.preview.length ?? 0) > 0);
    void vscode.commands.executeCommand("setContext", CONTEXT.canApply, (results?.apply.length ?? 0) > 0);
  }

  dispose(): void {
    this.listener.dispose();
  }
}

/** The [uri, class] a palette Preview/Apply acts on in the active editor: its only result, or the one the user
 * picks; undefined when there is none or the pick was dismissed. */
export async function targetInActiveEditor(index: ResultIndex, kind: "preview" | "apply"): Promise<[string, string] | undefined> {
  const document = vscode.window.activeTextEditor?.document.uri;
  const classes = document ? index.classes(document, kind) : [];
  if (!document || classes.length === 0) {
    void vscode.window.showInformationMessage(`AdaExplore: no result to ${kind} in this editor. Run Optimize first.`);
    return undefined;
  }
  const chosen = classes.length === 1 ? classes[0]
    : await vscode.window.showQuickPick(classes, { title: `AdaExplore: ${kind} the result of which class?` });
  return chosen ? [document.toString(), chosen] : undefined;
}
