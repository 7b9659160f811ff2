/**
 * The pattern gate in Spanish: the owner's home, work, family and routines, and their changes
 * ("Vivo en Madrid", "Me cambiaron al proyecto Heron", "Mi hermana se llama Lucía", "Los sábados
 * juego al pádel", "He dejado de tomar café"). Spanish drops the subject, so a statement is read
 * from its first-person verb; a clause that opens with "si" supposes.
 *
 * @module
 */
import { capitalisedIn, type LanguagePatterns } from './language.js';

/** People and animals in the owner's life. */
const REL =
  '(?:madre|mamá|padre|papá|padres|herman[oa]s?|hij[oa]s?|marido|espos[oa]|mujer|pareja|novi[oa]|' +
  'abuel[oa]s?|tí[oa]|prim[oa]|sobrin[oa]|suegr[oa]|cuñad[oa]|amig[oa]|mejor amig[oa]|jef[ea]|' +
  'compañer[oa](?: de (?:piso|trabajo|equipo))?|vecin[oa]|perr[oa]|gat[oa]|médic[oa]|dentista|' +
  'psicólog[oa]|terapeuta)';
/** Occupations, both genders, for "soy …" and "mi hermana es …". */
const JOBS =
  '(?:médic[oa]|enfermer[oa]|profesor[a]?|maestr[oa]|ingenier[oa]|abogad[oa]|programador[a]?|' +
  'desarrollador[a]?|diseñador[a]?|arquitect[oa]|estudiante|cociner[oa]|camarer[oa]|contador[a]?|' +
  'contable|periodista|dentista|farmacéutic[oa]|veterinari[oa]|policía|bomber[oa]|funcionari[oa]|' +
  'autónom[oa]|jubilad[oa]|psicólog[oa]|investigador[a]?|traductor[a]?|artista|dentista|' +
  'electricista|fisioterapeuta|taxista|recepcionista|economista|analista|científic[oa]|' +
  'informátic[oa]|fontaner[oa]|carpinter[oa]|peluquer[oa]|panader[oa]|dependient[ea]|' +
  'conductor[a]?|agricultor[a]?|empresari[oa]|consultor[a]?)';
/** Where someone works: a team, project, office. */
const UNIT = '(?:equipo|proyecto|departamento|área|oficina|sede|puesto|empresa|trabajo)';
/** How often: "todos los martes", "cada mañana", "dos veces por semana", "los sábados". */
const OFTEN =
  '(?:tod[oa]s l[oa]s (?:días|mañanas|tardes|noches|semanas|meses|años|lunes|martes|miércoles|jueves|' +
  'viernes|sábados|domingos|fines de semana)|cada (?:día|mañana|tarde|noche|semana|mes|lunes|martes|' +
  'miércoles|jueves|viernes|sábado|domingo|fin de semana)|(?:una|dos|tres|cuatro|\\d+) veces (?:al|a la|por) ' +
  '(?:día|semana|mes|año)|a diario|los (?:lunes|martes|miércoles|jueves|viernes|sábados|domingos|fines de semana))';
const FREQUENCY = new RegExp(`(?:^|\\s)${OFTEN}(?![\\p{L}])`, 'u');

/** A capitalised name in the clause as written (the captured word), or a work word. */
const named = (m: RegExpExecArray, _s: string, clause: string) =>
  m[1] === undefined || capitalisedIn(clause, m[1]);

