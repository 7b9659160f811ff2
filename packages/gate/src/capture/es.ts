/**
 * Spanish: "recuerda que …", "acuérdate de que …", "anota que …", "llámame …", and the shapes of
 * statement that land in a known slot ("mi hermana se llama Lucía" → relationship/hermana).
 *
 * @module
 */
import { DIETS } from '../patterns/vocabulary.js';
import {
  aboutSomeone,
  allergy,
  diet,
  employer,
  favourite,
  home,
  ownName,
  partner,
  possessive,
  preference,
  preferredName,
  project,
} from './build.js';
import { IBERIAN_THINKING, type LanguageRules, namesSomething, wordsRe } from './common.js';

/** Not a letter: the end of a word that may end in an accented letter. */
const E = '(?![\\p{L}\\p{M}])';
const PROYECTO = /proyecto/iu;

/**
 * A state that holds now, its verb in the first person of the present ("tengo un Seat Ibiza",
 * "juego en el Ferro", "estoy haciendo un máster en la UPF", "soy socio del Betis"); never a
 * verb of thinking, wanting or liking, nor "voy a …" (a future), nor "tengo que …".
 */
const ES_STATE = new RegExp(
  `^(?:yo\\s+)?(?:(?:ahora|todavía|aún|también|siempre|ya|actualmente)\\s+)*(?:estoy\\s+\\p{L}+(?:ando|iendo)\\s+|(?:soy|estoy)\\s+|(?!(?:${IBERIAN_THINKING})(?![\\p{L}]))\\p{Ll}+o\\s+)(?<rest>.+)$`,
  'iu',
);

