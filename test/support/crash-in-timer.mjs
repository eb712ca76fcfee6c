// Preloaded (node --import) into a genstudy process by test/smoke/crash.test.ts: once genstudy's
// own handlers are installed and the wasm backend is up (its emscripten glue adds an
// uncaughtException handler that rethrows), throws a tfjs error from a timer, as a bug outside any
// awaited call would.
const wait = () => new Promise((r) => setTimeout(r, 10));
setTimeout(async () => {
  while (process.listenerCount('uncaughtException') === 0) await wait();
  const tf = await import('@tensorflow/tfjs-core');
  await import('@tensorflow/tfjs-backend-wasm');
  await tf.setBackend('wasm');
  await tf.ready();
  setTimeout(() => tf.tensor([1, 2, 3], [5]), 0);
}, 0);
