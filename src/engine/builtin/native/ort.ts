// onnxruntime as a synchronous kernel provider, called through its C API (OrtApi) with koffi, an FFI
// whose prebuilt binaries come as npm packages. The library itself is the libonnxruntime that
// onnxruntime-node ships (CPU binaries with MLAS, AVX-512 / AVX2 kernels chosen at run time; the
// package's postinstall only fetches CUDA parts and is kept off in package.json's allowScripts).
//
// Why not onnxruntime-node's own N-API binding: it copies every output of every run into a fresh
// JavaScript ArrayBuffer, even one written into a buffer the caller supplied. For genstudy's kernels
// (outputs of 1-16 MB, thousands of runs per pass) that copy, its page faults and the garbage
// collections the external memory triggers took ~22% of a scoring pass's CPU time (1860 -> 1451 ms;
// a 1024 x 256 x 1024 product at 85-88 GFLOP per CPU-second through the binding, 100-106 here).
//
// Tensors are views: an input is read where it lies (the wasm heap) and an output is written where
// tfjs wants it (a pre-allocated output on the wasm heap). The heap does not move: V8 reserves a wasm
// memory's whole address range up front, so a grow keeps its base address; addresses are still taken
// from the current buffer at every run.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

/** The intra-op thread pool a session runs on (see NativeSession's constructor). */
export type ThreadPool = 'own' | 'shared';

/** A tensor handed to a run: a typed-array view and its dimensions. */
export interface OrtTensor { readonly data: Float32Array | Int32Array; readonly dims: readonly number[] }

type Ptr = unknown;
type Fn = (...args: unknown[]) => unknown;
interface Koffi {
  load(path: string): { func(sig: string): Fn };
  decode(ptr: Ptr, type: unknown, len?: number): unknown;
  proto(sig: string): unknown;
  address(value: unknown): bigint;
  alloc(type: string, len: number): Ptr;
  encode(ref: Ptr, type: string, value: unknown, len?: number): void;
}

/** The OrtApi functions used, by their index in the struct (onnxruntime_c_api.h; append-only). */
const API = {
  GetErrorMessage: [2, 'const char *GetErrorMessage(void *status)'],
  DisableTelemetryEvents: [6, 'void *DisableTelemetryEvents(void *env)'],
  CreateSessionFromArray: [8, 'void *CreateSessionFromArray(void *env, const void *data, size_t len, void *options, _Out_ void **out)'],
  Run: [9, 'void *Run(void *session, void *runOptions, void **inputNames, void **inputs, size_t nInputs, ' +
    'void **outputNames, size_t nOutputs, void **outputs)'],
  CreateSessionOptions: [10, 'void *CreateSessionOptions(_Out_ void **out)'],
  SetSessionExecutionMode: [13, 'void *SetSessionExecutionMode(void *options, int mode)'],
  DisableMemPattern: [17, 'void *DisableMemPattern(void *options)'],
  DisableCpuMemArena: [19, 'void *DisableCpuMemArena(void *options)'],
  SetSessionGraphOptimizationLevel: [23, 'void *SetSessionGraphOptimizationLevel(void *options, int level)'],
  SetIntraOpNumThreads: [24, 'void *SetIntraOpNumThreads(void *options, int n)'],
  SetInterOpNumThreads: [25, 'void *SetInterOpNumThreads(void *options, int n)'],
  CreateTensorWithDataAsOrtValue: [49, 'void *CreateTensorWithDataAsOrtValue(void *info, void *data, size_t bytes, ' +
    'const int64_t *shape, size_t rank, int type, _Out_ void **out)'],
  CreateCpuMemoryInfo: [69, 'void *CreateCpuMemoryInfo(int allocator, int memType, _Out_ void **out)'],
  ReleaseStatus: [93, 'void ReleaseStatus(void *status)'],
  ReleaseValue: [96, 'void ReleaseValue(void *value)'],
  ReleaseSessionOptions: [100, 'void ReleaseSessionOptions(void *options)'],
  CreateEnvWithGlobalThreadPools: [119, 'void *CreateEnvWithGlobalThreadPools(int level, const char *logid, void *threading, ' +
    '_Out_ void **out)'],
  DisablePerSessionThreads: [120, 'void *DisablePerSessionThreads(void *options)'],
  CreateThreadingOptions: [121, 'void *CreateThreadingOptions(_Out_ void **out)'],
  ReleaseThreadingOptions: [122, 'void ReleaseThreadingOptions(void *options)'],
  AddSessionConfigEntry: [130, 'void *AddSessionConfigEntry(void *options, const char *key, const char *value)'],
  SetGlobalIntraOpNumThreads: [147, 'void *SetGlobalIntraOpNumThreads(void *options, int n)'],
  SetGlobalInterOpNumThreads: [148, 'void *SetGlobalInterOpNumThreads(void *options, int n)'],
  SetGlobalSpinControl: [149, 'void *SetGlobalSpinControl(void *options, int spin)'],
  AddInitializer: [150, 'void *AddInitializer(void *options, const char *name, void *value)'],
  ReleaseSession: [95, 'void ReleaseSession(void *session)'],
} as const;
/**
 * The OrtApi version asked for: the oldest that has every function above (SetGlobalSpinControl ends
 * version 5 in onnxruntime/core/session/onnxruntime_c_api.cc's table).
 */
