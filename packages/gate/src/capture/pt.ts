/**
 * Portuguese: "lembra que …", "lembre-se de que …", "não esqueça que …", "anota que …", "me chame
 * de …", and the shapes of statement that land in a known slot ("minha irmã se chama Ana" →
 * relationship/irmã).
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
const PROJETO = /projeto/iu;
/** "o meu", "a minha", "meus" … */
const MY = '(?:(?:o|a|os|as) )?(?:meu|minha|meus|minhas)';

/**
 * A state that holds now, its verb in the first person of the present ("tenho um Fiat Uno",
 * "jogo no Flamengo", "estou fazendo um curso na USP", "sou sócio do Grêmio"); never a verb of
 * thinking, wanting or liking, nor "vou …" (a future), nor "tenho que …".
 */
const PT_STATE = new RegExp(
  `^(?:eu\\s+)?(?:(?:agora|ainda|também|sempre|já|atualmente)\\s+)*(?:estou\\s+\\p{L}+(?:ando|endo|indo)\\s+|(?:sou|estou)\\s+|(?!(?:${IBERIAN_THINKING})(?![\\p{L}]))\\p{Ll}+o\\s+)(?<rest>.+)$`,
  'iu',
);

/** Portuguese. */
export const PT: LanguageRules = {
  lang: 'pt',
  openers: 'por favor|e|também|olha|ah|ok(?:ay)?|então|bom',
  triggers: [
    {
      trigger: 'remember',
      phrase:
        '(?:lembre-se|lembra-te|se lembre|te lembra|lembra|lembre|não (?:se )?esqueça|não te esqueças|nao esqueca|não esquece|tenha em mente|tem em mente|guarda)',
      connector: `\\s*,?\\s*(?:de\\s+)?que${E}|\\s*[:—–-]`,
      connectorOptional: false,
    },
    {
      trigger: 'note',
      phrase: '(?:anota|anote|toma nota|tome nota|registra|registre)',
      connector: `\\s*,?\\s*(?:de\\s+)?que${E}|\\s*[:—–-]`,
      connectorOptional: false,
    },
    {
      trigger: 'from_now_on',
      phrase: '(?:a partir de agora|de agora em diante|daqui (?:pra|para) frente|doravante)',
      connector: '\\s*[,:]?',
      connectorOptional: true,
    },
    {
      trigger: 'call_me',
      phrase:
        '(?:(?:pode|podes|você pode) )?(?:me chame de|me chama de|chame-me de|chama-me|me chamar de|chamar-me)',
      connector: '\\s*[,:]?',
      connectorOptional: true,
    },
    {
      trigger: 'correction',
      phrase: '(?:na verdade|aliás|correção|correcao|corrigindo|na realidade)',
      connector: '\\s*[,:;—–!-]?',
      connectorOptional: true,
    },
  ],
  recallQuestion: new RegExp(
    `^(?:o que|quando|onde|quem|como|qual|quais|se|por que|porque|daquela vez|aquela vez|da vez)${E}`,
    'iu',
  ),
  request: new RegExp(
    `^(?:(?:por favor|pode|podes|você pode)\\s+)?(?:me lembre|me lembra|lembre-me|me avise|me avisa|avise-me|me ligue|me liga|me diga|me diz|me mostre|me acorde)${E}|^(?:lembre-se|lembra-te|não (?:se )?esqueça|não te esqueças) de \\p{L}+(?:ar|er|ir)${E}`,
    'iu',
  ),
  asks: new RegExp(
    `^(?:o que|quando|onde|quem|como|qual|quais|por que|quanto|quanta|quantos|quantas|você lembra|você se lembra|lembras-te|te lembras|sabe|sabes|pode|podes|você pode)${E}`,
    'iu',
  ),
  tag: /[,\s]+(?:ok|okay|tá|ta|certo|beleza|entendido|combinado|sim|por favor|né)\s*[?!.]*$/iu,
  correction: new RegExp(
    `^(?:(?:na verdade|aliás|correção|corrigindo|na realidade|acontece que)${E}(?:\\s*[,:;—–!-])?|(?:não|desculpa|desculpe|espera|quer dizer|ou seja)\\s*[,:;—–!.-])\\s*`,
    'iu',
  ),
  toldYou: new RegExp(
    `^(?:como (?:eu )?te (?:disse|falei|contei)(?: antes)?\\s*,?|(?:eu )?(?:já )?te (?:disse|falei|contei)(?: antes| já)?\\s*,?(?:\\s*que${E})?)\\s*`,
    'iu',
  ),
  hypothetical: new RegExp(
    `^(?:e se|imagina|imagine|imaginemos|suponha|suponhamos|supondo|digamos que|vamos supor|hipoteticamente|quem me dera|se eu (?:fosse|tivesse|pudesse|morasse|ganhasse|vivesse))${E}`,
    'iu',
  ),
  report: [
    /^(?:segundo|de acordo com) (?<who>[^,]+?),\s*(?<rest>.+)$/iu,
    new RegExp(
      `^(?<who>${MY} (?:[\\p{L}-]+ ){0,2}?[\\p{L}-]+|(?:nosso|nossa) [\\p{L}-]+|o [\\p{L}-]+|a [\\p{L}-]+|ele|ela|eles|elas|alguém|[\\p{L}][\\p{L}\\p{M}'’.-]*(?: [\\p{L}][\\p{L}\\p{M}'’.-]*)?) (?:também |já |sempre )?(?:disse|diz|me disse|me diz|acha|achou|pensa|acredita|afirma|garante|comentou|mencionou|contou|me contou|escreveu|jura|prometeu)${E}(?:\\s*[,:])?(?:\\s+que${E})?\\s+(?<rest>.+)$`,
      'iu',
    ),
  ],
  notNames: new Set(
    (
      'quando amanhã depois mais tarde às as se em hoje agora logo novo antes daqui assim que ' +
      'por favor para o a um uma do da no na'
    ).split(' '),
  ),
  functionWords: new Set(
    (
      'o a os as um uma uns umas de do da dos das em no na nos nas e ou que meu minha meus minhas ' +
      'teu tua seu sua me te se lhe por para com sem é são muito mais já não ao à aos às eu'
    ).split(' '),
  ),
  relations:
    /^(?:irmã|irma|irmão|irmao|irmãos|mãe|mae|pai|pais|filhos?|filhas?|esposa|esposo|marido|mulher|namorad[oa]|companheir[oa]|parceir[oa]|avó|avô|avós|tia|tio|prim[oa]|sobrinh[oa]|amig[oa]|chefe|médic[oa]|medic[oa]|doutora?|dentista|terapeuta|psicólog[oa]|veterinári[oa]|advogad[oa]|vizinh[oa]|colega|cachorr[oa]|cão|gat[oa]|bebê|bebé|sogr[oa]|cunhad[oa]|net[oa]|professora?|treinadora?|senhori[oa]|madrasta|padrasto)$/iu,
  cut: /\s*(?:[,;(]|\s[-—–]\s|(?<![\p{L}])(?:mas|porque|onde|embora|que|não)(?![\p{L}])|\se\s(?=[a-záàâãçéêíóôõú]))/u,
  fillers:
    /^(?:agora|já|atualmente|ainda|na verdade|de fato|na real)\s+|\s+(?:agora|já|atualmente|hoje em dia|a partir de agora|por enquanto)$/iu,
  additive: wordsRe(['também', 'além disso', 'outro', 'outra']),
  negation: new RegExp(`^(?:não|nao|nunca|ninguém|nenhuma?|já não)${E}`, 'iu'),
  // "We" includes the owner ("a gente se mudou pro Porto", "mudamos para Braga", "moramos em
  // Lisboa"); "pro" is "para o".
  // A chat's "tô" is "estou"; "estou morando em …", a progressive of a slot's verb, says "moro em …".
  expand: (s) =>
    s
      .replace(
        /^(?:((?:agora|atualmente|ainda)\s+))?(?:eu\s+)?(?:tô|to|tou|estou)\s+(mor|viv|trabalh|estud|resid)(?:ando|endo)(?![\p{L}])/iu,
        '$1$2o',
      )
      .replace(/^(?:tô|tou)(?![\p{L}])/iu, 'estou')
      .replace(/^(?:a gente se mudou|nos mudamos|mudamos)(?![\p{L}])/iu, 'me mudei')
      .replace(/^(?:a gente mora|moramos)(?![\p{L}])/iu, 'moro')
      .replace(/(?<![\p{L}])pro(?=\s)/iu, 'para o')
      .replace(/(?<![\p{L}])pra(?=\s)/iu, 'para a'),
  firstPerson:
    /^(?:eu\s+)?(?:(?:já|também|ainda|me)\s+)*(?:\p{Ll}+(?:o|ei|i)|sou|estou|vou|dou)(?![\p{L}])/u,
  began: /^(?:eu\s+)?(?:já\s+)?(?:comecei|iniciei|entrei|me inscrevi|passei a)(?![\p{L}])/iu,
  changed:
    /^(?:eu\s+)?(?:já\s+)?(?:me mudei|mudei|casei|me casei|noivei|adotei|comprei|virei|me tornei|me formei|me aposentei|troquei|tive (?:um|uma|o|a))(?![\p{L}])/iu,
  holds: (s) => PT_STATE.exec(s)?.groups?.rest ?? null,
  names: namesSomething,
  relationHead: 'any',
  slots: [
    {
      name: 'preferred name',
      re: /^(?:(?:pode|podes|você pode) )?(?:me chame de|me chama de|chame-me de|chama-me|me chamar de|chamar-me|prefiro que me chamem de) (.+)$/iu,
      slot: (m, h) => preferredName(h, m[1]!),
    },
    {
      name: 'own name',
      re: new RegExp(`^(?:(?:eu )?me chamo|(?:eu )?chamo-me|${MY} nome é) (.+)$`, 'iu'),
      slot: (m, h) => ownName(h, m[1]!),
    },
    {
      name: 'project reassigned',
      re: /^(?:me (?:mudaram|passaram|transferiram|colocaram|moveram)|(?:eu )?(?:fui|estou sendo) (?:mudad[oa]|passad[oa]|transferid[oa]|colocad[oa]|movid[oa])) (?:(?:do|da|de) (?:projeto )?.+? )?(?:para o|para a|para|pro|pra|ao|no|na) ((?:projeto )?.+)$/iu,
      slot: (m, h) => project(h, m[1]!, PROJETO),
    },
    {
      name: 'current project',
      re: /^(?:(?:agora|atualmente) )*(?:eu )?(?:estou|trabalho|tô|sigo) (?:(?:agora|atualmente) )?(?:no|em|com o) (projeto .+)$/iu,
      slot: (m, h) => project(h, m[1]!, PROJETO),
    },
    {
      name: 'favourite',
      re: new RegExp(`^${MY} (.+?) (?:favorit[oa]s?|preferid[oa]s?) (?:é|são) (.+)$`, 'iu'),
      slot: (m, h) => favourite(h, m[1]!, m[2]!),
    },
    {
      name: 'someone’s name',
      re: new RegExp(
        `^${MY} (?:nov[oa] |atual )?((?:\\S+ ){0,3}?\\S+?) (se chama|chama-se|se chamam|chamam-se) (.+)$`,
        'iu',
      ),
      slot: (m, h) => possessive(h, m[1]!, m[3]!, !/chamam/iu.test(m[2]!)),
    },
    {
      // The owner's job is where they work ("meu trabalho é na …").
      name: 'meu trabalho é na',
      re: /^(?:o\s+)?meu\s+(?:novo\s+)?(?:trabalho|emprego)\s+(?:é|agora é)\s+(?:na|no|em)\s+(.+)$/iu,
      slot: (m, h) => employer(h, m[1]!),
    },
    {
      name: 'my X is Y',
      re: new RegExp(
        `^${MY} (?:nov[oa] |atual )?((?:\\S+ ){0,3}?\\S+?)(?: (?:nov[oa]|atual))? (?:é|são|era|eram) (?:agora )?(.+)$`,
        'iu',
      ),
      slot: (m, h) => possessive(h, m[1]!, m[2]!),
    },
    {
      name: 'like',
      re: /^(?:eu )?(?:gosto (?:muito )?(?:de|do|da|dos|das)|adoro|amo|prefiro|curto) (.+)$/iu,
      slot: (m, h) => preference(h, m[1]!),
    },
    {
      name: 'dislike',
      re: /^(?:eu )?(?:(?:já )?não gosto (?:de|do|da|dos|das)|odeio|detesto|não suporto|não aguento|não como|não bebo) (.+)$/iu,
      slot: (m, h) => preference(h, m[1]!),
    },
    {
      name: 'diet',
      re: new RegExp(
        `^(?:agora )?(?:eu )?(?:sou|estou) (?:agora )?(${DIETS})(?: agora)?(?![\\p{L}\\p{M}])`,
        'iu',
      ),
      slot: (m, h) => diet(h, m[1]!),
    },
    {
      name: 'allergy',
      re: /^(?:eu )?(?:sou (?:muito )?alérgic[oa]|tenho alergia) (?:a|ao|à|aos|às|de) (.+)$/iu,
      slot: (m, h) => allergy(h, m[1]!),
    },
    {
      name: 'home',
      re: /^(?:(?:agora|atualmente) )*(?:eu )?(?:moro|vivo|resido) (?:(?:agora|atualmente) )?(?:em|no|na|nos|nas) (.+)$/iu,
      slot: (m, h) => home(h, m[1]!),
    },
    {
      name: 'moved home',
      re: /^(?:(?:agora|já) )?(?:eu )?(?:me mudei|mudei-me|mudei|fui morar)(?: de casa)?(?: (?:de|do|da) .+?)? (?:para|pra|pro|em|no|na) (?:o |a )?(.+)$/iu,
      slot: (m, h) => home(h, m[1]!),
    },
    {
      name: 'employer',
      re: /^(?:(?:agora|atualmente) )*(?:eu )?(?:trabalho|estou trabalhando|tô trabalhando) (?:(?:agora|atualmente) )?(?:na|no|em|para a|para o|para|pra) (.+)$/iu,
      slot: (m, h) => employer(h, m[1]!),
    },
    {
      name: 'new employer',
      re: /^(?:eu )?(?:entrei (?:na|no|para a|para o|para)|comecei (?:a trabalhar )?(?:na|no|em)) (.+)$/iu,
      slot: (m, h) => employer(h, m[1]!, true),
    },
    {
      name: 'left one employer for another',
      re: /^(?:eu )?(?:saí|sai|deixei|larguei) (?:da|do|de|a|o) .+? e (?:agora )?(?:entrei|comecei|trabalho|fui) (?:a trabalhar )?(?:na|no|em|para a|para o|para|pra) (.+)$/iu,
      slot: (m, h) => employer(h, m[1]!, true),
    },
    {
      name: 'partner',
      re: /^(?:eu )?(?:sou|estou) (?:agora )?(casad[oa]|noiv[oa]|namorando) (?:com )?(.+)$|^(?:eu )?namoro (?:com )?(.+)$|^(?:eu )?(?:me )?(casei|noivei) com (.+)$/iu,
      slot: (m, h) =>
        partner(h, /^cas/iu.test(m[1] ?? m[4] ?? '') ? 'spouse' : 'partner', m[2] ?? m[3] ?? m[5]!),
    },
    {
      name: 'someone’s home',
      re: /^(?:[OoAa] )?(?:[Mm]eu|[Mm]inha) ([\p{Ll}-]+)(?: (\p{Lu}[\p{L}\p{M}'’-]*))? (?:mora|vive|se mudou) (?:em|no|na|para) (.+)$/u,
      slot: (m, h) => (h.isRelation(m[1]!) ? aboutSomeone(h, m[2] ?? m[1]!, m[3]!, 'home') : null),
    },
  ],
};
