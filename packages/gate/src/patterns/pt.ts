/**
 * The pattern gate in Portuguese (European and Brazilian): the owner's home, work, family and
 * routines, and their changes ("Moro em Lisboa", "Saí da Acme", "A minha irmã chama-se Inês",
 * "Corro todas as manhãs", "Deixei de beber café"). Portuguese drops the subject, so a statement
 * is read from its first-person verb; a clause that opens with "se" supposes, unless the "se" is
 * a pronoun ("se chama").
 *
 * @module
 */
import { capitalisedIn, type LanguagePatterns } from './language.js';

/** People and animals in the owner's life. */
const REL =
  '(?:mãe|pai|pais|irmão|irmã|irmãos|irmãs|filho|filha|filhos|filhas|marido|esposa|esposo|mulher|' +
  'namorad[oa]|companheir[oa]|avó|avô|avós|ti[oa]|prim[oa]|sobrinh[oa]|sogr[oa]|cunhad[oa]|amig[oa]|' +
  'melhor amig[oa]|chefe|colega|vizinh[oa]|cão|cadela|cachorr[oa]|gat[oa]|médic[oa]|dentista)';
/** Occupations, both genders, for "sou …". */
const JOBS =
  '(?:professor[a]?|engenheir[oa]|enfermeir[oa]|médic[oa]|advogad[oa]|programador[a]?|' +
  'desenvolvedor[a]?|designer|arquitect?[oa]|estudante|cozinheir[oa]|garçom|garçonete|contabilista|' +
  'contador[a]?|jornalista|dentista|farmacêutic[oa]|veterinári[oa]|polícia|policial|bombeir[oa]|' +
  'funcionári[oa] públic[oa]|reformad[oa]|aposentad[oa]|investigador[a]?|pesquisador[a]?|' +
  'tradutor[a]?|psicólog[oa]|analista|consultor[a]?|freelancer|autónom[oa]|autônom[oa])';
/** Where someone works: a team, project, company. */
const UNIT = '(?:equipa|equipe|time|projeto|projecto|departamento|empresa|emprego|trabalho|cargo)';
/** How often: "todas as manhãs", "aos sábados", "duas vezes por semana". */
const WEEKDAY = '(?:segundas|terças|quartas|quintas|sextas)(?:-feiras)?';
const OFTEN =
  `(?:todos os (?:dias|sábados|domingos|fins de semana|meses|anos)|todas as (?:manhãs|noites|tardes|semanas|${WEEKDAY})|` +
  'cada (?:dia|semana|manhã|noite|mês|segunda|terça|quarta|quinta|sexta|sábado|domingo)|' +
  `(?:às|as) ${WEEKDAY}|aos (?:sábados|domingos|fins de semana)|(?:uma|duas|três|\\d+) vezes por ` +
  '(?:dia|semana|mês|ano)|diariamente)';
const FREQUENCY = new RegExp(`(?:^|\\s)${OFTEN}(?![\\p{L}])`, 'u');
/** One word that may be a name (checked for a capital where the owner wrote it). */
const NAME = '([\\p{L}][\\p{L}\\p{N}&.-]*)';
const named = (m: RegExpExecArray, _s: string, clause: string) =>
  m.slice(1).every((w) => w === undefined || capitalisedIn(clause, w));
/** First-person verbs that say "I can't", "I don't know": not a habit that stopped. */
const NOT_HABIT = '(?!(?:sei|posso|aguento|percebo|entendo|lembro|quero)(?![\\p{L}]))';