const API_VERSION = 6;
const ELEMENT_TYPE = { float32: 1, int32: 6 } as const;

interface Ort {
  koffi: Koffi;
  /** Held for the process's life: koffi unloads a library whose handle is garbage-collected. */
  lib: unknown;
  api: { [K in keyof typeof API]: Fn };
  /** Made with the first session, whose thread count sizes the shared pool (see environment). */
  env: Ptr;
  sharedThreads: number;
  cpu: Ptr;
  version: string;
}

let ort: Ort | null | undefined;
let loadError = '';

/** The shared library inside onnxruntime-node's package for this platform. */
function libraryPath(require: NodeJS.Require): string {
  const dir = path.join(path.dirname(require.resolve('onnxruntime-node/package.json')), 'bin', 'napi-v6', process.platform, process.arch);
  const file = fs.readdirSync(dir).find((f) => /^(lib)?onnxruntime(\.so\.\d+|\.\d+\.\d+\.\d+\.dylib|\.dll)$/.test(f));
  if (!file) throw new Error(`no onnxruntime library in ${dir}`);
  return path.join(dir, file);
}

function loadOrt(): Ort | null {
  if (ort !== undefined) return ort;
  try {
    const require = createRequire(import.meta.url);
    const koffi = require('koffi') as Koffi;
    const file = libraryPath(require);
    // onnxruntime's Linux and macOS builds carry Microsoft's 1DS telemetry uploader, started while
    // the library initialises: it writes mat-debug-<pid>.log to the temp folder and a database under
    // ~/.cache/Microsoft, and about 9 s later looks up mobile.events.data.microsoft.com. Only this
    // variable, set before the library initialises, keeps the uploader from being created
    // (microsoft/onnxruntime docs/Privacy.md, "Disabling Telemetry"; read with getenv, which sees
    // what process.env sets). DisableTelemetryEvents below turns the events off too.
    process.env.ORT_DISABLE_TELEMETRY = '1';
    const lib = koffi.load(file);
    keepLoaded(koffi, file);
    const base = lib.func('void *OrtGetApiBase()')();
    const [getApi, getVersion] = koffi.decode(base, 'void *', 2) as Ptr[];
    const version = (koffi.decode(getVersion, koffi.proto('const char *GetVersionString()')) as Fn)() as string;
    const table = (koffi.decode(getApi, koffi.proto('void *GetApi(uint32_t version)')) as Fn)(API_VERSION);
    if (!table) throw new Error(`onnxruntime ${version} does not offer C API version ${API_VERSION}`);
    const size = Math.max(...Object.values(API).map(([i]) => i)) + 1;
    const pointers = koffi.decode(table, 'void *', size) as Ptr[];
    const api = Object.fromEntries(Object.entries(API)
      .map(([name, [i, sig]]) => [name, koffi.decode(pointers[i], koffi.proto(sig)) as Fn])) as Ort['api'];
    const partial = { koffi, lib, api, env: null as Ptr, sharedThreads: 0, cpu: null as Ptr, version };
    const out: Ptr[] = [null];
    check(partial, api.CreateCpuMemoryInfo(0 /* OrtDeviceAllocator */, 0 /* OrtMemTypeDefault */, out));
    partial.cpu = out[0];
    ort = partial;
    tuneMalloc(koffi);
  } catch (err) {
    loadError = (err as Error).message.split('\n')[0];
    ort = null;
  }
  return ort;
}

