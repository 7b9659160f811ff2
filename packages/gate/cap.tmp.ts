import { captureExplicit, readCorrection } from './src/index.ts';

for (const s of process.argv.slice(2)) {
  console.log('>>', s);
  console.log('  cap:', JSON.stringify(captureExplicit(s)));
  console.log('  corr:', JSON.stringify(readCorrection(s)));
}
