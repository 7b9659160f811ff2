/**
 * Setup's step 3: the time zone, quiet hours and the nightly hour.
 *
 * @module
 */
import * as p from '@clack/prompts';
import { type ConfigChanges, machineZone } from '@keel/host';
import { ask, type Ctx, fileValues, save, text, validFor, value } from './context.js';

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
  const quietNow = text(values.quiet_hours);
  const quiet = await ask(ctx, () =>
    p.text({
      message: `Quiet hours, when keel sends you nothing: START-END in your time zone, e.g. 23-7 (Enter: ${quietNow ?? 'none'}${quietNow ? '; "none" clears them' : ''})`,
      placeholder: quietNow ?? 'none',
      defaultValue: quietNow ?? 'none',
      validate: (v) => (/^\s*none\s*$/i.test(v ?? '') ? undefined : validFor('quiet_hours')(v)),
    }),
  ).then((v) => v.trim());
  const nightNow = text(values['think.night_hour']) ?? '3';
  const night = await value(
    ctx,
    'think.night_hour',
    'The hour (0 to 23) from which the nightly curator runs',
    nightNow,
  );
  const changes: ConfigChanges = {};
  if (zone !== zoneNow) changes.time_zone = zone;
  if (/^none$/i.test(quiet)) {
    if (quietNow) changes.quiet_hours = null;
  } else if (quiet && quiet !== quietNow) changes.quiet_hours = quiet;
  if (night !== nightNow) changes['think.night_hour'] = Number(night);
  save(ctx, changes);
  const quietText = changes.quiet_hours === null ? 'none' : (changes.quiet_hours ?? quietNow);
  p.log.success(
    `Time zone ${zone}; quiet hours ${quietText ?? 'none'}; the night starts at ${night}:00.`,
  );
}
