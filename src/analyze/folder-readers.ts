// The folder formats `analyze` and `report` read, in the order they are tried: the first whose files
// give a reading is the folder's, and the others' files are named as not read. A new format is its
// module (a FolderReader record, folder-reader.ts) and one line here.
import type { FolderReader } from './folder-reader.ts';
import { LM_EVAL_READER } from './lm-eval-results.ts';
import { TRAINER_STATE_READER } from './trainer-state.ts';

export const FOLDER_READERS: readonly FolderReader[] = [
  LM_EVAL_READER,
  TRAINER_STATE_READER,
];
