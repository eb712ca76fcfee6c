// Rows of a registered set that a study's released code kept by mistake, and what it did with them,
// so that `protocol: official` can replay the mistake (registry.json's `replayedBug`). One today:
// study A's predecessor (ilboglions/DL2024 d382ab1) built MNLI with `super(SNLIDataset, self).__init__`
// (src/data/NLIDataset.py:168-170), which skips SNLI's neutral filter (:76): neutral rows (label 1)
// stay, train toward token id 1 (change_labels maps only 0 and 2, :86-91) and are scored with gold
// "Yes" (src/utils.py:40-41 sets 1 only where the label is the " No" token).
import type { DataSetSpec } from './spec.ts';
import { readRegistry, type Registry } from './registry.ts';

export interface ReplayedBug {
  /** The label (after labelNames) whose rows the release kept. */
  label: string;
  /** The gold label the release scored those rows with. */
  gold: string;
  /** The token id the release trained those rows toward, whatever the tokenizer. */
  trainTokenId: number;
  /** Where the release does it (file:line at a commit). */
  source: string;
}

/** The replayed bug of a registry id's set ("study-a/mnli:train"), if it has one. */
export function replayedBugOf(id: string, registry: Registry = readRegistry()): ReplayedBug | undefined {
  return registry.sets[id.split(':')[0]]?.replayedBug;
}

/**
 * The spec with the bug's rows kept rather than dropped: labelled with the release's gold (for
 * evaluation) or under their own label (for training, where they get the release's token id).
 */
export function keepingBugRows(spec: DataSetSpec, bug: ReplayedBug, as: 'gold' | 'own'): DataSetSpec {
  return {
    ...spec,
    labels: { ...spec.labels, [bug.label]: as === 'gold' ? bug.gold : bug.label },
    dropLabels: (spec.dropLabels ?? []).filter((l) => l !== bug.label),
  };
}
