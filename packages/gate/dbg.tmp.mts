import { captureExplicit, readCorrection } from './src/index.ts';

for (const s of process.argv.slice(2))
  console.log(
    JSON.stringify(s),
    '\n  capture:',
    JSON.stringify(captureExplicit(s)),
    '\n  correction:',
    JSON.stringify(readCorrection(s)),
  );

import { speaksOfOthers } from './src/index.ts';

for (const s of [
  'Bologna won 3–1 last night and the whole city was honking till 2am',
  'a Dra. Fernanda Lobo entrou de férias, só volta em abril',
  'Mein Chef bei Siemens Energy hat heute gekündigt, mal sehen wer nachkommt.',
  "my brother just bought a flat in Valparaíso too, so we're basically neighbours now lol",
  'Lucía y yo lo dejamos hace dos semanas',
  'I left Zillow',
  'Biscuit passed away last night',
  'stopped paying for spotify, we use youtube music now',
  'Noor and I broke up',
])
  console.log('others?', speaksOfOthers(s), s);