/**
 * Keeps the library loaded until the process ends. koffi unloads a library (dlclose) when its handle
 * is finalised, at the latest when Node tears the environment down at exit; dlclose runs
 * onnxruntime's destructors with the loader lock held, and a destructor that joins a thread which is
 * itself waiting for that lock (one resolving a host name loads NSS modules) never returns: 1 of ~400
 * native processes hung at exit so. A second reference opened with RTLD_NODELETE makes every dlclose
 * of it a no-op; its destructors then run at exit, where glibc calls them without that lock.
 */
function keepLoaded(koffi: Koffi, file: string): void {
  if (process.platform !== 'linux') return;
  const RTLD_NOW = 0x2;
  const RTLD_NODELETE = 0x1000;
  for (const libc of ['libc.so.6', 'libdl.so.2']) {
    try {
      const dlopen = koffi.load(libc).func('void *dlopen(const char *file, int mode)');
      if (dlopen(file, RTLD_NOW | RTLD_NODELETE)) return;
    } catch {
      // Not glibc, or dlopen lives in the other library (glibc before 2.34: libdl).
    }
  }
}

/**
 * onnxruntime allocates its kernels' scratch buffers (megabytes, freed at the end of each run) with
 * malloc. glibc's mmap threshold adapts upward to the largest block freed (up to 32 MB), after
 * which such buffers come from the heap, whose fragments are not returned: over a training run the
 * process grew without bound (LoRA on the bench model: 461 MB after 4 steps, 622 MB after 20, with
 * tensors constant). A fixed 4 MB threshold keeps it flat (458 MB after 20) at the same speed. Fixing
 * it also fixes the trim threshold at glibc's default 128 KB, so the heap's top was handed back to the
 * system after nearly every run and faulted in again by the next: ~26k page faults per SmolLM-135M
 * training step, ~4% of its CPU time. 64 MB (the most glibc's own adaptation would reach) keeps that
 * top: 2-6k faults per step in the runs measured. (A unit test of one 2 MB intermediate still saw it
 * faulted in on every run in about half of its processes, cause not found, so no test pins this.)
 * Only where glibc's mallopt exists; elsewhere nothing changes.
 */
function tuneMalloc(koffi: Koffi): void {
  if (process.platform !== 'linux') return;
  try {
    const mallopt = koffi.load('libc.so.6').func('int mallopt(int param, int value)');
    const [M_TRIM_THRESHOLD, M_MMAP_THRESHOLD] = [-1, -3];
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
  } catch {
    // Not glibc (musl has no mallopt): keep the allocator's defaults.
  }
}

/**
 * The process's one onnxruntime environment, made before the first session. It holds the shared
 * thread pool (`threads` threads, spinning when idle) that sessions made for the 'shared' pool run
 * on; every other session has a pool of its own. See pool-choice.ts for which pool runs when.
 */
function environment(o: Ort, threads: number): Ptr {
  if (o.env) return o.env;
  const { api } = o;
  const out: Ptr[] = [null];
  check(o, api.CreateThreadingOptions(out));
  const threading = out[0];
  try {
    check(o, api.SetGlobalIntraOpNumThreads(threading, threads));
    check(o, api.SetGlobalInterOpNumThreads(threading, 1));
    check(o, api.SetGlobalSpinControl(threading, 1));
    check(o, api.CreateEnvWithGlobalThreadPools(3 /* ORT_LOGGING_LEVEL_ERROR */, 'genstudy', threading, out));
  } finally {
    api.ReleaseThreadingOptions(threading);
  }
  o.env = out[0];
  o.sharedThreads = threads;
  // Before any session: a session's creation is itself an event.
  check(o, api.DisableTelemetryEvents(o.env));
  return o.env;
}

/** Throws the message of a non-null OrtStatus (and releases it). */
function check(o: Pick<Ort, 'api'>, status: unknown): void {
  if (!status) return;
  const message = o.api.GetErrorMessage(status) as string;
  o.api.ReleaseStatus(status);
  throw new Error(`onnxruntime: ${message}`);
}

export function nativeLoadError(): string {
  loadOrt();
  return loadError;
}

/** Runs per thread pool, for tests (which pool the kernels really ran on). */
export const nativeRunStats: Record<ThreadPool, number> = { own: 0, shared: 0 };

/** A loaded ONNX graph run synchronously with views as inputs and pre-allocated outputs. */
export class NativeSession {
  private readonly ort: Ort;
  private readonly session: Ptr;
  private readonly pool: ThreadPool;
  private readonly names = new Map<string, Ptr>();
  /** The OrtValues of the graph's constants (views the caller keeps alive), released with the session. */
  private readonly constants: Ptr[] = [];

