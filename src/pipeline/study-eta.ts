// The time left for a whole study, from measured throughput per stage: seconds per training step
// and per checkpoint written (wall time while training, evaluation excluded, fitted over the
// stretches between checkpoints) and seconds per example the model answers (wall time while
// evaluating); each times the work of that kind still ahead. The work ahead is
// known from the plan, not guessed from a share of the clock: the current run's steps left and
// its checkpoints not yet evaluated (the study's checkpoint policy), each checkpoint costing as
// many answers as the last one evaluated; runs not started yet as the current one whole.
// No estimate until every kind of work ahead has been measured once (a training step and a
// checkpoint's evaluation); before that, an elapsed-time share scaled the log-spaced early
// checkpoints (dense evaluation, few steps) into estimates 20-30x too long. Answers from the cache
// cost about nothing and are neither measured nor predicted; work resumed from disk is not counted
// as done by this invocation.
import { checkpointSteps, type CheckpointPolicy } from '../train/index.ts';

type Phase = 'idle' | 'training' | 'evaluating';

/** What one run costs, as far as it is known: its training steps and checkpoints, or its answers when it does not train. */
interface RunShape { steps: number; checkpoints: number; evalOnlyAnswers: number }

/** Measured throughput counts as a basis after this much of a stage (the first steps and answers include warm-up). */
const BASIS = { steps: 20, evaluations: 1, seconds: 5 };
/**
 * Older measurements fade, halving with every this many seconds of newer measurement of the same
 * stage: on a shared machine the load changes over a study, and the demo measured on 2 cores
 * under changing load (about 10x slower at the start) read 3x too long on cumulative rates.
 */
const HALF_LIFE_S = 30;
const fade = (seconds: number) => Math.pow(0.5, seconds / HALF_LIFE_S);

export class StudyEta {
  private runIndex = -1;
  private runs = 0;
  private policy: CheckpointPolicy | undefined;
  /** The current run's shape once it has started training or evaluating; the previous run's stands in before. */
  private shape: RunShape | undefined;
  private lastShape: RunShape | undefined;
  /** This run's checkpoint steps (training runs), and its training steps total / done. */
  private schedule: number[] = [];
  private trainTotal = 0;
  private trainDone = 0;
  /** Highest checkpoint step evaluated (or being evaluated) in this run. */
  private evaluatedTo = -1;
  /** The evaluation in progress: answers it needs from the model, and those done. */
  private evalToCompute = 0;
  private evalComputed = 0;
  /** Answers one checkpoint needs from the model (the last single-checkpoint evaluation's). */
  private perCheckpoint: number | undefined;
  // Measured throughput, recent measurements weighing most (fade), and how much was seen in all (the basis).
  private trainSecondsSeen = 0;
  private stepsSeen = 0;
  private evalSecondsSeen = 0;
  private trainSeconds = 0;
  private stepsMeasured = 0;
  private evalSeconds = 0;
  private answersMeasured = 0;
  private evaluationsMeasured = 0;
  private phase: Phase = 'idle';
  private phaseSince = 0;
  private beforeEvaluation: Phase = 'idle';
  private stepAtPhaseStart = 0;
  private trainWarm = false;
  private evalWarm = false;
  /** Faded sums of the stretches between checkpoints: count, steps, seconds, steps^2, steps x seconds. */
  private readonly trainFit = { w: 0, x: 0, y: 0, xx: 0, xy: 0 };

  constructor(private readonly now: () => number) {}

  /** Closes the current phase's measurement; `next`: the phase that follows. */
  private account(next: Phase): void {
    const seconds = (this.now() - this.phaseSince) / 1000;
    if (this.phase === 'training') {
      const steps = this.trainDone - this.stepAtPhaseStart;
      // The first few steps of the invocation build the training graph and warm the kernels; a
      // short first stretch (the demo's step 1, between checkpoints 0 and 1) is left out.
      if (!this.trainWarm && steps > 0) {
        this.trainWarm = true;
        if (steps < BASIS.steps) return;
      }
      this.trainSeconds = this.trainSeconds * fade(seconds) + seconds;
      this.stepsMeasured = this.stepsMeasured * fade(seconds) + steps;
      this.trainSecondsSeen += seconds;
      this.stepsSeen += steps;
      // A stretch that ends in an evaluation ended in writing that checkpoint: its time is
      // steps x (per step) + one save, fitted over the stretches (dense early checkpoints made
      // the save look like step time, 4x too long).
      if (next === 'evaluating') {
        const f = fade(seconds);
        const t = this.trainFit;
        Object.assign(t, { w: t.w * f + 1, x: t.x * f + steps, y: t.y * f + seconds, xx: t.xx * f + steps * steps, xy: t.xy * f + steps * seconds });
      }
    } else if (this.phase === 'evaluating' && this.evalToCompute > 0) {
      // Likewise the first checkpoint's evaluation (the first model loaded and run), when more follow.
      if (!this.evalWarm && this.trainTotal > 0) {
        this.evalWarm = true;
        return;
      }
      this.evalSeconds = this.evalSeconds * fade(seconds) + seconds;
      this.answersMeasured = this.answersMeasured * fade(seconds) + this.evalComputed;
      this.evalSecondsSeen += seconds;
      this.evaluationsMeasured++;
    }
  }

  private enter(phase: Phase): void {
    this.account(phase);
    this.phase = phase;
    this.phaseSince = this.now();
    this.stepAtPhaseStart = this.trainDone;
  }

