/**
 * The pattern gate's clause table: one entry per shape of durable statement, tried in order over
 * one normalised clause (lower case, contractions expanded, lead-ins stripped, starting with its
 * subject). Each entry is [category, name, pattern, extra check]; the first entry that matches a
 * clause is its hit. The words the patterns are written in come from `vocabulary.ts`.
 *
 * @module
 */
import type { BeliefCategory } from '../belief.js';
import { LIFE_PATTERNS } from './life.js';
import {
  ADV,
  APPOINTMENT_MODS,
  APPOINTMENTS,
  CONSIDERED_PLAN,
  HEALTH,
  JOBS,
  LANGUAGES,
  PAST_WHEN_FIRST,
  PAST_WHEN_RE,
  REL,
  STRONG_PLAN,
  TIME,
  WEAK_PLAN,
  WHEN,
} from './vocabulary.js';

/**
 * One entry of {@link CLAUSE_PATTERNS}: the category of a hit, the pattern's name (shown in the
 * verdict's reason), the pattern over a normalised clause, and an optional further check.
 */
export type ClausePattern = readonly [
  BeliefCategory,
  string,
  RegExp,
  /**
   * A further condition on the match, the statement's normalised text (e.g. a date in it) and the
   * clause as written (e.g. a capitalised name in it).
   */
  ((m: RegExpExecArray, statement: string, clause: string) => boolean)?,
];

/** Objects of "I love …" that are reactions to the conversation, not tastes. */
const REACTION_OBJECT =
  /^(?:it|this|that|these|those|them|him|her|you|your|yours|how|what|when|the way|both|either|neither|some of|all of|most of|the (?:idea|ideas|sound|suggestion|suggestions|option|options|look|list|recipe|recipes|plan|first|second|third|last|other|one|ones|tips|advice|answer|answers|response|explanation|example|examples|name|names|title|format|sound of|way|conversation|chat|discussion|talk|article)|to (?:hear|see|know|help|chat|talk|say|admit|bother|ask|be|think))\b/;
const SUGGESTED = /\byou (?:suggested|mentioned|recommended|said|gave|listed|shared|proposed)\b/;
/** "I like the clean lines", "I love the combination of …": a specific thing under discussion. */
const DEFINITE = /^(?:all )?the\b/;
/**
 * Verbs after which "the …" is still a taste: ongoing ones ("I've been loving the …", "I'm a fan
 * of the …"), preferences ("I prefer the aisle seat") and dislikes ("I hate the cold"), which are
 * rarely reactions to a suggestion.
 */
const ONGOING =
  /\b(?:have been|am|into|fan of|obsessed|prefer|hate|hated|dislike|detest|loathe|cannot stand|do not)\b/;
const tasteObject = (m: RegExpExecArray) => {
  const verb = m[1] ?? '';
  const object = (m[2] ?? '').trim();
  return (
    object.length > 1 &&
    !REACTION_OBJECT.test(object) &&
    !SUGGESTED.test(object) &&
    (!DEFINITE.test(object) || ONGOING.test(verb))
  );
};

/**
 * The clause table, grouped by category (corrections, identity, relationships, decisions, plans,
 * dated events, preferences). Order matters within a clause: the first entry that matches wins.
 */
