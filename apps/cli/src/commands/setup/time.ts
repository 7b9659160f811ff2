/**
 * Setup's step 3: the time zone, quiet hours and the nightly hour, each saved as soon as it is
 * given (Ctrl-C at the next question keeps it).
 *
 * @module
 */
import * as p from '@clack/prompts';
import { describeQuietHours, machineZone, parseQuietHours } from '@keel/host';
import { ask, type Ctx, fileValues, save, text, validFor, value } from './context.js';

const NONE = /^\s*none\s*$/i;

/** Quiet hours as shown back: the stored form and the clock times (`23-7 (23:00 to 07:00)`). */
function quietShown(stored: string | undefined): string {
  const quiet = stored ? parseQuietHours(stored) : undefined;
  return stored && quiet ? `${stored} (${describeQuietHours(quiet)})` : 'none';
}

/** Step 3: the time zone, quiet hours and the nightly hour. */
export async function timeStep(ctx: Ctx): Promise<void> {
  const values = fileValues(ctx);
  const zoneNow = text(values.time_zone);
  const zone = await value(
    ctx,
    'time_zone',
    'Your time zone',
    zoneNow ?? machineZone(),
    zoneNow ? undefined : "this machine's",
  );
  if (zone !== zoneNow) save(ctx, { time_zone: zone });

  const quietNow = text(values.quiet_hours);
  const quiet = await ask(ctx, () =>
    p.text({
      message: `Quiet hours, when keel sends you nothing, in your time zone: e.g. 23-7, 11pm-7am or 22:30-06:15 (Enter: ${quietNow ?? 'none'}${quietNow ? '; "none" clears them' : ''})`,
      placeholder: quietNow ?? 'none',
      defaultValue: quietNow ?? 'none',
      validate: (v) => (NONE.test(v ?? '') ? undefined : validFor('quiet_hours')(v)),
    }),
  ).then((v) => v.trim());
  let quietSaved: string | undefined;
  if (NONE.test(quiet)) {
    if (quietNow) save(ctx, { quiet_hours: null });
  } else {
    // Saved in its one stored form (`11pm-7am` is kept as `23-7`), and shown back so.
    save(ctx, { quiet_hours: quiet });
    quietSaved = text(fileValues(ctx).quiet_hours);
  }
  p.log.info(`Quiet hours: ${quietShown(quietSaved)}.`);

  p.log.info(
    'The nightly curator consolidates memory once a night, from the hour you choose: it catches up on turns not yet reflected on, lets unconfirmed beliefs fade, merges duplicates and compacts the journal.',
  );
  const nightNow = text(values['think.night_hour']) ?? '3';
  const night = await value(
    ctx,
    'think.night_hour',
    'The hour (0 to 23) from which the nightly curator runs',
    nightNow,
  );
  if (night !== nightNow) save(ctx, { 'think.night_hour': Number(night) });
  p.log.success(
    `Time zone ${zone}; quiet hours ${quietSaved ?? 'none'}; the night starts at ${night}:00.`,
  );
}
