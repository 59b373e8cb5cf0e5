/**
 * Signing in to the service's page: an API key or a token (a JWT, on a server set up for them),
 * sent as `Authorization: Bearer`. It is kept in this tab's sessionStorage only: never in
 * localStorage, a cookie or the address, and gone when the tab closes or the user signs out.
 * The field is no `<form>`, so nothing ever submits it as a query string.
 */
import { byId } from "./dom.js";

const STORAGE_KEY = "sessiontree.credential";

export function storedCredential(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function forgetCredential(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/**
 * Shows the sign-in form (with why, after a refusal). A credential the API accepts is kept and the
 * page starts again with it, at the same address.
 */
export function showSignIn(message = ""): void {
  document.body.classList.add("signed-out");
  const box = byId("signin");
  box.hidden = false;
  byId("empty").hidden = true;
  byId("signin-message").textContent = message;
  const input = byId<HTMLInputElement>("credential");
  const button = byId<HTMLButtonElement>("signin-button");
  const submit = async () => {
    const credential = input.value.trim();
    if (!credential) return;
    button.disabled = true;
    byId("signin-message").textContent = "";
    const refused = await checkCredential(credential);
    button.disabled = false;
    if (refused) {
      byId("signin-message").textContent = refused;
      return;
    }
    sessionStorage.setItem(STORAGE_KEY, credential);
    input.value = "";
    location.reload();
  };
  button.onclick = () => void submit();
  input.onkeydown = (ev) => {
    if (ev.key === "Enter") void submit();
  };
  input.focus();
}

/** Signing out: the credential is forgotten and the page starts again, at no session. */
export function signOut(): void {
  forgetCredential();
  history.replaceState(null, "", location.pathname);
  location.reload();
}

/** Why the API refuses the credential, or null when it accepts it. */
async function checkCredential(credential: string): Promise<string | null> {
  try {
    const res = await fetch("v1/sessions?limit=1", {
      headers: { Authorization: `Bearer ${credential}` },
      credentials: "omit",
      cache: "no-store",
    });
    if (res.ok) return null;
    const body = (await res.json().catch(() => ({}))) as { message?: string };
    return `Not accepted: ${body.message || res.statusText}`;
  } catch (err) {
    return `The server did not answer: ${(err as Error).message}`;
  }
}
