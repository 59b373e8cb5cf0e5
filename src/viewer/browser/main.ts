/**
 * The viewer page's script, bundled by esbuild (src/viewer/page-script.ts) into one classic script
 * that src/viewer/page.ts inlines. The page's HTML carries how to start (`<script id="boot">`): the
 * live viewer lists sessions from its JSON routes; the single-file export opens its inlined session.
 */
import type { ViewerBoot } from "../boot.js";
import { installControls } from "./controls.js";
import { byId } from "./dom.js";
import { SessionList } from "./session-list.js";
import { installTestHooks } from "./test-hooks.js";
import { Viewer } from "./viewer.js";

const boot = JSON.parse(byId("boot").textContent ?? "") as ViewerBoot;
const viewer = new Viewer(boot);
installControls(viewer);
if (boot.mode === "export") {
  const hooks = installTestHooks(viewer, async () => {});
  document.body.classList.add("export");
  viewer.openSession(boot.session);
  hooks.ready = true;
} else {
  const list = new SessionList(viewer);
  list.start(installTestHooks(viewer, (key) => list.show(key)));
}
