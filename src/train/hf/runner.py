"""genstudy's runner for Hugging Face transformers' Trainer (with PEFT for LoRA).

genstudy has already prepared everything a run trains on (src/train/hf/prepare.ts): the token ids,
which positions are scored and with which target, and the order of the micro-batches for the whole
run. This file only hands them to transformers' Trainer, so the optimisation, the distribution over
processes (accelerate launch / torchrun: DDP, DeepSpeed, FSDP), the checkpoints and the resume are
the Trainer's own. Usage:

    python runner.py RUN.json                       (one process)
    accelerate launch [...] runner.py RUN.json      (or torchrun [...] runner.py RUN.json)

RUN.json (written by genstudy) names the model, the data files and the settings; see prepare.ts.
Tested with the versions in docs/scale.md.
"""
import json
import os
import re
import shutil
import sys

import torch
import transformers
from transformers import AutoModelForCausalLM, Trainer, TrainerCallback, TrainingArguments

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json", "merges.txt", "tokenizer.model")


class MicroBatches(torch.utils.data.Dataset):
    """Item i is micro-batch i of the run's stream: a list of sequences, padded by `collate`."""

    def __init__(self, sequences, batches):
        self.sequences = sequences
        self.batches = batches

    def __len__(self):
        return len(self.batches)

    def __getitem__(self, i):
        return [self.sequences[j] for j in self.batches[i]]


