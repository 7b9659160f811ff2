// Lines and blocks show days in the owner's time zone.

import type { EpisodeResult, Fact } from '@keel/memory';
import { describe, expect, it } from 'vitest';
import { buildStaticBlock } from './blocks.js';
import { formatEpisodeLine, formatFactLine } from './format.js';

// 02:00 UTC on 30 November is still the 29th in UTC-7.
const at = Date.parse('2026-11-30T02:00:00Z');

describe("days in the owner's zone", () => {
  it('an episode line shows the day it was said where the owner is', () => {
    const e: EpisodeResult = {
      type: 'episode',
      id: 7,
      ref: 'e7',
      text: 'the dentist moved my appointment',
      score: 1,
      age_ms: 0,
      age: 'now',
      supports: [],
      provenance: {
        channel: 'terminal',
        role: 'owner',
        speaker: null,
        occurred_at: at,
        source_id: null,
        source_doc: null,
        session: null,
      },
    };
    expect(formatEpisodeLine(e)).toContain('owner, 2026-11-30:');
    expect(formatEpisodeLine(e, 240, 'America/Phoenix')).toContain('owner, 2026-11-29:');
  });

  it("the static block shows since when in the owner's zone", () => {
    const fact = {
      id: 3,
      scope: 'owner',
      kind: 'preference',
      key: 'coffee',
      value: 'oat flat white',
      confidence: 1,
      evidence_count: 1,
      source: 'owner_stated',
      status: 'active',
      valid_from: at,
      valid_to: null,
      created_at: at,
      updated_at: at,
      last_seen_at: at,
    } as unknown as Fact;
    expect(buildStaticBlock([fact]).text).toContain('2026-11-30');
    expect(buildStaticBlock([fact], undefined, 'America/Phoenix').text).toContain('2026-11-29');
  });
});

describe('an as-of answer whose start is unknown', () => {
  it('says so, with the day it ended in the owner’s zone; a known start says nothing of it', () => {
    const f = {
      id: 4,
      kind: 'profile' as const,
      key: 'home',
      value: 'Porto',
      confidence: 1,
      evidence_count: 1,
      source: 'owner_stated' as const,
      status: 'superseded',
    };
    expect(
      formatFactLine({ ...f, start_unknown: true, valid_to: at }, 'America/Phoenix'),
    ).toContain('start unknown, true until 2026-11-29');
    expect(formatFactLine({ ...f, valid_to: at }, 'America/Phoenix')).not.toContain('unknown');
  });
});
