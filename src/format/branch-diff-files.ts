/**
 * The files a tool call writes, for `diff`: pi's `write` and `edit` (`path`), Claude Code's
 * `Write`, `Edit`, `MultiEdit` (`file_path`) and `NotebookEdit` (`notebook_path`), and Codex's
 * `apply_patch`, whose only argument is the patch text (its `*** Add/Update/Delete File:` and
 * `*** Move to:` lines name the files). Reading tools (`read`, `Read`, `grep`…) touch nothing, and
 * neither does a shell command: what it wrote cannot be known from the call.
 */

/** Tools that write files by a path argument, by lower-cased name. */
const PATH_TOOLS = new Set(["write", "edit", "multiedit", "notebookedit"]);
const PATH_KEYS = ["path", "file_path", "filePath", "notebook_path"] as const;
const PATCH_TOOLS = new Set(["apply_patch", "applypatch"]);
const PATCH_FILE_LINE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm;

/** Whether a tool of this name writes files (so its calls are listed with the files). */
export function isFileTool(name: string): boolean {
  const lower = name.toLowerCase();
  return PATH_TOOLS.has(lower) || PATCH_TOOLS.has(lower);
}

/** The files a call of tool `name` with `args` writes; [] for any other tool. */
export function filesWrittenBy(name: string, args: unknown): string[] {
  const lower = name.toLowerCase();
  const record = args && typeof args === "object" ? (args as Record<string, unknown>) : {};
  if (PATH_TOOLS.has(lower)) {
    for (const key of PATH_KEYS) {
      const value = record[key];
      if (typeof value === "string" && value !== "") return [value];
    }
    return [];
  }
  if (PATCH_TOOLS.has(lower)) {
    const patch = [record.input, record.patch].find((value) => typeof value === "string") as
      | string
      | undefined;
    if (patch === undefined) return [];
    return [...new Set([...patch.matchAll(PATCH_FILE_LINE)].map((match) => (match[1] as string).trim()))];
  }
  return [];
}