def collate(items):
    # The Trainer's batch size is 1: one item is one whole micro-batch, so it never mixes batches.
    (seqs,) = items
    width = max(len(s["input_ids"]) for s in seqs)
    ids = torch.zeros((len(seqs), width), dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    # shift_labels[b, p] is the token the logits at position p must predict (-100: not scored), the
    # form transformers' ForCausalLMLoss takes as is; a classification target after the last input
    # token needs no extra input position this way.
    shift = torch.full((len(seqs), width), -100, dtype=torch.long)
    for b, s in enumerate(seqs):
        n = len(s["input_ids"])
        ids[b, :n] = torch.tensor(s["input_ids"])
        # Study A's padded reading: only the first real_length ids are tokens, the rest is padding.
        mask[b, : s.get("real_length", n)] = 1
        for p, t in zip(s["loss_positions"], s["targets"]):
            shift[b, p] = t
    # `labels` makes the model compute its loss; with shift_labels present it is not read for it.
    return {"input_ids": ids, "attention_mask": mask, "labels": shift.clone(), "shift_labels": shift}


class SaveAt(TrainerCallback):
    """genstudy's checkpoint policy (every N, log-spaced, the end) as an explicit list of steps."""

    def __init__(self, steps, base_dir):
        self.steps = set(steps)
        self.base_dir = base_dir

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step in self.steps:
            control.should_save = True
        return control

    def on_save(self, args, state, control, **kwargs):
        # The tokenizer files beside the weights, so the checkpoint is a complete model folder.
        if state.is_world_process_zero:
            dest = os.path.join(args.output_dir, f"checkpoint-{state.global_step}")
            for name in TOKENIZER_FILES:
                src = os.path.join(self.base_dir, name)
                target = os.path.join(dest, name)
                if os.path.exists(src) and os.path.isdir(dest) and not os.path.exists(target):
                    # Under a temporary name (one genstudy's folder check recognises), then renamed:
                    # a watcher never sees a partly written tokenizer.json as a complete checkpoint.
                    tmp = f"{target}.tmp-{os.getpid()}"
                    shutil.copyfile(src, tmp)
                    os.replace(tmp, target)
        return control


def last_checkpoint(out_dir):
    """The newest checkpoint-N (N >= 1) the Trainer completed (it has trainer_state.json)."""
    best = None
    if os.path.isdir(out_dir):
        for name in os.listdir(out_dir):
            m = re.fullmatch(r"checkpoint-(\d+)", name)
            if m and int(m.group(1)) > 0 and os.path.exists(os.path.join(out_dir, name, "trainer_state.json")):
                if best is None or int(m.group(1)) > best[0]:
                    best = (int(m.group(1)), os.path.join(out_dir, name))
    return best[1] if best else None


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def load_model(c):
    config = transformers.AutoConfig.from_pretrained(c["model"])
    if not c["model_dropout"]:
        # Every dropout rate of the model's config (GPT-2 *_pdrop, OPT dropout / attention_dropout,
        # Llama attention_dropout) to 0, as genstudy's --no-model-dropout.
        for key, value in list(config.to_dict().items()):
            if isinstance(value, float) and ("dropout" in key or "pdrop" in key):
                setattr(config, key, 0.0)
    kwargs = {"config": config, "dtype": getattr(torch, c["dtype"])}
    if c.get("attn_implementation"):
        kwargs["attn_implementation"] = c["attn_implementation"]
    model = AutoModelForCausalLM.from_pretrained(c["model"], **kwargs)
    if c["method"] != "lora":
        return model
    import peft

    if c["lora"].get("init"):
        # Start from a given adapter (e.g. genstudy's built-in checkpoint-0) instead of a fresh draw.
        return peft.PeftModel.from_pretrained(model, c["lora"]["init"], is_trainable=True)
    lc = peft.LoraConfig(r=c["lora"]["r"], lora_alpha=c["lora"]["alpha"], lora_dropout=c["lora"]["dropout"],
                         target_modules=c["lora"]["targets"], bias="none", task_type="CAUSAL_LM")
    return peft.get_peft_model(model, lc)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: runner.py RUN.json (written by genstudy train --backend hf)")
    with open(sys.argv[1]) as f:
        c = json.load(f)
    transformers.set_seed(c["seed"])
    model = load_model(c)
    s = c["settings"]
    args = TrainingArguments(
        output_dir=c["out_dir"],
        per_device_train_batch_size=1,  # one dataset item = one micro-batch of s["batch_size"] examples
        gradient_accumulation_steps=s["grad_accum_per_process"],
        max_steps=s["total_steps"],
        num_train_epochs=1,
        learning_rate=s["lr"],
        lr_scheduler_type=s["schedule"],
        warmup_steps=s["warmup_steps"],
        weight_decay=s["weight_decay"],
        adam_beta1=s["betas"][0],
        adam_beta2=s["betas"][1],
        adam_epsilon=s["eps"],
        max_grad_norm=s["max_grad_norm"],
        optim="adamw_torch",
        seed=c["seed"],
        train_sampling_strategy="sequential",  # genstudy's order is already in the stream
        average_tokens_across_devices=True,  # the loss is normalised by the whole step's target tokens
        # Every step: the Trainer logs the mean loss since its last log, genstudy the step's own loss;
        # genstudy keeps every log_every-th step of the history (log-history.ts).
        logging_steps=1,
        logging_first_step=False,
        save_strategy="no",  # SaveAt decides
        save_only_model=False,
        remove_unused_columns=False,
        dataloader_drop_last=False,
        report_to=[],
        disable_tqdm=True,
        use_cpu=c.get("use_cpu", False),
        **c.get("training_arguments", {}),
    )
    data = MicroBatches(read_jsonl(c["sequences"]), json.load(open(c["batches"])))
    trainer = Trainer(model=model, args=args, train_dataset=data, data_collator=collate,
                      callbacks=[SaveAt(c["save_steps"], c["model"])])
    if s.get("loss_weighting") == "micro-batch-mean":
        # The releases' transformers (< 4.46) and a model computing its own loss: each micro-batch's
        # token mean, divided by the accumulation steps (trainer.py training_step / compute_loss).
        trainer.model_accepts_loss_kwargs = False
    resume = last_checkpoint(c["out_dir"]) if c["resume"] else None
    if resume and trainer.is_world_process_zero():
        print(f"genstudy runner: resuming from {resume}", flush=True)
    trainer.train(resume_from_checkpoint=resume)
    trainer.save_state()


if __name__ == "__main__":
    main()
