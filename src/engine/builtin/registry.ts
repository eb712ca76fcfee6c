// The families the built-in engine implements, listed once: config.json `model_type` -> the file
// implementing that family (families/<name>.ts), and everything else that names families derives
// from this list: the families a model can be initialised from scratch in (`train --init`, a study
// model's `init`, their help and schema), the LoRA defaults in the help text. A new family is its
// file and its line here (test/design/families.test.ts).
import { UserError } from '../../errors.ts';
import type { Arch, Family, ScratchFamily } from './families/family.ts';
import { gpt2 } from './families/gpt2.ts';
import { llama } from './families/llama.ts';
import { olmo2 } from './families/olmo2.ts';
import { opt } from './families/opt.ts';
import { qwen2 } from './families/qwen2.ts';

// Each key is the family's name: its file's name and the model_type its config.json carries.
// SmolLM checkpoints are model_type "llama", so they need no entry of their own.
const FAMILIES = { gpt2, opt, llama, qwen2, olmo2 };

type Families = typeof FAMILIES;
/** The families' names. */
export type FamilyName = keyof Families;
/** The families a tiny model can be initialised from scratch in: those with a scratchConfig. */
export type InitFamily = { [K in FamilyName]: Families[K] extends { scratchConfig: unknown } ? K : never }[FamilyName];

/** Every family's name, in the registry's order. */
export const FAMILY_NAMES = Object.keys(FAMILIES) as FamilyName[];

/** The families a tiny model can be initialised from scratch in (`--init`, a study model's `init`), in the registry's order. */
export const INIT_FAMILIES = FAMILY_NAMES.filter((name) => FAMILIES[name].scratchConfig !== undefined) as readonly InitFamily[] as
  readonly [InitFamily, ...InitFamily[]];

/** A family that can be initialised from scratch, by name. */
export function scratchFamily(name: InitFamily): ScratchFamily {
  return FAMILIES[name] as ScratchFamily;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each family has its own Arch type; familyFor hands one out as Family<Arch>
const LIST: Family<any>[] = Object.values(FAMILIES);

export function familyFor(modelType: unknown, file: string): Family<Arch> {
  const f = LIST.find((fam) => fam.modelTypes.includes(String(modelType)));
  if (!f) {
    const known = LIST.flatMap((fam) => fam.modelTypes).join(', ');
    throw new UserError(`${file}: model_type ${JSON.stringify(modelType)} is not supported (known: ${known})`);
  }
  return f;
}

export function knownModelTypes(): string[] {
  return LIST.flatMap((f) => f.modelTypes);
}

/** Every family, in the registry's order. */
export function allFamilies(): readonly Family<Arch>[] {
  return LIST;
}
