/**
 * Test doubles and the shared conformance suite for the {@link Embedder} contract. Used only by
 * tests (excluded from the package build).
 *
 * @module
 */

import type { KeelError } from '@keel/errors';
import { describe, expect, it } from 'vitest';
import { checkEmbeddings, type Embedder, type EmbedderInfo, type EmbedPurpose } from './types.js';

/** Words that mean the same thing to {@link ConceptEmbedder} (each maps to the first). */
export const SYNONYMS: readonly (readonly string[])[] = [
  ['car', 'automobile', 'vehicle', 'sedan'],
  ['dog', 'puppy', 'canine', 'hound'],
  ['doctor', 'physician', 'medic'],
  ['coffee', 'espresso', 'latte'],
  ['sister', 'sibling'],
  ['job', 'work', 'employer', 'occupation'],
];

const concept = new Map<string, string>(SYNONYMS.flatMap((g) => g.map((w) => [w, g[0]!] as const)));

function hash(word: string): number {
  let h = 2166136261;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Options for {@link ConceptEmbedder}. */
export interface ConceptEmbedderOptions {
  dim?: number;
  model?: string;
  provider?: string;
}

/**
 * A deterministic embedder that knows synonyms: each word (after mapping synonyms to one concept)
 * adds to dimension hash(concept) mod dim. "automobile" and "car" point the same way; texts with no
 * shared concept are near-orthogonal. Records every call; `failWith` makes the next calls throw.
 */
export class ConceptEmbedder implements Embedder {
  readonly provider: string;
  readonly info: EmbedderInfo;
  /**
   * 0.1: by construction, a text sharing one concept with a question of q words and a text of d
   * words scores 1/√(q·d), at least 0.1 for the sizes tests use (q·d ≤ 100); texts sharing none
   * score 0 (a word hashed to another word's dimension aside).
   */
  readonly similarityFloor = 0.1;
  readonly calls: { texts: string[]; purpose: EmbedPurpose }[] = [];
  /** When set, embed throws it. */
  failWith: KeelError | null = null;

  constructor(options: ConceptEmbedderOptions = {}) {
    this.provider = options.provider ?? 'concept';
    this.info = {
      provider: this.provider,
      model: options.model ?? 'concept-v1',
      dim: options.dim ?? 384,
      dtype: 'fp32',
    };
  }

  /** The raw vector for a text. */
  vector(text: string): number[] {
    const v = new Array<number>(this.info.dim).fill(0);
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      const c = concept.get(word) ?? word.replace(/s$/, '');
      v[hash(c) % this.info.dim]! += 1;
    }
    if (!v.some((x) => x !== 0)) v[this.info.dim - 1] = 1;
    return v;
  }

  async init(): Promise<EmbedderInfo> {
    return this.info;
  }

  async embed(texts: readonly string[], purpose: EmbedPurpose): Promise<Float32Array[]> {
    this.calls.push({ texts: [...texts], purpose });
    if (this.failWith) throw this.failWith;
    return checkEmbeddings(
      this.info,
      texts,
      texts.map((t) => this.vector(t)),
    );
  }
}

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
};
const norm = (a: Float32Array) => Math.sqrt(cosine(a, a));

/**
 * The conformance suite every embedder passes: shape, order, normalisation, determinism, batch
 * independence, the empty list, and a stable `init`.
 *
 * @param make - builds a fresh embedder (and a cleanup) for each test.
 */
