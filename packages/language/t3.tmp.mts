import { scanSecrets } from './src/secrets/detect.ts';

for (const s of process.argv.slice(2))
  console.log(
    JSON.stringify(s.slice(0, 60)),
    scanSecrets(s).map((f) => `${f.kind}:${s.slice(f.start, f.end)}`),
  );
