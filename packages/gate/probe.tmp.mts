import { captureExplicit, readCorrection } from './src/index.ts';

const lines = [
  'we moved to Porto last month',
  "I'm based in Berlin now",
  'my new job is at Stripe',
  'started a new job at Stripe',
  'I work for Stripe now',
  "I'm at Stripe now",
  'now working at Stripe',
  "I'm now living in Berlin",
  'I go by Alex now',
  "I'm pescatarian these days",
  'my girlfriend is Maya now',
  'I got a new phone number: 555 0199',
  'my email changed to x@y.com',
  'actually I prefer tea now',
  "I've switched to Android",
  'relocated to Austin',
  "Lyon is behind me, I'm in Berlin now",
  "I don't eat meat anymore",
  'we live in Porto now',
  "I'm with Maya now",
  'joined Stripe in January',
  "these days I'm at Stripe",
  "I'm working from Lisbon now",
  'home is Berlin now',
  "I'm Berlin-based now",
];
for (const s of lines) {
  const c = captureExplicit(s);
  const r = readCorrection(s);
  console.log(
    JSON.stringify(s).padEnd(45),
    c ? `${c.kind}/${c.key}=${c.value}` : '-',
    r ? `| ${r.shape} ${r.slot?.key ?? ''} obj=${r.object} to=${r.to ?? ''}` : '',
  );
}