  startRun(index: number, total: number, policy?: CheckpointPolicy): void {
    this.enter('idle');
    if (this.shape) this.lastShape = this.shape;
    Object.assign(this, { runIndex: index, runs: total, policy, shape: undefined, schedule: [], trainTotal: 0, trainDone: 0, evaluatedTo: -1 });
  }

  startTraining(total: number, done: number): void {
    this.trainTotal = total;
    this.trainDone = done;
    this.schedule = this.policy ? checkpointSteps(this.policy, total) : [];
    this.shape = { steps: total, checkpoints: this.schedule.length, evalOnlyAnswers: 0 };
    // A resumed run's checkpoints up to `done` were written (and evaluated) before.
    if (done > 0) this.evaluatedTo = Math.max(this.evaluatedTo, done);
    this.enter(done < total ? 'training' : 'idle');
  }

  /** Training reached `step` (a logged step, or a checkpoint about to be evaluated). */
  trainedTo(step: number): void {
    this.trainDone = Math.max(this.trainDone, step);
  }

  startEvaluation(steps: readonly number[], toCompute: number): void {
    const duringTraining = this.phase === 'training';
    if (steps.length === 1 && duringTraining) this.trainedTo(steps[0]);
    this.beforeEvaluation = duringTraining && this.trainDone < this.trainTotal ? 'training' : 'idle';
    // An evaluation before any training is a run without training (the trainer announces itself first).
    if (this.shape === undefined) this.shape = { steps: 0, checkpoints: 0, evalOnlyAnswers: toCompute };
    this.evalToCompute = toCompute;
    this.evalComputed = 0;
    this.enter('evaluating');
    if (steps.length === 1) {
      this.evaluatedTo = Math.max(this.evaluatedTo, steps[0]);
      if (toCompute > 0 && this.trainTotal > 0) this.perCheckpoint = toCompute;
    }
  }

  evaluated(n: number, computed: boolean): void {
    if (computed) this.evalComputed += n;
  }

  stopEvaluation(): void {
    this.enter(this.beforeEvaluation);
    this.evalToCompute = 0;
    this.evalComputed = 0;
  }

  /** Seconds per training step and per checkpoint written, or undefined without a basis. */
  private trainCost(): { perStep: number; perSave: number } | undefined {
    const live = this.phase === 'training' && (this.trainWarm || this.trainDone - this.stepAtPhaseStart >= BASIS.steps);
    const liveSeconds = live ? (this.now() - this.phaseSince) / 1000 : 0;
    const liveSteps = live ? this.trainDone - this.stepAtPhaseStart : 0;
    const basis = this.stepsSeen + liveSteps >= BASIS.steps || this.trainSecondsSeen + liveSeconds >= BASIS.seconds;
    if (!basis) return undefined;
    const { w, x, y, xx, xy } = this.trainFit;
    const det = w * xx - x * x;
    // The fit needs stretches of different lengths; otherwise (and should it come out negative) the plain ratio.
    if (w >= 3 && det > 0.01 * w * xx) {
      const perStep = (w * xy - x * y) / det;
      const perSave = (y - perStep * x) / w;
      if (perStep > 0 && perSave >= 0) return { perStep, perSave };
    }
    const seconds = this.trainSeconds * fade(liveSeconds) + liveSeconds;
    const steps = this.stepsMeasured * fade(liveSeconds) + liveSteps;
    return steps > 0 ? { perStep: seconds / steps, perSave: 0 } : undefined;
  }

  private secondsPerAnswer(): number | undefined {
    const live = this.phase === 'evaluating' && this.evalToCompute > 0 && this.evalComputed > 0 && (this.evalWarm || this.trainTotal === 0);
    const liveSeconds = live ? (this.now() - this.phaseSince) / 1000 : 0;
    const seconds = this.evalSeconds * fade(liveSeconds) + liveSeconds;
    const answers = this.answersMeasured * fade(liveSeconds) + (live ? this.evalComputed : 0);
    const basis = this.evaluationsMeasured >= BASIS.evaluations || this.evalSecondsSeen + liveSeconds >= BASIS.seconds;
    return answers > 0 && basis ? seconds / answers : undefined;
  }

  /** Seconds left for the whole study, or undefined while some kind of work ahead is not measured yet. */
  secondsLeft(): number | undefined {
    const like = this.shape ?? this.lastShape;
    if (this.runIndex < 0 || like === undefined) return undefined;
    const later = this.runs - this.runIndex - 1;
    // Work ahead: the rest of the current run (all of it when it has not shown its shape yet), then runs like it.
    let steps = later * like.steps;
    let checkpoints = later * like.checkpoints;
    let answers = later * like.evalOnlyAnswers + Math.max(0, this.evalToCompute - this.evalComputed);
    if (this.shape === undefined) {
      steps += like.steps;
      checkpoints += like.checkpoints;
      answers += like.evalOnlyAnswers;
    } else if (this.trainTotal > 0) {
      steps += this.trainTotal - this.trainDone;
      checkpoints += this.schedule.filter((s) => s > this.evaluatedTo).length;
    }
    if (checkpoints > 0) {
      if (this.perCheckpoint === undefined) return undefined;
      answers += checkpoints * this.perCheckpoint;
    }
    const train = steps > 0 ? this.trainCost() : { perStep: 0, perSave: 0 };
    const perAnswer = answers > 0 ? this.secondsPerAnswer() : 0;
    if (train === undefined || perAnswer === undefined) return undefined;
    return steps * train.perStep + checkpoints * train.perSave + answers * perAnswer;
  }
}