/** Spanish. */
export const SPANISH: LanguagePatterns = {
  code: 'es',
  leadIn:
    /^(?:(?:pues|bueno|oye|mira|por cierto|además|también|y|pero|o sea|la verdad(?: es que)?|al final|finalmente|ahora|actualmente|hoy en día|últimamente|desde hace poco|ok|vale|sí|jaja|hola|desde (?:hace )?(?:\d+ |un |una |dos |tres )?[\p{L}]+|hace [\p{L}\d]+ [\p{L}]+|(?:el|este) (?:año|mes) pasado|en (?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|\d{4}))(?![\p{L}])[\s,.!]*)+/u,
  notReal:
    /^(?:si(?!,)|supongamos|imagina|imaginemos|imagínate|pongamos que|digamos que|en (?:mi|el|un) sueño|en (?:la|mi) (?:historia|novela|película))(?![\p{L}])/u,
  asks: /^(?:¿|puedes|podrías|puede|podría|me (?:puedes|podrías|recuerdas|dices)|sabes|recuerdas|te acuerdas|dime|busca|búscame|escribe|escríbeme)/u,
  wh: /^(?:qué|dónde|cuándo|cómo|quién|quiénes|cuál|cuáles|cuánto|cuántos|cuántas|por qué)(?![\p{L}])/u,
  reported:
    /(?:^|\s)(?:dice|dijo|dicen|dijeron|cree|piensa|comenta|comentó|cuenta|contó|me ha dicho|según)(?=\s|$)/u,
  hedge:
    /(?:^|\s)(?:quizás?|tal vez|a lo mejor|puede que|no sé si|ojalá|me gustaría|iría|sería|tendría|viviría|trabajaría|haría|podría|querría|ganaría|estaría|debería|habría)(?=\s|$)/u,
  clauses: [
    [
      'relationship',
      'named relation (es)',
      new RegExp(
        `^(?:mi|mis|nuestr[oa]s?) ${REL}(?: [\\p{L}-]+)? (?:se llaman?|vive|viven|trabaja|trabajan|estudia|` +
          `estudian|se (?:casó|casa|mudó|jubiló|divorció)|falleció|murió|tiene \\d+ años|(?:es|son) ${JOBS}(?![\\p{L}]))`,
        'u',
      ),
    ],
    [
      'identity',
      'home (es)',
      /^(?:vivo|vivimos|resido|residimos|estoy viviendo|estamos viviendo) (?:en|con|cerca|desde|solo|sola|fuera)(?![\p{L}])|^(?:me|nos) (?:he |hemos )?(?:mudé|mudamos|mudado|trasladé|trasladamos|trasladado|fui a vivir|fuimos a vivir)(?![\p{L}])|^(?:acabo|acabamos) de mudar(?:me|nos)/u,
    ],
    ['identity', 'from (es)', /^soy de ([\p{L}-]+)/u, named],
    [
      'identity',
      'work (es)',
      new RegExp(
        `^(?:trabajo|trabajamos|estoy trabajando) (?:en|para|como|de|desde|con|ahora|a distancia|desde casa)(?![\\p{L}])|` +
          '^(?:estoy|estamos) (?:ahora )?en (?:el|la) (?:equipo|proyecto|departamento|área)(?![\\p{L}])' +
          `(?! de (?:mi|mis|tu|tus|su|sus)(?![\\p{L}]))|^soy ${JOBS}(?![\\p{L}])`,
        'u',
      ),
    ],
    [
      'identity',
      'work change (es)',
      new RegExp(
        `^(?:empecé|comencé|entré|he empezado|he entrado|he comenzado|acabo de empezar|acabo de entrar) (?:a trabajar )?` +
          `(?:en|a|con|para) (?:(?:el|la) ${UNIT}|([\\p{L}][\\p{L}\\p{N}&.-]*))|` +
          `^(?:dejé|he dejado) (?:mi (?:trabajo|empleo|puesto)|(?:el|la) ${UNIT}|([\\p{L}][\\p{L}\\p{N}&.-]*)(?= |$))|` +
          `^me (?:han )?(?:cambiado|cambiaron|pasaron|pasado|movieron|movido|trasladaron|trasladado|asignaron|asignado|ascendieron|ascendido)` +
          ` (?:(?:a|al) (?:${UNIT}|([\\p{L}][\\p{L}\\p{N}&.-]*))|de ${UNIT})|` +
          `^(?:me he cambiado|me cambié|cambié|he cambiado) de ${UNIT}`,
        'u',
      ),
      (m, _s, clause) =>
        [m[1], m[2], m[3]].every((w) => w === undefined || capitalisedIn(clause, w)),
    ],
    [
      'correction',
      'no longer (es)',
      /^(?:he dejado de|dejé de) [\p{L}]+|^ya no (?!(?:sé|puedo|entiendo|recuerdo|quiero|aguanto|me acuerdo)(?![\p{L}]))[\p{L}]+o(?![\p{L}])/u,
    ],
    [
      'preference',
      'routine (es)',
      new RegExp(
        `^(?:${OFTEN},? )?(?:(?:también|siempre|normalmente|casi siempre|yo)\\s+)*(?:(suelo|solemos)|` +
          '(?!(?:no|pero|todo|cuando|como si|mismo|algo|luego|eso|esto|yo)(?![\\p{L}]))[\\p{L}]+(?:o|oy)|' +
          '[\\p{L}]+(?:amos|emos|imos))(?![\\p{L}])',
        'u',
      ),
      (m, _s, clause) => m[1] !== undefined || FREQUENCY.test(clause.toLowerCase()),
    ],
  ],
};