/** Spanish. */
export const ES: LanguageRules = {
  lang: 'es',
  openers: 'por favor|oye|oiga|y|también|bueno|vale|ah|eh|mira|ok(?:ay)?|porfa',
  triggers: [
    {
      trigger: 'remember',
      phrase:
        '(?:(?:puedes|podrías|podrias) )?(?:recuerda|recuerde|recordá|acuérdate|acuerdate|acuérdese|no olvides|no olvide|no te olvides|ten en cuenta|tenga en cuenta)',
      connector: `\\s*,?\\s*(?:de\\s+)?que${E}|\\s*[:—–-]`,
      connectorOptional: false,
    },
    {
      trigger: 'note',
      phrase: '(?:anota|apunta|toma nota|ten presente)',
      connector: `\\s*,?\\s*(?:de\\s+)?que${E}|\\s*[:—–-]`,
      connectorOptional: false,
    },
    {
      trigger: 'from_now_on',
      phrase: '(?:a partir de ahora|de ahora en adelante|desde ahora|en adelante)',
      connector: '\\s*[,:]?',
      connectorOptional: true,
    },
    {
      trigger: 'call_me',
      phrase: '(?:(?:puedes|podéis|puede) )?(?:llámame|llamame|llámeme|llamadme|llamarme)',
      connector: '\\s*[,:]?',
      connectorOptional: true,
    },
    {
      trigger: 'correction',
      phrase: '(?:en realidad|de hecho|corrección|correccion|mejor dicho)',
      connector: '\\s*[,:;—–!-]?',
      connectorOptional: true,
    },
  ],
  recallQuestion: new RegExp(
    `^(?:qué|cuándo|dónde|quién|quiénes|cómo|cuál|cuáles|si|lo que|cuando|donde|como|la vez|aquella vez|aquel día)${E}`,
    'iu',
  ),
  request: new RegExp(
    `^(?:(?:por favor|puedes|podrías)\\s+)?(?:recuérdame|recuerdame|avísame|avisame|llámame cuando|dime|muéstrame|escríbeme|despiértame)${E}|^(?:acuérdate|acuerdate|no olvides|no te olvides) de \\p{L}+(?:ar|er|ir)${E}`,
    'iu',
  ),
  asks: new RegExp(
    `^(?:qué|cuándo|dónde|quién|quiénes|cómo|cuál|cuáles|por qué|cuánto|cuánta|cuántos|cuántas|recuerdas|te acuerdas|sabes|puedes|podrías)${E}`,
    'iu',
  ),
  tag: /[,\s]+¿?(?:vale|de acuerdo|ok|okay|sí|entendido|porfa|por favor|verdad)\s*[?!.]*$/iu,
  correction: new RegExp(
    `^(?:(?:en realidad|de hecho|corrección|mejor dicho|en verdad|resulta que)${E}(?:\\s*[,:;—–!-])?|(?:no|perdón|perdona|espera|o sea|quiero decir)\\s*[,:;—–!.-])\\s*`,
    'iu',
  ),
  toldYou: new RegExp(
    `^(?:como te (?:dije|conté|comenté)(?: antes)?\\s*,?|(?:ya )?te (?:dije|conté|comenté|he dicho|había dicho)(?: antes| ya)?\\s*,?(?:\\s*que${E})?)\\s*`,
    'iu',
  ),
  hypothetical: new RegExp(
    `^(?:y si|qué pasaría si|que pasaria si|imagina|imagínate|imaginemos|supongamos|suponte|pongamos que|digamos que|hipotéticamente|ojalá|si (?:yo )?(?:fuera|fuese|tuviera|tuviese|pudiera|viviera|ganara|hubiera))${E}`,
    'iu',
  ),
  report: [
    /^(?:según|de acuerdo con) (?<who>[^,]+?),\s*(?<rest>.+)$/iu,
    new RegExp(
      `^(?<who>(?:mi|mis|nuestr[oa]s?) (?:[\\p{L}-]+ ){0,2}?[\\p{L}-]+|el [\\p{L}-]+|la [\\p{L}-]+|él|ella|ellos|ellas|alguien|[\\p{L}][\\p{L}\\p{M}'’.-]*(?: [\\p{L}][\\p{L}\\p{M}'’.-]*)?) (?:también |ya |siempre )?(?:dijo|dice|me dijo|me dice|cree|creía|piensa|opina|afirma|asegura|comentó|mencionó|contó|me contó|escribió|jura|prometió)${E}(?:\\s*[,:])?(?:\\s+que${E})?\\s+(?<rest>.+)$`,
      'iu',
    ),
  ],
  notNames: new Set(
    (
      'cuando mañana luego después más tarde a al si en esta este hoy ahora pronto otra de por ' +
      'para el la un una lo antes tan apenas enseguida ya y o que cuanto desde hasta con'
    ).split(' '),
  ),
  functionWords: new Set(
    (
      'el la los las un una unos unas de del al a en y o u que mi mis tu tus su sus me te se lo le ' +
      'les por para con sin es son muy más ya no nuestro nuestra yo'
    ).split(' '),
  ),
  relations:
    /^(?:herman[oa]s?|madre|padre|mamá|mama|papá|papa|hij[oa]s?|espos[oa]|marido|mujer|novi[oa]|pareja|abuel[oa]s?|tí[oa]s?|ti[oa]s?|prim[oa]s?|sobrin[oa]s?|amig[oa]s?|jef[ea]|médic[oa]|medic[oa]|doctora?|dentista|terapeuta|psicólog[oa]|veterinari[oa]|abogad[oa]|contadora?|vecin[oa]|compañer[oa]|colega|suegr[oa]|cuñad[oa]|niet[oa]s?|perr[oa]|gat[oa]|mascota|profesora?|maestr[oa]|entrenadora?|caser[oa]|bebé|padrastro|madrastra|hermanastr[oa])$/iu,
  cut: /\s*(?:[,;(]|\s[-—–]\s|(?<![\p{L}])(?:pero|porque|donde|aunque|que|no)(?![\p{L}])|\sy\s(?=[a-záéíóúñü]))/u,
  fillers:
    /^(?:ahora|ya|actualmente|todavía|aún|en realidad|de hecho|realmente)\s+|\s+(?:ahora|ya|actualmente|hoy en día|estos días|a partir de ahora|de ahora en adelante|por ahora)$/iu,
  additive: wordsRe(['también', 'además', 'tampoco', 'otro', 'otra']),
  negation: new RegExp(`^(?:no|ya no|nunca|nadie|ningun[oa]?)${E}`, 'iu'),
  // "We" includes the owner ("nos mudamos a Oporto", "vivimos en Cádiz").
  // "estoy viviendo en …", a progressive of a slot's verb, says "vivo en …".
  expand: (s) =>
    s
      .replace(
        /^(?:((?:ahora|ya|todavía)\s+))?(?:yo\s+)?estoy\s+(viv|trabaj|estudi|resid)(?:ando|iendo)(?![\p{L}])/iu,
        '$1$2o',
      )
      .replace(/^(?:nos\s+)?mudamos(?![\p{L}])/iu, 'me mudé')
      .replace(/^nos hemos mudado(?![\p{L}])/iu, 'me he mudado')
      .replace(/^vivimos(?![\p{L}])/iu, 'vivo'),
  firstPerson:
    /^(?:yo\s+)?(?:(?:ya|también|todavía|me|nos)\s+)*(?:\p{Ll}+(?:o|é|í)|estoy|soy|voy|doy)(?![\p{L}])/u,
  began: /^(?:yo\s+)?(?:ya\s+)?(?:empecé|comencé|me uní|me apunté|me inscribí|entré)(?![\p{L}])/iu,
  changed:
    /^(?:yo\s+)?(?:ya\s+)?(?:me mudé|me casé|me comprometí|me divorcié|adopté|me hice|compré|me gradué|me jubilé|me cambié|me pasé|tuve (?:un|una|a mi))(?![\p{L}])/iu,
  holds: (s) => ES_STATE.exec(s)?.groups?.rest ?? null,
  names: namesSomething,
  relationHead: 'any',
  slots: [
    {
      name: 'preferred name',
      re: /^(?:prefiero que me llamen|me gusta que me llamen|puedes llamarme|llámame|llamame) (.+)$/iu,
      slot: (m, h) => preferredName(h, m[1]!),
    },
    {
      name: 'own name',
      re: /^(?:(?:yo )?me llamo|mi nombre es) (.+)$/iu,
      slot: (m, h) => ownName(h, m[1]!),
    },
    {
      name: 'project reassigned',
      re: /^(?:me (?:pasaron|movieron|cambiaron|trasladaron|asignaron|reasignaron|han (?:pasado|movido|cambiado|asignado|reasignado))|me (?:pasé|cambié|moví)) (?:(?:del|de) (?:proyecto )?.+? )?(?:al|a) ((?:proyecto )?.+)$/iu,
      slot: (m, h) => project(h, m[1]!, PROYECTO),
    },
    {
      name: 'current project',
      re: /^(?:(?:ahora|actualmente|ya) )*(?:estoy|trabajo|sigo|participo) (?:(?:ahora|actualmente) )?en (?:el )?(proyecto .+)$/iu,
      slot: (m, h) => project(h, m[1]!, PROYECTO),
    },
    {
      name: 'favourite',
      re: /^(?:mi|mis) (.+?) (?:favorit[oa]s?|preferid[oa]s?) (?:es|son) (.+)$/iu,
      slot: (m, h) => favourite(h, m[1]!, m[2]!),
    },
    {
      name: 'someone’s name',
      re: /^(?:mi|mis) (?:nuev[oa] |actual )?((?:\S+ ){0,3}?\S+?) (se llama|se llaman) (.+)$/iu,
      slot: (m, h) => possessive(h, m[1]!, m[3]!, m[2]!.toLowerCase() === 'se llama'),
    },
    {
      // The owner's job is where they work ("mi trabajo es en …").
      name: 'mi trabajo es en',
      re: /^mi\s+(?:nuevo\s+)?(?:trabajo|curro|empleo)\s+(?:es|está)\s+(?:ahora\s+)?(?:en|con|para)\s+(.+)$/iu,
      slot: (m, h) => employer(h, m[1]!),
    },
    {
      name: 'my X is Y',
      re: /^(?:mi|mis) (?:nuev[oa] |actual )?((?:\S+ ){0,3}?\S+?)(?: (?:nuev[oa]|actual))? (?:es|son|era|eran) (?:ahora )?(.+)$/iu,
      slot: (m, h) => possessive(h, m[1]!, m[2]!),
    },
    {
      name: 'like',
      re: /^(?:a mí )?(?:me gustan?|me encantan?|adoro|amo|prefiero|disfruto)(?: mucho| muchísimo)? (.+)$/iu,
      slot: (m, h) => preference(h, m[1]!),
    },
    {
      name: 'dislike',
      re: /^(?:a mí )?(?:no me gustan?|ya no me gustan?|odio|detesto|no soporto|no aguanto|no como|no bebo|no tomo)(?: nada)? (.+)$/iu,
      slot: (m, h) => preference(h, m[1]!),
    },
    {
      name: 'diet',
      re: new RegExp(
        `^(?:ahora |ya )?(?:soy|estoy) (?:ahora |ya )?(${DIETS})(?: ahora)?(?![\\p{L}\\p{M}])`,
        'iu',
      ),
      slot: (m, h) => diet(h, m[1]!),
    },
    {
      name: 'allergy',
      re: /^(?:(?:yo )?soy (?:muy )?alérgic[oa] (?:a|al)|tengo alergia (?:a|al))(?: la| las| los| el)? (.+)$/iu,
      slot: (m, h) => allergy(h, m[1]!),
    },
    {
      name: 'home',
      re: /^(?:(?:ahora|actualmente|ya) )*(?:vivo|resido) (?:(?:ahora|actualmente) )?en (.+)$/iu,
      slot: (m, h) => home(h, m[1]!),
    },
    {
      name: 'moved home',
      re: /^(?:(?:ahora|ya) )?(?:me (?:he )?mud(?:é|e|ado)(?: de casa)?(?: de .+?)?|me fui a vivir) a (.+)$/iu,
      slot: (m, h) => home(h, m[1]!),
    },
    {
      name: 'employer',
      re: /^(?:(?:ahora|actualmente|ya) )*trabajo (?:(?:ahora|actualmente) )?(?:en|para) (.+)$/iu,
      slot: (m, h) => employer(h, m[1]!),
    },
    {
      name: 'new employer',
      re: /^(?:ahora )?(?:(?:entré|empecé|comencé) (?:a trabajar )?(?:en|con|para)|me (?:uní|incorporé) a) (.+)$/iu,
      slot: (m, h) => employer(h, m[1]!, true),
    },
    {
      name: 'left one employer for another',
      re: /^(?:dejé|renuncié a|me fui de) .+? y (?:ahora )?(?:entré|empecé|me uní|me incorporé|trabajo) (?:a trabajar )?(?:en|a|para) (.+)$/iu,
      slot: (m, h) => employer(h, m[1]!, true),
    },
    {
      name: 'partner',
      re: /^(?:yo )?(?:estoy|soy) (?:ahora )?(casad[oa]|comprometid[oa]|en pareja|saliendo) con (.+)$|^(?:yo )?salgo con (.+)$|^(?:yo )?me (casé|comprometí) con (.+)$/iu,
      slot: (m, h) =>
        partner(h, /^cas/iu.test(m[1] ?? m[4] ?? '') ? 'spouse' : 'partner', m[2] ?? m[3] ?? m[5]!),
    },
    {
      name: 'someone’s home',
      re: /^(?:mi|mis) ([\p{Ll}-]+)(?: (\p{Lu}[\p{L}\p{M}'’-]*))? (?:vive|vivía|se mudó|se ha mudado) (?:en|a) (.+)$/u,
      slot: (m, h) => (h.isRelation(m[1]!) ? aboutSomeone(h, m[2] ?? m[1]!, m[3]!, 'home') : null),
    },
  ],
};
