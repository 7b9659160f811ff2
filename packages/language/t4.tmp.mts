import { scanSecrets } from './src/secrets/detect.ts';

const ctx = "the alarm panel at the shop keeps beeping, what's the disarm code again";
for (const s of [
  "it's 6604 btw — and the ADT engineer is on 0161 496 0732",
  'no idea, ask Sam',
  'found it: x7Gp-22aa-Moose',
])
  console.log(
    s,
    scanSecrets(s, { context: ctx }).map((f) => s.slice(f.start, f.end)),
    scanSecrets(s, { context: 'what was the wifi password at the cabin?' }).map((f) =>
      s.slice(f.start, f.end),
    ),
  );
