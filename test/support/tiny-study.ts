// The study file of the tests that run whole studies: a one-layer GPT-2 from scratch trained on the
// synthetic suite. Each test names its sizes, methods (YAML flow maps) and the sections after them.
export interface TinyStudy {
  name: string;
  trainSize: number;
  testSize: number;
  /** One YAML flow map per method, e.g. `{ name: ft, kind: ft, lr: 0.01, steps: 8, batchSize: 8 }`. */
  methods: string[];
  /** Everything after `methods:` (seeds, checkpoints, evaluation, ...), as YAML text. */
  rest: string;
}

export function tinyStudyYaml(s: TinyStudy): string {
  return `name: ${s.name}
synthetic: { seed: 3, trainSize: ${s.trainSize}, testSize: ${s.testSize} }
models:
  - id: tiny
    init: { family: gpt2, layers: 1, hidden: 16, heads: 2 }
training:
  - id: synthetic
    data: synthetic
methods:
${s.methods.map((m) => `  - ${m}`).join('\n')}
${s.rest.trim()}
`;
}
