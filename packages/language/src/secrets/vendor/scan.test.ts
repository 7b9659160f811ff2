// The vendored gitleaks rules inside keel's scan: an issuer's token keel had no regex for is
// withheld, a translated case-insensitive rule reads both cases, and the one-pass keyword index
// runs the same rules as looking for each keyword separately.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../redact.js';
import { GITLEAKS_RULES } from './gitleaks-rules.js';
import { vendorFindings } from './scan.js';

const HEX = '9f2c4e7a1b3d5f6089a7c2e4b6d8f0a1';

describe('the vendored rules', () => {
  it('withhold an issuer token keel had no regex of its own for', () => {
    expect(redactSecrets(`shopify admin token shpat_${HEX} for the store`)).toBe(
      'shopify admin token [secret withheld] for the store',
    );
    expect(redactSecrets(`do token: dop_v1_${HEX}${HEX} ok`)).toBe(
      'do token: [secret withheld] ok',
    );
    // Control: the same prefix with too few characters is not a token.
    expect(redactSecrets('the prefix shpat_ starts Shopify tokens')).toBe(
      'the prefix shpat_ starts Shopify tokens',
    );
  });

  it('read a rule that was case-insensitive upstream in both cases', () => {
    const npm = GITLEAKS_RULES.find((r) => r.id === 'npm-access-token')!;
    const re = new RegExp(npm.source, 'u');
    expect(re.test('npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 ')).toBe(true);
    expect(re.test('NPM_abcdefghijklmnopqrstuvwxyz0123456789 ')).toBe(true);
  });

  it('run the same rules through the keyword index as by looking for each keyword', () => {
    const root = join(import.meta.dirname, '../../../../../tests/fixtures/data/longmemeval');
    const texts = [
      `shpat_${HEX}`,
      `xoxb-1234567890-1234567890123-${HEX}`,
      ...readdirSync(root).flatMap((f) =>
        (
          JSON.parse(readFileSync(join(root, f), 'utf8')) as {
            haystack_sessions: { content: string }[][];
          }
        ).haystack_sessions
          .flat()
          .map((t) => t.content),
      ),
    ];
    let found = 0;
    for (const text of texts) {
      const naive = vendorFindings(text, false);
      expect(vendorFindings(text)).toEqual(naive);
      found += naive.length;
    }
    expect(found).toBeGreaterThanOrEqual(2); // control: there was something to find
  });
});