export function describeEmbedderConformance(
  name: string,
  make: () => Promise<{ embedder: Embedder; cleanup?: () => Promise<void> | void }>,
): void {
  describe(`Embedder conformance: ${name}`, () => {
    const withEmbedder = (fn: (e: Embedder) => Promise<void>) => async () => {
      const { embedder, cleanup } = await make();
      try {
        await fn(embedder);
      } finally {
        await embedder.close?.();
        await cleanup?.();
      }
    };

    it(
      'init describes it and is stable',
      withEmbedder(async (e) => {
        const info = await e.init();
        expect(info.provider).toBe(e.provider);
        expect(info.model).not.toBe('');
        expect(Number.isInteger(info.dim) && info.dim > 0).toBe(true);
        expect(await e.init()).toEqual(info);
      }),
    );

    it(
      'returns one unit-length vector of the declared dimension per text, in order',
      withEmbedder(async (e) => {
        const { dim } = await e.init();
        const texts = ['the cat sat on the mat', 'quarterly tax filing', 'a b'];
        const vs = await e.embed(texts, 'document');
        expect(vs).toHaveLength(3);
        for (const v of vs) {
          expect(v).toBeInstanceOf(Float32Array);
          expect(v).toHaveLength(dim);
          expect(norm(v)).toBeCloseTo(1, 4);
        }
        // In order: each batch position equals that text embedded alone.
        for (const [i, t] of texts.entries()) {
          const [alone] = await e.embed([t], 'document');
          expect(cosine(alone!, vs[i]!)).toBeCloseTo(1, 4);
        }
      }),
    );

    it(
      'is deterministic and tells different texts apart',
      withEmbedder(async (e) => {
        const [a1] = await e.embed(['my sister lives in Lisbon'], 'query');
        const [a2] = await e.embed(['my sister lives in Lisbon'], 'query');
        const [b] = await e.embed(['invoice number 4471 is overdue'], 'query');
        expect(cosine(a1!, a2!)).toBeCloseTo(1, 5);
        expect(cosine(a1!, b!)).toBeLessThan(0.999);
      }),
    );

    it(
      'embeds an empty list to an empty list',
      withEmbedder(async (e) => {
        expect(await e.embed([], 'document')).toEqual([]);
      }),
    );
  });
}

// ---------------------------------------------------------------------------------------------
// A tiny BERT-shaped ONNX model, generated at test time: the real transformers.js pipeline runs on
// it (tokenizer, ONNX runtime, mean pooling), with meaningless weights.

/** The subset of onnx.proto the generator writes (field numbers from onnx/onnx.proto). */
const ONNX_PROTO = {
  nested: {
    onnx: {
      nested: {
        ModelProto: {
          fields: {
            ir_version: { type: 'int64', id: 1 },
            producer_name: { type: 'string', id: 2 },
            graph: { type: 'GraphProto', id: 7 },
            opset_import: { rule: 'repeated', type: 'OperatorSetIdProto', id: 8 },
          },
        },
        OperatorSetIdProto: {
          fields: { domain: { type: 'string', id: 1 }, version: { type: 'int64', id: 2 } },
        },
        GraphProto: {
          fields: {
            node: { rule: 'repeated', type: 'NodeProto', id: 1 },
            name: { type: 'string', id: 2 },
            initializer: { rule: 'repeated', type: 'TensorProto', id: 5 },
            input: { rule: 'repeated', type: 'ValueInfoProto', id: 11 },
            output: { rule: 'repeated', type: 'ValueInfoProto', id: 12 },
          },
        },
        NodeProto: {
          fields: {
            input: { rule: 'repeated', type: 'string', id: 1 },
            output: { rule: 'repeated', type: 'string', id: 2 },
            name: { type: 'string', id: 3 },
            op_type: { type: 'string', id: 4 },
            attribute: { rule: 'repeated', type: 'AttributeProto', id: 5 },
          },
        },
        AttributeProto: {
          fields: {
            name: { type: 'string', id: 1 },
            i: { type: 'int64', id: 3 },
            type: { type: 'int32', id: 20 },
          },
        },
        TensorProto: {
          fields: {
            dims: { rule: 'repeated', type: 'int64', id: 1 },
            data_type: { type: 'int32', id: 2 },
            name: { type: 'string', id: 8 },
            raw_data: { type: 'bytes', id: 9 },
          },
        },
        ValueInfoProto: {
          fields: { name: { type: 'string', id: 1 }, type: { type: 'TypeProto', id: 2 } },
        },
        TypeProto: {
          fields: { tensor_type: { type: 'TensorTypeProto', id: 1 } },
        },
        TensorTypeProto: {
          fields: {
            elem_type: { type: 'int32', id: 1 },
            shape: { type: 'TensorShapeProto', id: 2 },
          },
        },
        TensorShapeProto: {
          fields: { dim: { rule: 'repeated', type: 'Dimension', id: 1 } },
        },
        Dimension: {
          fields: { dim_value: { type: 'int64', id: 1 }, dim_param: { type: 'string', id: 2 } },
        },
      },
    },
  },
};

const FLOAT = 1;
const INT64 = 7;

