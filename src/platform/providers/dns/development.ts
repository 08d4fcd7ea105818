import type { HostResolver } from './types';

/**
 * Development and tests: names are not looked up. A developer's machine may be offline, and its
 * receivers are on the machine itself (http://127.0.0.1:PORT, WEBHOOK_ALLOW_INSECURE_LOCALHOST), which
 * no resolution check would let through anyway. The URL policy still applies; production always
 * resolves (DohHostResolver), and tests run that adapter against a local DNS-over-HTTPS stand-in.
 */
export class DevelopmentHostResolver implements HostResolver {
  readonly name = 'development';

  async addressesOf(_hostname: string): Promise<null> {
    return null;
  }
}
