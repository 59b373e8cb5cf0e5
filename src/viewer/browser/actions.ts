/**
 * The panel's writes on the service (check out, label, fork) and the header's export. Each write
 * names the revision the page shows (data.ts); one refused because the session moved since says
 * so and reads the session again, so the user decides on what is there now.
 */
import { isSessionTreeError } from "../../core/errors.js";
import type { SessionActions } from "./data.js";
import { byId, el } from "./dom.js";
import type { SessionList } from "./session-list.js";
import type { Viewer } from "./viewer.js";

const BUTTONS = ["act-checkout", "act-fork", "act-label", "export"];

export function installActions(viewer: Viewer, actions: SessionActions, list: SessionList): void {
  const labelText = byId<HTMLInputElement>("act-label-text");
  viewer.onSelect = (v) => {
    labelText.value = viewer.shown?.model.labels[viewer.entryId(v)] ?? "";
  };
  /** Runs one action on the open session at the selected entry, one at a time. */
  const run = async (what: string, work: (key: string, entryId: string) => Promise<string>) => {
    const key = viewer.shown?.shape.key;
    const entryId = viewer.selected >= 0 ? viewer.entryId(viewer.selected) : "";
    if (!key) return;
    setBusy(true);
    status(`${what}…`, false);
    try {
      status(await work(key, entryId), false);
    } catch (err) {
      if (isSessionTreeError(err, "conflict")) {
        await list.refresh(entryId || undefined).catch(() => {});
        status(
          `Not done: this session changed since it was shown (someone else wrote to it). ` +
            `It has been read again and nothing was overwritten: look, then ${what} again.`,
          true,
        );
      } else status(`Could not ${what}: ${(err as Error).message}`, true);
    } finally {
      setBusy(false);
    }
  };
  byId("act-checkout").addEventListener("click", () =>
    run("check out", async (key, id) => {
      await actions.checkout(key, id);
      await list.refresh(id);
      return "Checked out: the leaf is here now.";
    }),
  );
  byId("act-label").addEventListener("click", () =>
    run("label", async (key, id) => {
      const label = labelText.value.trim();
      await actions.label(key, id, label);
      await list.refresh(id);
      return label ? `Labelled “${label}”.` : "Label cleared.";
    }),
  );
  byId("act-fork").addEventListener("click", () =>
    run("fork", async (key, id) => {
      const created = await actions.fork(key, id);
      await list.refresh();
      location.hash = `session=${encodeURIComponent(created)}`;
      return `Forked into a new session, ${created}.`;
    }),
  );
  byId("export").addEventListener("click", () =>
    run("export", async (key) => {
      const file = await actions.exportFile(key);
      download(file.name, file.text);
      return `Exported ${file.name}.`;
    }),
  );
}

function setBusy(busy: boolean): void {
  for (const id of BUTTONS) byId<HTMLButtonElement>(id).disabled = busy;
}

function status(text: string, warning: boolean): void {
  const box = byId("act-status");
  box.textContent = text;
  box.classList.toggle("warning", warning);
}

/** Hands a file to the browser's downloads, from memory (no second request, no URL with data). */
function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
  const link = el("a");
  link.href = url;
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
