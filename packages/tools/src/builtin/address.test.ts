import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { classifyAddress, guardedLookup, RefusedAddressError } from './address.js';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:7f00:1', 'loopback'],
    ['::7f00:1', 'ipv4Compatible'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:7f00:1::', '6to4'],
    ['not-an-ip', 'invalid'],
  ])('refuses %s (%s)', (address, range) => {
    const judged = classifyAddress(address);
    expect(judged.range).toBe(range);
    expect(judged.public).toBe(false);
  });

  it.each([
    ['93.184.215.14', '93.184.215.14'],
    ['8.8.8.8', '8.8.8.8'],
    ['2606:4700::1111', '2606:4700::1111'],
    ['[2606:4700::1111]', '2606:4700::1111'],
    ['::ffff:93.184.215.14', '93.184.215.14'],
  ])('allows the public address %s', (address, shown) => {
    expect(classifyAddress(address)).toEqual({ address: shown, range: 'unicast', public: true });
  });
});

/** A resolver that answers every name with the given addresses. */
function fakeResolver(addresses: LookupAddress[]) {
  return ((
    _host: string,
    _options: unknown,
    callback: (e: Error | null, a: LookupAddress[]) => void,
  ) => callback(null, addresses)) as unknown as typeof import('node:dns').lookup;
}

function lookupOnce(allowPrivate: boolean, addresses: LookupAddress[], all: boolean) {
  const lookup = guardedLookup(allowPrivate, fakeResolver(addresses));
  return new Promise<{ error: Error | null; address: unknown }>((resolve) =>
    lookup('example.test', { all }, (error, address) => resolve({ error, address })),
  );
}

describe('guardedLookup', () => {
  const mixed = [
    { address: '93.184.215.14', family: 4 },
    { address: '10.0.0.5', family: 4 },
  ];

  it('refuses a name when any of its addresses is not public (control: all public passes)', async () => {
    const refused = await lookupOnce(false, mixed, true);
    expect(refused.error).toBeInstanceOf(RefusedAddressError);
    expect(refused.error?.message).toBe('example.test resolves to 10.0.0.5, a private address');
    const allowed = await lookupOnce(false, [{ address: '2606:4700::1111', family: 6 }], false);
    expect(allowed).toEqual({ error: null, address: '2606:4700::1111' });
  });

  it('lets private addresses through when allowPrivate is set', async () => {
    const allowed = await lookupOnce(true, mixed, true);
    expect(allowed).toEqual({ error: null, address: mixed });
  });
});
