/**
 * English: the trigger phrases, what makes a line a question, request, supposition or report
 * instead of a statement, and the shapes of statement that land in a known slot.
 *
 * @module
 */
import { englishWord, presentTenseVerb } from '@keel/language';
import { DIETS, REL } from '../patterns/vocabulary.js';
import {
  aboutSomeone,
  allergy,
  diet,
  employer,
  favourite,
  home,
  isCapitalised,
  ownName,
  partner,
  possessive,
  preference,
  preferredName,
  project,
} from './build.js';
import { type LanguageRules, namesSomething } from './common.js';

/** A project's name as said: "Project Falcon", "the Falcon project", "Heron". */
const PROJ = '((?:the\\s+)?(?:project\\s+)?[^\\s,;]+(?:\\s+[^\\s,;]+){0,2}?(?:\\s+project)?)';
/** Verbs of being put on another project by someone else. */
const REASSIGN = '(?:moved|switched|transferred|reassigned|put|rotated|shifted|pulled)';
/** Who reassigns: "they", "my manager", "Sam". */
const WHO_REASSIGNS =
  "(?:they|we|he|she|management|the company|my (?:boss|manager|lead|team lead|director)|\\p{Lu}[\\p{L}'’-]*)";
/** Trailing time words of a current state. */
const NOW = '(?:\\s+(?:now|currently|these days|at the moment|for now))*';
/** A person said to be the subject: "my sister", "my sister Ana", "Sam", "Sam Lee". */
const PERSON =
  "(?:[Mm]y ((?:[\\p{Ll}-]+ )?[\\p{Ll}-]+)(?: (\\p{Lu}[\\p{L}\\p{M}'’-]*))?|(\\p{Lu}[\\p{L}\\p{M}'’-]*(?: \\p{Lu}[\\p{L}\\p{M}'’-]*)?))";

/** The person a {@link PERSON} match names, or null when it is not one (e.g. "my car"). */
function personOf(
  m: RegExpExecArray,
  isRelation: (s: string) => boolean,
  first = 1,
): string | null {
  const [relation, relName, name] = [m[first], m[first + 1], m[first + 2]];
  if (relation !== undefined) {
    if (!isRelation(relation)) return null;
    return relName ?? relation;
  }
  if (name === undefined) return null;
  const head = name.split(' ')[0]!;
  return isCapitalised(head) && head !== 'I' ? name : null;
}

const relationWord = new RegExp(`^${REL}$`, 'iu');

/**
 * A clause that opens with a verb in the past and no subject, as owners write in chat ("started
 * at Initech in March", "just moved to Porto", "Joined Globex last week"): the subject dropped is
 * the owner's own "I". A verb in the past (a regular "-ed" form or one of the irregular pasts of
 * the slots' verbs), after an optional adverb of time; never the base form an order opens with
 * ("work at Acme for a year and see"). Read only when the clause as written places nothing
 * ("Ahmed started at Globex" is about Ahmed).
 */
const DROPPED_SUBJECT =
  /^(?=(?:(?:just|recently|finally|also|then|officially|now)\s+)*(?:[a-z]+ed|began|left|quit|got|took|went|became|rented|bought|sold|lost|broke|gave|made|found|sent|kept|won|spent)\b)/iu;

/** Adverbs that may stand between the owner and a state's verb ("I still drive …"). */
const STATE_ADVERBS =
  '(?:(?:now|currently|still|also|usually|always|mostly|only|just|really|actually|basically|regularly|normally|even|officially)\\s+)*';
/**
 * A state that holds now, once "I'm" is expanded: "I am" with what the owner is, where, or what
 * they are doing ("I am a Spurs fan", "I am on the Atlas project", "I am taking a course at …";
 * never "I am going to …"), or a verb the lexicon says is in the present ("I drive …", "we own
 * …"), its object after it.
 */
