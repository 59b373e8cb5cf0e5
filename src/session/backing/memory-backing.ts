import type { EntryDraft, SessionEntry, SessionHeader } from "../../core/entry.js";
import type { SessionIssue } from "../../core/issues.js";
import { SessionTree } from "../../core/tree.js";
import { SessionFile } from "../../file/session-file.js";
import { TreeReads, type WholeBacking } from "./backing.js";

/** A session kept in memory only (`SessionManager.inMemory`): nothing is ever written. */
export class MemoryBacking extends TreeReads implements WholeBacking {
  constructor(
    readonly header: SessionHeader,
    readonly tree: SessionTree = new SessionTree(),
    /** A file path the session was given or loaded from, which it never writes (as in pi). */
    readonly path: string | undefined = undefined,
    private readonly issuesOf: () => SessionIssue[] = () => tree.getIssues(),
  ) {
    super();
  }

  /** A new in-memory session holding `entries` (a branched session). */
  static holding(header: SessionHeader, entries: readonly SessionEntry[], path?: string): MemoryBacking {
    const tree = new SessionTree();
    for (const entry of entries) tree.load(entry);
    return new MemoryBacking(header, tree, path);
  }

  /** An existing session file loaded into memory, as pi's in-memory manager does when given one. */
  static fromFile(path: string): MemoryBacking {
    const file = SessionFile.open(path);
    file.close();
    return new MemoryBacking(file.header, file.tree, path, () => file.getIssues());
  }

  append(draft: EntryDraft): SessionEntry {
    return this.tree.append(draft);
  }

  write(build: (tree: SessionTree) => SessionEntry[]): SessionEntry[] {
    return build(this.tree);
  }

  /** A leaf in memory needs no marker: it is gone with the process anyway. */
  persistLeaf(): void {}

  issues(): SessionIssue[] {
    return this.issuesOf();
  }

  refresh(): void {}

  readOnly(): boolean {
    return false;
  }

  whole(): MemoryBacking {
    return this;
  }

  close(): void {}
}
