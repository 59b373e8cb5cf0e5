import { Authenticator } from "../auth/authenticate.js";
import type { Principal } from "../auth/principal.js";

interface Lookup {
  outcome: Promise<Principal>;
  requests: number;
}

/**
 * The authenticator with one lookup per request: the rate-limit middleware, which must know the
 * user before the route runs, looks the credential up (`begin`), and the route's own
 * `authenticate` of the same header, while that request is in flight, gets the same outcome
 * instead of a second database round trip. Requests carrying one header at the same time share
 * the latest lookup (the same credential: the same user, or the same refusal).
 */
export class SharedAuthenticator extends Authenticator {
  private readonly inFlight = new Map<string, Lookup>();

  /** Looks `header` up for a request starting now; `end(header)` when it is answered. */
  begin(header: string): Promise<Principal> {
    const outcome = super.authenticate(header);
    const lookup = this.inFlight.get(header);
    if (lookup) {
      lookup.outcome = outcome;
      lookup.requests++;
    } else this.inFlight.set(header, { outcome, requests: 1 });
    return outcome;
  }

  end(header: string): void {
    const lookup = this.inFlight.get(header);
    if (lookup && --lookup.requests <= 0) this.inFlight.delete(header);
  }

  override authenticate(header: string | undefined): Promise<Principal> {
    const lookup = header === undefined ? undefined : this.inFlight.get(header);
    return lookup ? lookup.outcome : super.authenticate(header);
  }
}
