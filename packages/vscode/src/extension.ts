// The agent-surface extension: starts `agent-surface lsp` for the workspace and shows its
// diagnostics (the compiler's, as `agent-surface check` reports them) next to TypeScript's.

import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";
import { serverCommand } from "./binary";

let client: LanguageClient | undefined;

function folders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
}

async function start(output: vscode.OutputChannel): Promise<void> {
  const setting = vscode.workspace.getConfiguration("agentSurface").get<string>("path");
  const server = serverCommand(setting, folders());
  output.appendLine(`agent-surface: starting ${server.command} ${server.args.join(" ")} (${server.source})`);
  const serverOptions: ServerOptions = {
    command: server.command,
    args: server.args,
    options: { shell: server.shell, cwd: folders()[0] },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "typescript" },
      { scheme: "file", language: "typescriptreact" },
    ],
    outputChannel: output,
  };
  client = new LanguageClient("agentSurface", "agent-surface", serverOptions, clientOptions);
  try {
    await client.start();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    void vscode.window.showErrorMessage(
      `agent-surface: could not start ${server.command} (${message}). Install @agent-surface/cli in the workspace ` +
        "(npm install --save-dev @agent-surface/cli), put agent-surface on PATH, or set agentSurface.path.",
    );
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) await running.stop();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("agent-surface");
  context.subscriptions.push(output);
  context.subscriptions.push(
    vscode.commands.registerCommand("agentSurface.restart", async () => {
      await stop();
      await start(output);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("agentSurface.path")) {
        await stop();
        await start(output);
      }
    }),
  );
  await start(output);
}

export function deactivate(): Promise<void> {
  return stop();
}