/**
 * Writes a tiny BERT-shaped model folder for transformers.js: a WordPiece tokenizer over letters
 * and digits, and an ONNX graph `last_hidden_state = tanh(embedding[input_ids]) · attention_mask`
 * with seeded random weights (`hidden` wide). Meaningless, deterministic, and the real code path.
 *
 * @param modelsDir - the models folder; the files go to `<modelsDir>/<spec.id>/`.
 * @returns the model folder.
 */
export async function writeTinyBertModel(
  modelsDir: string,
  spec: { id: string; files: readonly string[] },
  hidden = 32,
): Promise<string> {
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const { join, dirname } = await import('node:path');
  const protobuf = (await import('protobufjs')).default;
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const chars = [...'abcdefghijklmnopqrstuvwxyz0123456789'];
  const tokens = [
    ...specials,
    ...chars,
    ...chars.map((c) => `##${c}`),
    ...'.,!?\'"-:;()'.split(''),
  ];
  const vocab = Object.fromEntries(tokens.map((t, i) => [t, i]));
  const special = (content: string) => ({
    id: vocab[content],
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map(special),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [vocab['[CLS]']], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [vocab['[SEP]']], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
  const tokenizerConfig = {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    model_max_length: 512,
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    mask_token: '[MASK]',
  };
  const config = {
    model_type: 'bert',
    architectures: ['BertModel'],
    hidden_size: hidden,
    vocab_size: tokens.length,
    max_position_embeddings: 512,
    num_attention_heads: 1,
    num_hidden_layers: 1,
  };

  let seed = 12345;
  const rand = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 4294967296 - 0.5;
  };
  const weights = new Float32Array(tokens.length * hidden).map(() => rand() * 2);
  const dim = (v: number | string) => (typeof v === 'number' ? { dim_value: v } : { dim_param: v });
  const io = (name: string, elem: number, dims: (number | string)[]) => ({
    name,
    type: { tensor_type: { elem_type: elem, shape: { dim: dims.map(dim) } } },
  });
  const root = protobuf.Root.fromJSON(ONNX_PROTO);
  const Model = root.lookupType('onnx.ModelProto');
  const model = Model.create({
    ir_version: 8,
    producer_name: 'keel-tests',
    opset_import: [{ domain: '', version: 13 }],
    graph: {
      name: 'tiny-bert',
      initializer: [
        {
          name: 'embeddings',
          dims: [tokens.length, hidden],
          data_type: FLOAT,
          raw_data: Buffer.from(weights.buffer),
        },
        {
          name: 'axes',
          dims: [1],
          data_type: INT64,
          raw_data: Buffer.from(new BigInt64Array([-1n]).buffer),
        },
      ],
      node: [
        { op_type: 'Gather', input: ['embeddings', 'input_ids'], output: ['gathered'], name: 'g' },
        { op_type: 'Tanh', input: ['gathered'], output: ['activated'], name: 't' },
        {
          op_type: 'Cast',
          input: ['attention_mask'],
          output: ['mask_f'],
          name: 'c',
          attribute: [{ name: 'to', i: FLOAT, type: 2 }],
        },
        { op_type: 'Unsqueeze', input: ['mask_f', 'axes'], output: ['mask_3d'], name: 'u' },
        {
          op_type: 'Mul',
          input: ['activated', 'mask_3d'],
          output: ['last_hidden_state'],
          name: 'm',
        },
      ],
      input: [
        io('input_ids', INT64, ['batch', 'sequence']),
        io('attention_mask', INT64, ['batch', 'sequence']),
      ],
      output: [io('last_hidden_state', FLOAT, ['batch', 'sequence', hidden])],
    },
  });
  const onnx = Model.encode(model).finish();
  const folder = join(modelsDir, spec.id);
  const contents: Record<string, string | Uint8Array> = {
    'config.json': JSON.stringify(config),
    'tokenizer.json': JSON.stringify(tokenizer),
    'tokenizer_config.json': JSON.stringify(tokenizerConfig),
  };
  for (const file of spec.files) {
    const data = contents[file] ?? (file.endsWith('.onnx') ? onnx : undefined);
    if (data === undefined) throw new Error(`writeTinyBertModel: no content for ${file}`);
    mkdirSync(dirname(join(folder, file)), { recursive: true });
    writeFileSync(join(folder, file), data);
  }
  return folder;
}