const PRESENT_STATE = new RegExp(
  `^(?:I|we) ${STATE_ADVERBS}(?:(?:am|are) ${STATE_ADVERBS}(?!going to |gonna |about to |not |sure |sorry )|(?<verb>[a-z]+)\\s+)(?<rest>.+)$`,
  'iu',
);
/**
 * {@link namesSomething}, and in a chat's lower case a word the English lexicon does not know
 * ("i drive a toyota yaris", "i'm learning japanese"): a name, a brand, a place. "I have a cold"
 * names nothing: every word of it is a common one.
 */
function namesInEnglish(words: string): boolean {
  if (namesSomething(words)) return true;
  return (words.toLowerCase().match(/[\p{L}]{3,}/gu) ?? []).some(
    (w) => /^[a-z]+$/.test(w) && !englishWord(w),
  );
}

/** Verbs of thinking, wanting, liking and saying: what the owner holds in mind, not a state of their life. */
const THINKING =
  /^(?:think|guess|believe|feel|hope|wish|want|need|know|suppose|mean|bet|wonder|reckon|like|love|hate|prefer|enjoy|miss|remember|forget|doubt|expect|agree|say|tell|ask|promise|swear|admit|deny|imagine|plan|intend|try|can|will|would|should|could|might|must|may|do|dont|did|had|got|gotta|wanna|gonna|see|hear|owe|mind|care)$/iu;

/**
 * A chat's progressive with its "I am" left out: "now working at Stripe", "living in Berlin now",
 * "doing korean instead", "learning the cello": a verb of a state one keeps up, never one of
 * thinking or going ("thinking of moving to Lyon", "going to Paris").
 */
const DROPPED_PROGRESSIVE =
  /^(?:(?:now|currently|still)\s+)?(?:(?:working|living|based|staying)\s+(?:at|for|in|with)\s|(?:doing|learning|studying|taking|using|driving|playing|training|coaching|teaching|renting|attending|seeing)\s)/iu;

