// Which `agent-surface` the extension starts: no VS Code API here, so it is tested in Node.

import * as fs from "node:fs";
import * as path from "node:path";

export interface ServerCommand {
  command: string;
  args: string[];
  /** Why this one: "setting", "workspace" (node_modules/.bin) or "path". */
  source: "setting" | "workspace" | "path";
  /** Windows' npm shims are .cmd files, which only a shell runs. */
  shell: boolean;
}

/**
 * The language server's command: the `agentSurface.path` setting (relative to the first
 * workspace folder), else the first workspace folder's `node_modules/.bin/agent-surface` (what
 * `npm install @agent-surface/cli` puts there), else `agent-surface` on PATH.
 */
export function serverCommand(setting: string | undefined, folders: readonly string[], platform: NodeJS.Platform = process.platform): ServerCommand {
  const args = ["lsp"];
  const isCmd = (p: string) => platform === "win32" && /\.(cmd|bat)$/i.test(p);
  if (setting && setting.trim() !== "") {
    const command = path.isAbsolute(setting) || folders.length === 0 ? setting : path.resolve(folders[0], setting);
    return { command, args, source: "setting", shell: isCmd(command) };
  }
  for (const folder of folders) {
    const names = platform === "win32" ? ["agent-surface.cmd", "agent-surface.exe"] : ["agent-surface"];
    for (const name of names) {
      const candidate = path.join(folder, "node_modules", ".bin", name);
      if (fs.existsSync(candidate)) return { command: candidate, args, source: "workspace", shell: isCmd(candidate) };
    }
  }
  return { command: "agent-surface", args, source: "path", shell: platform === "win32" };
}
