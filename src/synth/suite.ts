// What a generated suite is: its training set(s), its test sets and their designs. Declared apart from
// generate.ts (the classic design) so that artifacts.ts (the artifact design), which generate.ts
// calls, and generate.ts both import these types rather than each other.
import type { Example } from '../types.ts';
import type { ClassifyTaskSpec } from '../tasks/index.ts';
import type { CueName, CueRelation, SetDesign, SuiteDesign, SuiteOptions } from './design.ts';

export interface SuiteTestSet {
  id: string;
  role: SetDesign['role'];
  cue: CueName;
  relation: CueRelation;
  design: SetDesign;
  examples: Example[];
}

/** A training set of the suite other than `train` (the artifact design's variants: artifacts.ts). */
export interface TrainVariant {
  id: string;
  /** What differs from the other variants, in words. */
  note: string;
  examples: Example[];
}

export interface Suite {
  /** The options the suite was built from; `design` only when it is not the classic one (so the classic suite's manifest is unchanged). */
  options: Required<Omit<SuiteOptions, 'oodSets' | 'design'>> & { oodSets: SetDesign[]; design?: Exclude<SuiteDesign, 'classic'> };
  /** The training set (the first variant when the design has several). */
  train: Example[];
  /** Every training variant, `train` first; absent when the design has one training set. */
  trainVariants?: TrainVariant[];
  testSets: SuiteTestSet[];
  task: ClassifyTaskSpec;
  vocabulary: string[];
}
