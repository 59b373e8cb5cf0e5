/**
 * The viewer page's script, bundled by esbuild (src/viewer/page-script.ts) into one classic script
 * that src/viewer/page.ts inlines. The page's HTML carries how to start (`<script id="boot">`): the
 * live viewer lists sessions from its JSON routes and asks for each session's shape, then for
 * entries and context a click at a time; the single-file export indexes its inlined session and
 * answers the same questions itself, with the server's own functions.
 */
import type { ViewerBoot } from "../boot.js";
import type { SelectionAnswer } from "../context-at.js";
import { LoadedSession } from "../loaded-session.js";
import { installControls } from "./controls.js";
import { api, byId } from "./dom.js";
import { SessionList } from "./session-list.js";
import { installTestHooks } from "./test-hooks.js";
import { type Answerer, Viewer } from "./viewer.js";

const boot = JSON.parse(byId("boot").textContent ?? "") as ViewerBoot;
if (boot.mode === "export") {
  const loaded = LoadedSession.of(boot.session);
  const answer: Answerer = async (_key, at, page) => loaded.select(at, page);
  // A large session's rows get their texts as they are drawn, here as in the live viewer.
  const viewer = new Viewer(boot, answer, () => async (from, to) => loaded.textsOf(from, to));
  installControls(viewer);
  const hooks = installTestHooks(viewer, async () => {});
  document.body.classList.add("export");
  viewer.openSession(loaded.shape);
  hooks.ready = true;
} else {
  const answer: Answerer = (key, at, page) => {
    const query = new URLSearchParams({ key, at });
    if (page.tail !== undefined) query.set("tail", String(page.tail));
    if (page.before !== undefined) query.set("before", String(page.before));
    return api<SelectionAnswer>(`api/context?${query}`);
  };
  const texts = (key: string) => (from: number, to: number) =>
    api<{ from: number; texts: string[] }>(
      `api/texts?${new URLSearchParams({ key, from: String(from), to: String(to) })}`,
    );
  const viewer = new Viewer(boot, answer, texts);
  installControls(viewer);
  const list = new SessionList(viewer);
  list.start(installTestHooks(viewer, (key) => list.show(key)));
}