/** Portuguese. */
export const PORTUGUESE: LanguagePatterns = {
  code: 'pt',
  leadIn:
    /^(?:(?:então|bem|olha|olhe|pois|aliás|também|e|mas|ok|sim|não,|agora|atualmente|actualmente|hoje em dia|ultimamente|olá|oi|haha|kkk|ah|já agora|desde (?:\d+ )?[\p{L}]+|há (?:\d+|um|uma|dois|duas|três|alguns|algumas) [\p{L}]+|(?:no|este) (?:ano|mês) passado|em (?:janeiro|fevereiro|março|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro|\d{4}))(?![\p{L}])[\s,.!]*)+/u,
  notReal:
    /^(?:se(?!\s+(?:chama|chamam|mudou|mudaram|casou|casaram|formou|aposentou|reformou|divorciou|separou)(?![\p{L}]))|imagina|imagine|suponhamos|supondo|e se|digamos que|no (?:meu )?sonho|na (?:história|novela))(?![\p{L}])/u,
  asks: /^(?:podes|pode|poderias|poderia|podia|consegues|consegue|sabes|sabe|lembras|lembra|você pode|você sabe|será que|diz-me|me diz|procura|procura-me|escreve|escreve-me|encontra|encontra-me)(?![\p{L}])/u,
  wh: /^(?:onde|quando|como|porque|por que|porquê|quem|qual|quais|quanto|quantos|quantas|o que|que)(?![\p{L}])/u,
  reported: /(?:^|\s)(?:diz|disse|disseram|dizem|acha|pensa|contou|conta|segundo|falou)(?=\s|$)/u,
  hedge:
    /(?:^|\s)(?:talvez|se calhar|quem sabe|não sei se|gostaria|iria|seria|teria|moraria|mudaria|trabalharia|faria|poderia|deveria|queria)(?=\s|$)/u,
  clauses: [
    [
      'relationship',
      'named relation (pt)',
      new RegExp(
        `^(?:(?:a|o|as|os) )?(?:minha|meu|minhas|meus|nossa|nosso|nossas|nossos) ${REL}(?: [\\p{L}-]+)? ` +
          '(?:chama-se|se chama|chamam-se|se chamam|mora|moram|vive|vivem|trabalha|trabalham|estuda|estudam|' +
          `tem \\d+ anos|casou|se casou|casou-se|faleceu|morreu|(?:é|são) ${JOBS})(?![\\p{L}])`,
        'u',
      ),
    ],
    [
      'identity',
      'home (pt)',
      /^(?:eu |nós )?(?:moro|moramos|vivo|vivemos|resido|residimos|estou a viver|estou a morar|estou morando|estou vivendo) (?:em|no|na|nos|nas|perto|com|sozinh[oa]|aqui|há|desde|fora)(?![\p{L}])|^(?:eu |nós )?(?:mudei-me|me mudei|mudámo-nos|nos mudamos|mudamos|mudámos|mudei) (?:para|pra|de casa|há|no|em)(?![\p{L}])/u,
    ],
    [
      'identity',
      'from (pt)',
      new RegExp(`^(?:eu )?sou (?:natural )?(?:de|do|da) ${NAME}`, 'u'),
      named,
    ],
    [
      'identity',
      'work (pt)',
      new RegExp(
        '^(?:eu |nós )?(?:trabalho|trabalhamos|estou a trabalhar|estou trabalhando) (?:na|no|em|para|como|numa|num|' +
          'desde|agora|com|de casa|remotamente|a partir de casa|há)(?![\\p{L}])|' +
          '^(?:eu )?estou (?:agora )?(?:na|no) (?:equipa|equipe|time|projeto|projecto|departamento)(?![\\p{L}])|' +
          `^(?:eu )?sou ${JOBS}(?![\\p{L}])`,
        'u',
      ),
    ],
    [
      'identity',
      'work change (pt)',
      new RegExp(
        `^(?:eu )?(?:comecei|entrei) (?:a trabalhar )?(?:na|no|em|para) (?:(?:a |o )?${UNIT}|${NAME})|` +
          `^(?:eu )?(?:saí|sai|deixei) (?:da|do|de) (?:${UNIT}|${NAME})|` +
          `^(?:me )?(?:mudaram|transferiram|passaram|puseram|colocaram)(?:-me)? (?:para|pra) (?:(?:a|o) )?(?:${UNIT}|${NAME})|` +
          `^(?:eu )?(?:mudei|troquei) de ${UNIT}|^(?:eu )?fui (?:transferid|promovid|contratad|despedid|demitid)[oa](?![\\p{L}])`,
        'u',
      ),
      named,
    ],
    [
      'correction',
      'no longer (pt)',
      new RegExp(
        `^(?:eu )?(?:deixei|parei) de [\\p{L}]+r(?![\\p{L}])|^(?:eu )?já não ${NOT_HABIT}[\\p{L}]+o(?![\\p{L}])|` +
          `^(?:eu )?não ${NOT_HABIT}[\\p{L}]+o (?:[\\p{L}]+ )?mais(?![\\p{L}])`,
        'u',
      ),
    ],
    [
      'preference',
      'routine (pt)',
      new RegExp(
        `^(?:${OFTEN},? )?(?:(?:eu|também|sempre|normalmente|geralmente)\\s+)*(?:(costumo|costumamos)|` +
          '(?!(?:não|eu|como|todo|pelo|isso|isto|mesmo|muito|pouco|quando|porque)(?![\\p{L}]))[\\p{L}]+(?:o|ou)|' +
          '[\\p{L}]+(?:amos|emos|imos))(?![\\p{L}])',
        'u',
      ),
      (m, _s, clause) => m[1] !== undefined || FREQUENCY.test(clause.toLowerCase()),
    ],
  ],
};
