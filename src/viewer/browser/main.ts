/**
 * The viewer page's script, bundled by esbuild (src/viewer/page-script.ts) into one classic script
 * that src/viewer/page.ts inlines. The page's HTML carries how to start (`<script id="boot">`): the
 * local viewer lists sessions from its JSON routes and asks for each session's shape, then for
 * entries and context a click at a time; the service's page signs in and asks the `/v1` API as
 * that user (service-data.ts); the single-file export indexes its inlined session and answers the
 * same questions itself, with the server's own functions.
 */
import type { ViewerBoot } from "../boot.js";
import { LoadedSession } from "../loaded-session.js";
import { diffOf, statsOf } from "../session-insights.js";
import { installActions } from "./actions.js";
import { installControls } from "./controls.js";
import { localData, type ViewerData } from "./data.js";
import { byId } from "./dom.js";
import { installFind } from "./find.js";
import { installInsights } from "./insight-panels.js";
import { ServiceData } from "./service-data.js";
import { SessionList } from "./session-list.js";
import { forgetCredential, showSignIn, signOut, storedCredential } from "./sign-in.js";
import { installTestHooks } from "./test-hooks.js";
import { type Answerer, Viewer } from "./viewer.js";

/** When this script started, since the page's time origin (the bench's breakdown of a first paint). */
const scriptAt = performance.now();
const boot = JSON.parse(byId("boot").textContent ?? "") as ViewerBoot;
if (boot.mode === "export") {
  const loaded = LoadedSession.of(boot.session);
  const answer: Answerer = async (_key, at, page) => loaded.select(at, page);
  // A large session's rows get their texts as they are drawn, here as in the live viewer.
  const viewer = new Viewer(boot, answer, () => async (from, to) => loaded.textsOf(from, to));
  installControls(viewer);
  installInsights(viewer, {
    stats: async () => statsOf(loaded),
    diff: async (_key, a, b) => diffOf(loaded, a, b),
  });
  const hooks = installTestHooks(viewer, async () => {});
  document.body.classList.add("export");
  viewer.openSession(loaded.shape);
  hooks.ready = true;
} else if (boot.mode === "service") {
  document.body.classList.add("service");
  byId("sign-out").addEventListener("click", signOut);
  const credential = storedCredential();
  if (credential === null) showSignIn();
  else {
    const refused = (message: string) => {
      forgetCredential();
      showSignIn(`Signed out: ${message}`);
    };
    startLive(new ServiceData(credential, refused));
  }
} else startLive(localData());

/** The live page over its data: the list, the tree and panel, search and, where allowed, writes. */
function startLive(data: ViewerData): void {
  const viewer = new Viewer(
    boot,
    (key, at, page) => data.answer(key, at, page),
    (key) => data.texts(key),
  );
  viewer.timings.scriptAt = scriptAt;
  installControls(viewer);
  const list = new SessionList(viewer, data);
  installFind(data, viewer);
  installInsights(viewer, data);
  if (data.actions) installActions(viewer, data.actions, list);
  list.start(installTestHooks(viewer, (key) => list.show(key)));
}
