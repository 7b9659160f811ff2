// The owner lock every Discord handler runs first.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OwnerGate } from './gate.js';

describe('OwnerGate', () => {
  const gate = new OwnerGate('111111111111111111');
  const base = { authorIsBot: false, guildId: null, selfId: '999999999999999999' };
  it('lets only the owner in a DM through', () => {
    expect(gate.check({ ...base, authorId: '111111111111111111' })).toEqual({ owner: true });
    expect(gate.check({ ...base, authorId: '222222222222222222' })).toMatchObject({
      reason: 'stranger',
    });
    expect(gate.check({ ...base, authorId: '111111111111111111', guildId: '5' })).toMatchObject({
      reason: 'guild',
    });
    expect(
      gate.check({ ...base, authorId: '111111111111111111', authorIsBot: true }),
    ).toMatchObject({ reason: 'bot' });
    expect(gate.check({ ...base, authorId: '999999999999999999' })).toMatchObject({
      reason: 'self',
    });
  });
  it('fails closed without an owner id', () => {
    expect(() => new OwnerGate('')).toThrow(/owner id/);
    expect(() => new OwnerGate(undefined)).toThrow(/owner id/);
  });
});

describe('the owner guard has one home', () => {
  it('only bot.ts listens to discord.js events (where guarded() wraps every user-facing one)', () => {
    const dir = new URL('./', import.meta.url);
    const listeners = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .filter((f) => /\.(on|once)\(\s*Events\./.test(readFileSync(new URL(f, dir), 'utf8')));
    expect(listeners).toEqual(['bot.ts']);
  });
});