export const CLAUSE_PATTERNS: readonly ClausePattern[] = [
  // corrections
  [
    'correction',
    'no longer',
    new RegExp(
      `^(?:i|we) ${ADV}(?:no longer|do not (?:[\\w-]+ ){1,3}any ?more|am not (?:[\\w-]+ ){1,3}any ?more|` +
        '(?:have |had )?stopped (?:eating|drinking|smoking|working|using|taking|going|seeing|dating|playing|living)|' +
        '(?:have )?quit (?:smoking|drinking|vaping|sugar|meat|coffee|caffeine|alcohol|booze|dairy|gluten|social media)|' +
        '(?:have )?(?:given up|gave up) (?!(?:on|trying|hope|waiting|the idea|that|this|it|halfway|after|when|at|in|' +
        'early|quickly|too|and|because|so|for)\\b)[a-z]+|(?:have )?cut out (?!(?:the|a|an|this|that|it|some|my)\\b)[a-z]+)\\b',
    ),
  ],
  ['correction', 'is actually', /^(?:my|our) [\w' -]{1,40} (?:is|are) actually\b(?! [a-z]+ing\b)/],
  // identity
  [
    'identity',
    'name',
    /^(?:my (?:first |last |full |middle |nick)?name is|i am called|i go by|everyone calls me|(?:please )?call me) \S/,
  ],
  [
    'identity',
    'home',
    new RegExp(
      `^(?:i|we) ${ADV}(?:(?:live|am living|are living|have (?:lived|been living)|grew up|was born|were born|` +
        'was raised|were raised|am based|are based) (?:(?:originally|just|now|currently)\\s+)*(?:in|near|outside|on|at) \\S|' +
        '(?:moved|have moved|relocated|have relocated|emigrated) (?:(?:just|now|back)\\s+)*(?:to|from|here|abroad) ?\\S?)',
    ),
  ],
  ['identity', 'from', /^(?:i|we) (?:am|are|come) (?:originally )?from \S/],
  [
    'identity',
    'work',
    new RegExp(
      `^i ${ADV}(?:work|am working|have been working|have worked) (?:as|at|for|in|from home|remotely|nights|night shifts|part[- ]time|full[- ]time|freelance)\\b`,
    ),
  ],
  [
    'identity',
    'occupation',
    new RegExp(
      `^i am ${ADV}(?:a|an) (?:[\\w-]+ ){0,2}?(?:${JOBS})\\b(?! (?:fan|question|idea)\\b)`,
    ),
  ],
  [
    'identity',
    'work status',
    /^i am (?:now )?(?:retired|self-employed|unemployed|between jobs|on (?:maternity|paternity|sick) leave|a stay-at-home)\b/,
  ],
  [
    'identity',
    'runs a business',
    /^(?:i|we) (?:run|own|manage|started|founded) (?:a|an|my|our) (?:[\w-]+ ){0,2}(?:business|company|shop|store|bakery|restaurant|cafe|café|farm|startup|blog|channel|podcast|practice|studio|clinic|firm|agency)\b/,
  ],
  [
    'identity',
    'health',
    new RegExp(
      `^(?:i|we) am ${ADV}(?:severely |mildly |deathly |very |quite )?(?:allergic|intolerant|lactose[- ]intolerant|` +
        'gluten[- ]intolerant|diabetic|pre-?diabetic|pregnant|epileptic|asthmatic|colou?r[- ]?blind|deaf|' +
        'hard of hearing|blind|autistic|dyslexic|celiac|coeliac|anaemic|anemic|sober|teetotal|vegan|' +
        'vegetarian|pescatarian|kosher|halal|on (?:a )?(?:keto|low-carb|gluten-free|low-fodmap|plant-based|vegan) diet)\\b',
    ),
  ],
  [
    'identity',
    'condition',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have|have got|suffer from|was diagnosed with|got diagnosed with|have been diagnosed with|` +
        'live with|am living with|am recovering from|am being treated for) ' +
        `(?:(?:a|an|type [12]|chronic|severe|mild|early[- ]onset)\\s+)*(?:${HEALTH})\\b`,
    ),
  ],
  [
    'identity',
    'diet',
    /^i (?:do not|cannot|never|will not) (?:eat|drink)\b(?! (?:that|this|it|anything|much|more|now|today|right now)\b)/,
  ],
  [
    'identity',
    'age',
    /^i am (?:\d{1,2}(?: years old| yo)?$|\d{1,2} years old\b|in my (?:early |mid |late )?(?:twenties|thirties|forties|fifties|sixties|seventies|eighties)\b)|^i (?:just )?turned \d{1,2}\b/,
  ],
  [
    'identity',
    'language',
    new RegExp(
      `^i ${ADV}(?:speak|am fluent in|am learning|have been learning|am studying|have been studying|` +
        'am practi[cs]ing|have been practi[cs]ing|grew up speaking) ' +
        `(?:(?:some|a bit of|a little|a little bit of|basic|conversational|fluent|native|my)\\s+)*(?:${LANGUAGES})\\b`,
    ),
  ],
  [
    'identity',
    'hobby',
    new RegExp(
      `^(?:i|we) ${ADV}(?:started|have started|took up|have taken up|began|have begun) ` +
        '(?:collecting|playing|learning|knitting|sewing|painting|baking|running|cycling|climbing|' +
        'gardening|volunteering|practi[cs]ing|studying|writing|drawing|woodworking|swimming|boxing|' +
        'dancing|singing|brewing|fishing|hiking|journaling|meditating|training|crocheting|quilting|' +
        'pottery|yoga|golf|tennis|chess|the (?:piano|guitar|violin|drums|cello))\\b',
    ),
  ],
  [
    'identity',
    'long practice',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have been|have) (?!(?:waiting|looking|trying|searching|thinking|meaning|wondering)\\b)` +
        '(?:[\\w-]+ing|played|practi[cs]ed|collected|run|lived|worked) ' +
        "(?:[\\w'-]+ ){0,4}(?:for (?:\\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|many|several|a few|over \\w+) (?:years?|decades?)|" +
        'since (?:\\d{4}|i was|childhood|college|school|university|high school|last year))\\b',
    ),
  ],
  [
    'identity',
    'membership',
    /^(?:i|we) (?:am|are) (?:(?:also|actually|now|a)\s+)*(?:part of|a member of|member of|on the board of|in) (?:a|an|the|several|two|three|our|my) (?:[\w-]+ ){0,3}(?:groups?|club|team|band|choir|society|league|union|church|community|committee|orchestra)\b/,
  ],
  [
    'identity',
    'kind of person',
    /^i am (?:not )?(?:really )?(?:a|an) [\w-]+ (?:person|owl|lark)\b/,
  ],
  ['identity', 'generation', /^(?:i|we) (?:am|are) (?:a )?(?:first|second|third)[- ]generation\b/],
  [
    'identity',
    'possession',
    /^(?:i|we) (?:have|own|have got) (?:a|an|two|three|four|five|\d+) (?:(?!(?:about|for|with|on|of|in|to|from|my|your|the)\b)[\w-]+ ){0,2}?(?:car|cars|house|flat|apartment|farm|allotment|bike|motorbike|motorcycle|boat|van|truck|business|collection|channel|blog|podcast)\b/,
  ],
  [
    'identity',
    'routine tool',
    /^(?:i|we) (?:have (?:(?:already|also|now)\s+)*been|am|are) (?:(?:already|also|now)\s+)*using [\w' .-]{2,40}? to (?:track|manage|learn|practi[cs]e|plan|log|budget|organi[sz]e|study|meditate)\b/,
  ],
  // relationships
  [
    'relationship',
    'marital status',
    /^i am (?:happily )?(?:married|engaged|divorced|widowed|separated|single|in a relationship|a (?:mum|mom|dad|father|mother|parent|grandparent|grandmother|grandfather|single parent|stepmom|stepmum|stepdad))\b/,
  ],
  [
    'relationship',
    'family',
    /^(?:i|we) (?:have|have got) (?:a|an|two|three|four|five|six|\d+) (?:(?:young|little|grown[- ]up|teenage|adult|older|younger|twin|baby|new|old|rescue|[\w-]+-year-old)\s+)*(?:kids?|children|sons?|daughters?|sisters?|brothers?|siblings|twins|grandchildren|grandkids|granddaughters?|grandsons?|dogs?|cats?|puppy|puppies|kittens?|horses?|goats?|pigs?|chickens?|rabbits?|parrots?|pets?)\b/,
  ],
  [
    'relationship',
    'relation fact',
    new RegExp(
      `^(?:my|our) ${REL}(?:'s)? (?:lives|live|works|work|moved|studies|goes to|go to|just turned|turned \\d|passed away|died|` +
        'has been (?:teaching|helping|living with) me|is (?:teaching|living with) me|got (?:married|engaged|divorced)|' +
        'is (?:getting married|pregnant|expecting|allergic|retired|married|engaged|divorced|moving|' +
        'in (?:college|school|hospital|university|kindergarten|year \\d+|grade \\d+)|\\d+|a [\\w-]+)|' +
        'are (?:\\d+|twins|married|divorced|getting married|moving))\\b',
    ),
  ],
  // decisions
  [
    'decision',
    'decided',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have |had )?(?:finally |just )?(?:decided|chose|have chosen|made (?:up )?(?:my|our) (?:mind|decision)|settled on|committed to|opted)\\b`,
    ),
  ],
  [
    'decision',
    'life change',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have )?(?:quit (?:my|our|the) (?:job|course|degree)|resigned|retired|left my job|handed in my notice|` +
        'accepted (?:a|an|the) (?:job|offer|position|role)|got (?:engaged|married|divorced|a new job|the job|promoted|' +
        'a dog|a cat|a puppy|a kitten)|adopted (?:a|an|two)|signed (?:a|the) (?:lease|contract|mortgage)|' +
        '(?:joined|rejoined) (?:a|an|the|my|our) (?:[\\w-]+ ){0,3}?(?:gym|club|choir|band|team|union|church|society|league|startup|book club)|' +
        'sold (?:my|our) (?:[\\w-]+ )?(?:car|house|flat|apartment|home|business|company)|' +
        'bought (?:a|an|my|our) (?:(?:new|first|used|second-hand|secondhand|electric|hybrid|old|little)\\s+)*' +
        '(?:car|house|home|flat|apartment|condo|bike|e-bike|motorbike|motorcycle|boat|van|truck|piano|property|cottage|place))\\b',
    ),
  ],
  [
    'decision',
    'from now on',
    /^(?:i|we) (?:will|am going to|are going to) (?:stop|quit|never|no longer|give up|cut out|stick to|switch to)\b(?! (?:forget|regret|get tired|stop)\b)/,
  ],
  [
    'decision',
    'going vegan',
    /^(?:i|we) (?:am|are) going (?:vegan|vegetarian|sober|freelance|part[- ]time|back to (?:school|university|college|work))\b/,
  ],
  // plans
  [
    'plan',
    'planning to',
    new RegExp(
      `^(?:i|we) (?:am|are) ${ADV}(?:planning|going|hoping|intending|aiming|about|due|scheduled|set|preparing|getting ready) to (?:${STRONG_PLAN}|(${WEAK_PLAN}))\\b`,
    ),
    (m, sentence) => m[1] === undefined || TIME.test(sentence),
  ],
  [
    'plan',
    'on the way',
    new RegExp(
      `^(?:i|we) (?:am|are) ${ADV}(?:moving|relocating|retiring|emigrating|getting married|having a baby|expecting a baby|` +
        'changing jobs|going back to|switching (?:jobs|careers)|(flying|travell?ing|heading|visiting|leaving|competing|starting|spending))\\b',
    ),
    (m, sentence) => m[1] === undefined || TIME.test(sentence),
  ],
  [
    'plan',
    'planning a',
    /^(?:i|we) (?:am|are) (?:(?:currently|also|now)\s+)*planning (?:a|an|my|our) (?:[\w-]+ ){0,2}(?:trip|move|wedding|holiday|vacation|visit|honeymoon|career change|retirement|relocation|renovation|sabbatical)\b/,
  ],
  [
    'plan',
    'signed up',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have |had )?(?:signed up|enrolled|registered|booked|applied|been accepted|got accepted|got a place|reserved) (?:for|in|to|at|a|an|my|our|on)\\b`,
    ),
  ],
  [
    'plan',
    'want to',
    new RegExp(
      `^(?:i|we) ${ADV}(?:want|hope|plan|intend|aim|am hoping|am aiming|am determined|am going) to (?:${STRONG_PLAN}|${WEAK_PLAN})\\b`,
    ),
    (_m, sentence) => TIME.test(sentence),
  ],
  [
    'plan',
    'considering',
    new RegExp(
      `^(?:i|we) (?:am|are) ${ADV}(?:thinking|considering|weighing|contemplating|seriously thinking)(?: (?:of|about))? (?:${CONSIDERED_PLAN})\\b`,
    ),
  ],
  [
    'plan',
    'trying to',
    /^(?:i|we) (?:am|are|have been) (?:(?:really|still|also)\s+)*trying to (?:get back into|get into|cut (?:down on|back on|out)|quit|give up|lose weight|eat (?:less|more|healthier|better)|drink less|read more|exercise more|save (?:up|money|for)|learn|stick to|get better at|improve my)\b/,
  ],
  [
    'plan',
    'appointment',
    new RegExp(
      `^(?:my|our) (?!(?:absolute |all[- ]time |least )?(?:favou?rite|fave|go-to|dream|ideal|perfect|usual)\\b)(?:[\\w'-]+ ){0,3}?${APPOINTMENTS}s?(?: (?:to|from|with|at|in|for) [\\w'-]+(?: [\\w'-]+)?)? (?:is|are|has been moved|got moved|was moved|has been changed|got changed|was changed|has been rescheduled|got rescheduled|was rescheduled|is due|are due|is coming up|starts|begins|leaves|departs)\\b`,
    ),
    (m, sentence) => WHEN.test(m.input) || WHEN.test(sentence),
  ],
  [
    'plan',
    'have an appointment',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have|have got|got|am having|are having|have booked|booked|am booked|have scheduled|scheduled|have arranged|arranged) (?:a|an|my|our|the|another|two|three) ${APPOINTMENT_MODS}${APPOINTMENTS}s?\\b`,
    ),
    (m, sentence) => WHEN.test(m.input) || WHEN.test(sentence),
  ],
  [
    'plan',
    'due',
    /^(?:i|we) (?:have|have got) to (?:submit|hand in|pay|file|renew|finish|send|return|book|call|pick up|collect|see)\b/,
    (m, sentence) => WHEN.test(m.input) || WHEN.test(sentence),
  ],
  // current work, its changes, relationships that changed, routines (in life.ts)
  ...LIFE_PATTERNS,
  // one-off events in the owner's own life, with their date
  [
    'other',
    'dated event',
    new RegExp(
      `^(?:i|we) ${ADV}(?:went (?:to|for|on)(?! (?:bed|sleep)\\b)|had (?:a|an|my|our|the|surgery|[\\w-]+ surgery)(?! (?:[\\w-]+ )?(?:day|night|week|weekend|morning|time|chat|look|think|go|question|idea|feeling)\\b)|` +
        'got (?:a|an|my|our|back from|married|engaged|divorced|promoted|fired|laid off|vaccinated|diagnosed)|' +
        'visited|attended|saw (?:a|an|my|our|the)|met (?:my|our|with)|flew (?:to|back|home)|came back from|returned from|' +
        'started|finished|passed|failed|moved|gave birth|took (?:my|our|a|an|the))\\b',
    ),
    (m, sentence) => PAST_WHEN_RE.test(m.input) || PAST_WHEN_FIRST.test(sentence),
  ],
  // preferences
  [
    'preference',
    'likes',
    new RegExp(
      `^(?:i|we) ${ADV}(love|like|enjoy|adore|prefer|hate|dislike|detest|loathe|cannot stand|do not like|do not enjoy|` +
        'do not care for|loved|liked|enjoyed|hated|am (?:not )?into|am (?:not )?(?:a )?(?:big |huge |massive |die-hard |lifelong )?fan of|' +
        'am obsessed with|have (?:always |never )?(?:loved|liked|hated|enjoyed)|have been (?:really )?(?:into|loving|enjoying|obsessed with)) (.+)$',
    ),
    tasteObject,
  ],
  [
    'preference',
    'favourite',
    /^(?:my|our) (?:absolute |all[- ]time |current |new )?(?:favou?rite|fave|go-to) [\w' -]{1,40}? (?:is|are|has to be)\b/,
  ],
  [
    'preference',
    'habit',
    /^i (?:always|usually|normally|never|only|typically|generally) (?:eat|drink|take|order|wear|sleep|listen to|read|watch|drive|use|buy|cook|work out|run|walk|cycle|bike|wake up|get up|go to bed|fly|travel|shop)\b/,
  ],
  [
    'preference',
    'how I take it',
    /^i (?:drink|take|have|like) my (?:coffee|tea|steak|eggs|martini|whisky|whiskey|burger|pizza)\b/,
  ],
];