  /**
   * `pool` 'own': the session gets an intra-op pool of `threads` threads whose idle threads sleep.
   * 'shared': it runs on the environment's spinning pool, which the first session's `threads` sized.
   */
  constructor(model: Uint8Array, threads: number, pool: ThreadPool = 'own', constants: Record<string, OrtTensor> = {}) {
    const o = loadOrt();
    if (!o) throw new Error(`onnxruntime cannot be loaded: ${loadError}`);
    this.ort = o;
    this.pool = pool;
    const { api } = o;
    const env = environment(o, threads);
    if (pool === 'shared' && threads !== o.sharedThreads) {
      throw new Error(`onnxruntime's shared pool has ${o.sharedThreads} threads, not ${threads}`);
    }
    const out: Ptr[] = [null];
    check(o, api.CreateSessionOptions(out));
    const options = out[0];
    try {
      // Sequential execution (the graphs are chains of a few nodes).
      if (pool === 'shared') check(o, api.DisablePerSessionThreads(options));
      else {
        check(o, api.SetIntraOpNumThreads(options, threads));
        check(o, api.SetInterOpNumThreads(options, 1));
        check(o, api.AddSessionConfigEntry(options, 'session.intra_op.allow_spinning', '0'));
      }
      check(o, api.SetSessionExecutionMode(options, 0 /* ORT_SEQUENTIAL */));
      check(o, api.SetSessionGraphOptimizationLevel(options, 99 /* ORT_ENABLE_ALL */));
      check(o, api.DisableCpuMemArena(options));
      check(o, api.DisableMemPattern(options));
      for (const [name, t] of Object.entries(constants)) {
        const v = this.ortValue(t);
        this.constants.push(v);
        check(o, api.AddInitializer(options, name, v));
      }
      check(o, api.CreateSessionFromArray(env, model, model.byteLength, options, out));
      this.session = out[0];
    } finally {
      api.ReleaseSessionOptions(options);
    }
  }

  /** A view as a run's tensor: float32 or int32 (a bool tensor's bytes are not taken). */
  tensor(data: Float32Array | Int32Array | Uint8Array, dims: readonly number[]): OrtTensor {
    if (data instanceof Uint8Array) throw new Error('internal: onnxruntime kernels take float32 and int32 tensors, not bool');
    return { data, dims };
  }

  /** A graph input or output name as a C string, kept for the session's life. */
  private name(n: string): Ptr {
    let p = this.names.get(n);
    if (!p) {
      const bytes = Buffer.byteLength(n) + 1;
      p = this.ort.koffi.alloc('char', bytes);
      this.ort.koffi.encode(p, 'char', n, bytes);
      this.names.set(n, p);
    }
    return p;
  }

  /** An OrtValue over a view (no copy); the caller releases it. */
  private ortValue(t: OrtTensor): Ptr {
    const { api, koffi, cpu } = this.ort;
    const out: Ptr[] = [null];
    const shape = BigInt64Array.from(t.dims, (d) => BigInt(d));
    const address = koffi.address(t.data.buffer) + BigInt(t.data.byteOffset);
    check(this.ort, api.CreateTensorWithDataAsOrtValue(cpu, address, t.data.byteLength, shape, t.dims.length,
      t.data instanceof Int32Array ? ELEMENT_TYPE.int32 : ELEMENT_TYPE.float32, out));
    return out[0];
  }

  /** Runs the graph; each output is written into the tensor given for it. */
  run(feeds: Record<string, OrtTensor>, outputs: Record<string, OrtTensor>): void {
    const { api } = this.ort;
    nativeRunStats[this.pool]++;
    const values: Ptr[] = [];
    const value = (t: OrtTensor): Ptr => {
      const v = this.ortValue(t);
      values.push(v);
      return v;
    };
    try {
      const inNames = Object.keys(feeds);
      const outNames = Object.keys(outputs);
      const inputs = inNames.map((n) => value(feeds[n]));
      const outs = outNames.map((n) => value(outputs[n]));
      check(this.ort, api.Run(
        this.session, null, inNames.map((n) => this.name(n)), inputs, inputs.length, outNames.map((n) => this.name(n)), outs.length, outs,
      ));
    } finally {
      for (const v of values) api.ReleaseValue(v);
    }
  }

  /** Frees the session and its constants' values; it cannot run after. */
  release(): void {
    const { api } = this.ort;
    api.ReleaseSession(this.session);
    for (const v of this.constants.splice(0)) api.ReleaseValue(v);
  }
}