/** English. */
export const EN: LanguageRules = {
  lang: 'en',
  openers:
    'please|pls|plz|ok(?:ay)?|oh|and|also|btw|by the way|hey(?: keel)?|hi(?: keel)?|so|now|just|keel|one more thing|one last thing|listen|look|fyi',
  triggers: [
    {
      trigger: 'remember',
      phrase:
        "(?:(?:can|could|would|will) you (?:please )?)?(?:remember|keep in mind|bear in mind|don['’]?t forget|do not forget|never forget)",
      connector: '(?:\\s*,?\\s*that\\b|\\s*[:,—–-])',
      connectorOptional: true,
    },
    {
      trigger: 'note',
      phrase: '(?:note|make a note|take note|take a note|note down|jot down)',
      connector: '(?:\\s*,?\\s*that\\b|\\s*[:—–-])',
      connectorOptional: false,
    },
    {
      trigger: 'from_now_on',
      phrase: '(?:from now on|going forward|from here on(?: out)?|henceforth)',
      connector: '\\s*[,:]?',
      connectorOptional: true,
    },
    {
      trigger: 'call_me',
      phrase: '(?:you (?:can|may|should) )?call me',
      connector: '\\s*[,:]?',
      connectorOptional: true,
    },
    {
      trigger: 'correction',
      phrase:
        '(?:actually|correction|update|to correct (?:that|myself)|scratch that|no wait|wait no|to be clear|to clarify)',
      connector: '\\s*[,:;—–!-]?',
      connectorOptional: true,
    },
  ],
  recallQuestion:
    /^(?:what|when|where|who|whom|whose|why|how|which|whether|if|the (?:time|day|night|one time)|that (?:time|day|night|moment|one time|place|trip|song|movie|film|book|guy|girl|restaurant|hotel|thing|conversation))\b/i,
  recallRequest: /^(?:to|me to|not to|never to)\b/i,
  request:
    /^(?:(?:please|pls|can you|could you|would you|will you)\s+)?(?:remind me|call me|text me|ping me|email me|message me|wake me|let me know|tell me|show me|notify me)\b/i,
  asks: /^(?:do|does|did|don['’]?t|doesn['’]?t|didn['’]?t|can|can['’]?t|could|couldn['’]?t|would|wouldn['’]?t|will|won['’]?t|shall|should|shouldn['’]?t|is|isn['’]?t|are|aren['’]?t|was|wasn['’]?t|were|weren['’]?t|what|what['’]s|when|where|where['’]s|who|who['’]s|whom|whose|why|how|how['’]s|which|any idea|got any)\b/i,
  tag: /[,\s]+(?:ok|okay|alright|all right|right|yeah|yes|got it|understood|please|will you|won['’]t you|thanks|thank you|k)\s*[?!.]*$/i,
  correction:
    /^(?:(?:actually|correction|update|in fact|to be clear|to clarify|scratch that|as it turns out|it turns out|turns out)(?:\s*[,:;—–!-])?|(?:no|nope|wait|sorry|oops|i mean|rather|sorry i mean)\s*[,:;—–!.-])\s*/i,
  toldYou:
    /^(?:(?:as|like) I (?:said|mentioned|told you)(?: before| earlier| already)?\s*,?|I (?:told|have told|['’]ve told|said to|mentioned to) you(?: before| earlier| already| last time| once)?\s*,?(?:\s*that\b)?)\s*/i,
  hypothetical:
    /^(?:what if|what would happen if|what would you do if|suppose|supposing|imagine|imagining|let['’]?s say|let us say|say that|hypothetically|in theory|pretend|if only|in a world where|i wish)\b|^if (?:i|we) (?:were|was|had|could|won|lost|didn['’]t|did not|weren['’]t)\b|\b(?:would|could|might|['’]d)\b.*\bif (?:i|we) (?:were|had|was)\b/i,
  report: [
    /^according to (?<who>[^,]+?),\s*(?<rest>.+)$/iu,
    /^(?<who>(?:my|our) (?:[\p{L}-]+ ){0,2}?[\p{L}-]+|the [\p{L}-]+|he|she|they|someone|somebody|everyone|everybody|people|[\p{L}][\p{L}\p{M}'’.-]*(?: [\p{L}][\p{L}\p{M}'’.-]*)?) (?:also |once |always |just |recently |apparently |actually )?(?:said|says|told me|tells me|told us|thinks|thought|believes|believed|claims|claimed|mentioned|reckons|insists|insisted|swears|swore|wrote|texted|messaged|emailed|promised|feels|felt|guesses|suspects|assumes|complained|admitted|announced|explained|warned(?: me)?|replied|heard|confirmed|said to me)(?:,|:)?(?:\s+that\b)?\s+(?<rest>.+)$/iu,
  ],
  notNames: new Set(
    (
      'when whenever back later tomorrow tonight today now at if after before on in once as asap ' +
      'about up again anytime sometime soon every each first next this that the a an any by with ' +
      'around between from over during maybe please right whatever anything something someone ' +
      'out there here immediately straight directly urgently sometimes instead to for me you your ' +
      'crazy old-fashioned paranoid naive naïve lazy weird silly picky biased cynical sceptical ' +
      'skeptical sentimental stupid selfish what how who why where'
    ).split(' '),
  ),
  functionWords: new Set(),
  relations: relationWord,
  cut: /\s*(?:[,;(]|\s[-—–]\s|(?<![\p{L}\p{M}])(?:but|because|since|where|so|which|who|until|though|although|not|rather than|instead of)(?![\p{L}\p{M}])|(?<![\p{L}\p{M}])and (?=(?:i|we|my|she|he|they|it|work|live|am|have|now|also|love|hate)(?![\p{L}\p{M}])))/iu,
  fillers:
    /^(?:now|actually|still|currently|officially|finally|just|really|in fact)\s+|\s+(?:now|these days|nowadays|any ?more|instead|at the moment|currently|for now|already|too|from now on|going forward|please|for short)$/i,
  additive:
    /(?<![\p{L}\p{M}])(?:also|too|as well|in addition|additionally|another)(?![\p{L}\p{M}])/iu,
  negation: /^(?:not|no longer|never|nobody|no one|none)\b/i,
  // "We" includes the owner: "we moved to Porto", "we live in Porto now" are the owner's home.
  expand: (s) =>
    s
      .replace(/^i['’]m\b/i, 'I am')
      .replace(/^i['’]ve\b/i, 'I have')
      .replace(/^i['’]ll\b/i, 'I will')
      .replace(/^we(?:['’]re| are)\b/i, 'I am')
      .replace(/^we['’]ve\b/i, 'I have')
      .replace(/^we\b/i, 'I'),
  dropped: (s) =>
    DROPPED_SUBJECT.test(s)
      ? `I ${s}`
      : DROPPED_PROGRESSIVE.test(s)
        ? `I am ${s.replace(/^(?:now|currently)\s+/iu, '')}`
        : null,
  // A chat writes the owner in lower case too ("i drive a mazda 3").
  firstPerson: /^(?:I|i|we|We)(?:['’]m|['’]ve|['’]re)?(?![\p{L}])/u,
  began:
    /^(?:I|we) (?:have |['’]ve )?(?:just |recently |finally |also |officially )*(?:started|began|begun|took up|picked up|joined|signed up for|enrolled in|got into)(?![\p{L}])/iu,
  changed:
    /^(?:I|we) (?:have |['’]ve )?(?:just |recently |finally |also |officially )*(?:moved|relocated|got (?:married|engaged|divorced|(?:a|an|our|my) (?:new )?\p{L}+)|married|adopted|became|bought|graduated|retired|switched|converted|was promoted|got promoted|had (?:a|our|my) (?:baby|son|daughter|first)|gave birth)(?![\p{L}])/iu,
  holds: (s) => {
    const m = PRESENT_STATE.exec(s);
    if (!m?.groups) return null;
    const { verb, rest } = m.groups;
    if (verb && (!presentTenseVerb(verb.toLowerCase()) || THINKING.test(verb))) return null;
    // "have" holds a possession ("I have a Seat Ibiza"), not "have to", "have been", "have lunch".
    if (/^have$/iu.test(verb ?? '') && !/^(?:a|an|two|three|four|five|my|our)\s/iu.test(rest ?? ''))
      return null;
    return rest ?? null;
  },
  names: namesInEnglish,
  relationHead: 'last',
  slots: [
    {
      name: 'preferred name',
      re: /^(?:I go by|I am called|I prefer to be called|I(?:['’]d| would) (?:like|prefer|rather) (?:to be called|you (?:to )?call me)|(?:please )?call me|you (?:can|may|should) call me) (.+)$/iu,
      slot: (m, h) => (/^I am called/i.test(m[0]) ? ownName(h, m[1]!) : preferredName(h, m[1]!)),
    },
    {
      name: 'project reassigned from one to another',
      re: new RegExp(
        `^(?:${WHO_REASSIGNS} (?:have |has |just |recently )*${REASSIGN} me|I (?:was|got|have been|['’]ve been|am being|am|just got) ${REASSIGN}) (?:off|from|away from) (?:of )?${PROJ} (?:on)?to ${PROJ}${NOW}$`,
        'iu',
      ),
      slot: (m, h) => project(h, m[2]!),
    },
    {
      // "I moved off Falcon onto Heron" is a project; "I moved from Paris to Lyon" is a home.
      name: 'project moved to',
      re: new RegExp(
        `^I (?:have |['’]ve )?(?:just )?(moved|switched|transferred|rotated|shifted|went) (off|from|away from) ${PROJ} (on)?to ${PROJ}${NOW}$`,
        'iu',
      ),
      slot: (m, h) => {
        const projectish =
          m[2] === 'off' ||
          m[4] !== undefined ||
          !/^(?:moved|went)$/i.test(m[1]!) ||
          /\bproject\b/i.test(`${m[3]} ${m[5]}`);
        return projectish ? project(h, m[5]!) : null;
      },
    },
    {
      name: 'project reassigned',
      re: new RegExp(
        `^(?:${WHO_REASSIGNS} (?:have |has |just |recently )*${REASSIGN} me|I (?:was|got|have been|['’]ve been|am being|just got) ${REASSIGN}) (?:onto|on|to) ${PROJ}${NOW}$`,
        'iu',
      ),
      slot: (m, h) => project(h, m[1]!),
    },
    {
      name: 'project left for another',
      re: new RegExp(
        `^I (?:am|have been|['’]ve been) (?:now )?(?:off|no longer on|not on) ${PROJ}(?:\\s*[,;]\\s*|\\s+)(?:and |but )?(?:I am |I['’]m )?(?:now )?on ${PROJ}${NOW}$`,
        'iu',
      ),
      slot: (m, h) => project(h, m[2]!),
    },
    {
      name: 'current project',
      re: new RegExp(
        `^(?:I am (?:now |currently |still |also |back )*(?:working |based )?on|I (?:now |currently |still |also )*work on|my (?:current |new |main )?project is(?: now)?) ${PROJ}${NOW}$`,
        'iu',
      ),
      slot: (m, h) => project(h, m[1]!),
    },
    {
      name: 'favourite',
      re: /^my\s+(?:favou?rite)\s+(.+?)\s+(?:is|are)\s+(.+)$/iu,
      slot: (m, h) => favourite(h, m[1]!, m[2]!),
    },
    {
      name: 'someone’s name',
      re: /^my\s+((?:\S+\s+){0,3}?\S+?)(?:['’]s\s+name\s+is|\s+is\s+(?:called|named))\s+(.+)$/iu,
      // "my sister's name is Ada" keeps its historic key, sister_name.
      slot: (m, h) =>
        /['’]s\s+name/i.test(m[0])
          ? possessive(h, `${m[1]} name`, m[2]!, true)
          : possessive(h, m[1]!, m[2]!, true),
    },
    {
      // "my new job is at Stripe": the job is where the owner works.
      name: 'my job is at',
      re: /^my\s+(?:new\s+|current\s+)?(?:job|work|workplace|employer|company)\s+is\s+(?:now\s+)?(?:at|with|for)\s+(.+)$/iu,
      slot: (m, h) => employer(h, m[1]!),
    },
    {
      name: 'my X is Y',
      re: /^my\s+(?:new\s+|current\s+|present\s+|actual\s+|real\s+)?((?:\S+\s+){0,3}?\S+?)\s+(?:is|are|was|were)\s+(.+)$/iu,
      slot: (m, h) => possessive(h, m[1]!, m[2]!),
    },
    {
      name: 'like',
      re: /^i\s+(?:really\s+|truly\s+|absolutely\s+|do\s+|still\s+|now\s+)?(?:love|like|enjoy|adore|prefer)\s+(.+)$/iu,
      slot: (m, h) => preference(h, m[1]!),
    },
    {
      name: 'dislike',
      re: /^i\s+(?:really\s+|truly\s+|absolutely\s+|now\s+)?(?:hate|dislike|detest|can['’]?t stand|cannot stand|don['’]?t like|do not like|no longer like|don['’]?t eat|do not eat|don['’]?t drink|no longer eat)\s+(.+)$/iu,
      slot: (m, h) => preference(h, m[1]!),
    },
    {
      name: 'diet',
      re: new RegExp(
        `^I(?: am| have been|['’]ve been) (?:now |currently |still |also |fully |strictly |a |an )*(${DIETS})(?: now| these days| again)?(?![\\p{L}\\p{M}])`,
        'iu',
      ),
      slot: (m, h) => diet(h, m[1]!),
    },
    {
      name: 'allergy',
      re: /^i am (?:very |severely |also )?allergic to\s+(.+)$/iu,
      slot: (m, h) => allergy(h, m[1]!),
    },
    {
      name: 'home',
      re: /^I (?:now |currently |still |also )*(?:live|am living|reside|am based|am staying|have lived|have been living|['’]ve been living|(?:am renting|rent|have rented|['’]ve rented|rented|bought|have bought|['’]ve bought) (?:a|an|the|my|our) (?:[\p{L}-]+ ){0,2}?(?:flat|apartment|studio|room|house|place|condo|loft|cottage|home)) in (.+)$/iu,
      slot: (m, h) => home(h, m[1]!),
    },
    {
      name: 'moved home',
      re: /^I (?:have |['’]ve )?(?:just |recently |finally |now |also )*(?:moved|relocated)(?: back)?(?: house)?(?: from (?:.+?))? (?:to|into) (.+)$/iu,
      slot: (m, h) => home(h, m[1]!),
    },
    {
      name: 'employer',
      re: /^I (?:now |currently |still |also )*(?:work|am working|have been working|['’]ve been working) (?:at|for) (.+)$|^I am (?:now |currently )?employed (?:by|at) (.+)$/iu,
      slot: (m, h) => employer(h, m[1] ?? m[2]!),
    },
    {
      name: 'new employer',
      re: /^I (?:have |['’]ve )?(?:just |recently |now |finally |also )*(?:joined|started (?:(?:a|my|the|this) (?:new )?(?:job|position|role) |working |work )?(?:at|with|for)|got (?:a|the) (?:new )?job (?:at|with)|took (?:a|the) (?:new )?(?:job|position|role) (?:at|with)|accepted (?:a|an|the) (?:offer|job|position) (?:from|at)) (.+)$/iu,
      slot: (m, h) => employer(h, m[1]!, true),
    },
    {
      name: 'left one employer for another',
      re: /^I (?:have |['’]ve )?(?:just )?(?:left|quit) .+?(?:,)? (?:and (?:have |['’]ve )?(?:now )?(?:joined|started (?:at|with)|went to|moved to|work (?:at|for))|for|to join|to work (?:at|for)) (.+)$/iu,
      slot: (m, h) => employer(h, m[1]!, true),
    },
    {
      name: 'partner',
      re: /^I am (?:now |happily |still |also )*(married to|engaged to|dating|in a relationship with|going out with|seeing|together with) (.+)$|^I (?:have |['’]ve )?(?:just |recently )?(married|got married to|got engaged to) (.+)$/iu,
      slot: (m, h) =>
        partner(h, /married/iu.test(m[1] ?? m[3]!) ? 'spouse' : 'partner', m[2] ?? m[4]!),
    },
    {
      name: 'someone’s home',
      re: new RegExp(
        `^${PERSON} (?:now |still |also )*(?:lives|is living|is based|has moved|moved|relocated) (?:in|to) (.+)$`,
        'u',
      ),
      slot: (m, h) => {
        const who = personOf(m, h.isRelation);
        return who ? aboutSomeone(h, who, m[4]!, 'home') : null;
      },
    },
    {
      name: 'someone’s employer',
      re: new RegExp(
        `^${PERSON} (?:now |still |also )*(?:works (?:at|for)|is working (?:at|for)|is employed (?:at|by)|has joined|joined|started (?:at|with)) (.+)$`,
        'u',
      ),
      slot: (m, h) => {
        const who = personOf(m, h.isRelation);
        return who ? aboutSomeone(h, who, m[4]!, 'employer') : null;
      },
    },
    {
      name: 'about someone',
      re: new RegExp(`^${PERSON} (?=\\p{Ll})(.+)$`, 'u'),
      slot: (m, h) => {
        const who = personOf(m, h.isRelation);
        return who ? aboutSomeone(h, who, m[4]!) : null;
      },
    },
  ],
};
