/**
 * Which IP addresses `fetch_url` may reach: public unicast only, unless the owner allows private
 * ones. The ranges come from `ipaddr.js` (its `range()` names the IANA special-purpose blocks of
 * RFC 6890 and its successors); an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is judged as its
 * IPv4 address.
 *
 * @module
 */
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** How an address was judged: `range` is ipaddr.js's name for its block (`unicast` for public). */
export interface AddressClass {
  /** The address as judged (an IPv4-mapped IPv6 address is given as its IPv4 form). */
  address: string;
  /** `unicast`, `loopback`, `private`, `linkLocal`, `carrierGradeNat`, `multicast`, `unspecified`, … or `invalid`. */
  range: string;
  /** Whether a request may go there without `allowPrivate`: only `unicast`. */
  public: boolean;
}

/** IPv4-compatible IPv6 (`::a.b.c.d`, deprecated by RFC 4291), which ipaddr.js calls unicast. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Classifies an IP address (v4 or v6, brackets allowed). Everything but public unicast is refused:
 * loopback, private (10/8, 172.16/12, 192.168/16), unique-local (fc00::/7), link-local
 * (169.254/16, fe80::/10), CGNAT (100.64/10), multicast, unspecified, broadcast, reserved and
 * documentation blocks, and the v6 transition forms that embed an IPv4 address (6to4, Teredo,
 * NAT64, IPv4-compatible).
 */
export function classifyAddress(input: string): AddressClass {
  const text = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  if (!ipaddr.isValid(text)) return { address: text, range: 'invalid', public: false };
  const address = ipaddr.process(text);
  let range: string = address.range();
  if (address.kind() === 'ipv6' && range === 'unicast' && address.match(IPV4_COMPATIBLE)) {
    range = 'ipv4Compatible';
  }
  return { address: address.toString(), range, public: range === 'unicast' };
}

/** Whether `host` (a URL's hostname) is an IP literal rather than a name. */
export function isIpLiteral(host: string): boolean {
  const text = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIP(text) !== 0;
}

/** The error a refused address raises inside the connection (recognised by {@link findRefusal}). */
export class RefusedAddressError extends Error {
  /** @param host - the name that was looked up; @param judged - the address that was refused. */
  constructor(
    readonly host: string,
    readonly judged: AddressClass,
  ) {
    super(`${host} resolves to ${judged.address}, a ${judged.range} address`);
    this.name = 'RefusedAddressError';
  }
}

/** The {@link RefusedAddressError} in an error or its chain of causes, if any. */
export function findRefusal(error: unknown): RefusedAddressError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current; depth++) {
    if (current instanceof RefusedAddressError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A DNS lookup for the connection itself: it resolves every address of the name and refuses the
 * connection when any is not public (unless `allowPrivate`), so a name that resolves differently
 * between a check and the connection (DNS rebinding) cannot reach a private address.
 */
export function guardedLookup(
  allowPrivate: boolean,
  resolve: typeof dnsLookup = dnsLookup,
  classify: (address: string) => AddressClass = classifyAddress,
): LookupFunction {
  return (hostname, options, callback) => {
    const family =
      options.family === 'IPv4' || options.family === 4
        ? 4
        : options.family === 'IPv6' || options.family === 6
          ? 6
          : 0;
    resolve(hostname, { all: true, family }, (error, addresses) => {
      if (error) return callback(error, []);
      if (!allowPrivate) {
        for (const entry of addresses) {
          const judged = classify(entry.address);
          if (!judged.public) return callback(new RefusedAddressError(hostname, judged), []);
        }
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname} has no address`), []);
      callback(null, first.address, first.family);
    });
  };
}
