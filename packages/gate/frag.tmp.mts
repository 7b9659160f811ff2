import { readFragment } from './src/capture/fragment.ts';

for (const s of [
  'Nairobi now.',
  'oh and GP — Dr. Nakamura these days',
  'nouveau numéro : 07 58 20 16 44',
  'fyi mudei de número, agora é (21) 98207-3316',
  "changed my number, it's 0612 345 678 now",
  'new email: sam@x.io',
  'tired now',
  "I'm in Cork now",
  'Mach jetzt eine Ausbildung bei der Sparkasse',
  "so it's on the 3rd now",
  'Arsenal are top of the league now',
])
  console.log(JSON.stringify(s), JSON.stringify(readFragment(s)));
