import type { ProjectedContext } from "../../core/context.js";
import type { SessionEntry } from "../../core/entry.js";
import { extendContext } from "./extend-context.js";

/**
 * A backend's last context and the entry it is at. Entries are append-only and name their parent,
 * so the path to an entry, and its context, never change: the kept context stays right for as
 * long as that entry is asked for. A leaf moved elsewhere (by the agent, the user or another
 * writer) simply asks for another entry, which is projected afresh.
 */
export class ContextCache {
  private kept: { anchor: string | null; context: ProjectedContext } | undefined;

  /** The context at `anchor` (an entry of the session, or null): the kept one, else `project()`'s. */
  async at(
    anchor: string | null,
    project: () => ProjectedContext | Promise<ProjectedContext>,
  ): Promise<ProjectedContext> {
    if (this.kept?.anchor === anchor) return this.kept.context;
    const context = await project();
    this.kept = { anchor, context };
    return context;
  }

  /** After the backend appended `entry`: a context kept at its parent moves on to it. */
  appended(entry: SessionEntry): void {
    const kept = this.kept;
    if (kept === undefined || kept.anchor !== entry.parentId) return;
    const context = extendContext(kept.context, entry);
    this.kept = context === null ? undefined : { anchor: entry.id, context };
  }
}
