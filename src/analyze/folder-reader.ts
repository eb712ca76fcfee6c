// What a reader of a folder format (lm-evaluation-harness output, Trainer run folders) declares, in
// one record beside its code: the files it reads, the words `analyze` and `report` describe it with,
// and its read function. The records are listed once, in folder-readers.ts; the folder listing
// (score-folder.ts), the dispatch (read-scores.ts) and the inputs' help (SCORE_INPUTS) are made from
// that list, so a new format is its module and one line there.
import type { ScoreReading } from './score-reading.ts';

export interface FolderReader {
  /** The name its files are listed under in a folder's listing (score-folder.ts), e.g. "trainerStates". */
  listedAs: string;
  /** Whether a file of this name (anywhere under the folder) is one it may read. */
  claims(name: string): boolean;
  /** In the inputs' help, after "a folder of": "Trainer run folders (trainer_state.json)". */
  inputWords: string;
  /** In the error for a folder holding no reader's files, after "no": "trainer_state.json". */
  lookedFor: string;
  /** In the note for its files left unread beside another format's: "trainer_state.json file(s)". */
  filesWord: string;
  /** In that note: what a folder holds when this reader read it ("lm-evaluation-harness output"), how to give it alone ("a Trainer run folder"). */
  holds: string;
  alone: string;
  /** Reads the listed files: `reading` undefined when none is of this format, `leftOut` naming every file not read and why. */
  read(folder: string, files: readonly string[]): Promise<{ reading?: ScoreReading; leftOut: string[] }>;
}

/** JSON files Hugging Face and PEFT write beside weights: no reader takes one for a pattern such as "*.json" (trainer_state.json is named). */
export const MODEL_FILES: ReadonlySet<string> = new Set([
  'config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json',
  'vocab.json', 'added_tokens.json', 'adapter_config.json', 'preprocessor_config.json', 'processor_config.json',
  'chat_template.json', 'trainer_state.json',
]);
