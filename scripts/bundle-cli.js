// Bundles the compiled CLI (dist/cli/main.js and what it imports) into a few files in dist/cli-bundle/,
// which bin/genstudy.js runs while dist/ is fresh. Why: Node loads each module file on its own, and
// `genstudy analyze` loaded ~230 small CommonJS packages of the stdlib distributions besides zod,
// commander, csv-parse and the project's own modules; bundled, the cheapest analysis of a small table
// (3 x 7 x 25) took 0.21-0.26 against 0.35-0.42 CPU-s (docs/analyze.md, issue 40). The commands stay apart (one chunk
// each, loaded only when run), and packages that read files beside themselves or load native code are
// left to Node's resolution (only BUNDLED's are bundled).
import path from 'node:path';
import fs from 'node:fs';
import { isBuiltin } from 'node:module';

/** The packages bundled, with their dependencies: plain JavaScript that reads no file beside itself. Any other is imported at run time. */
const BUNDLED = [/^@stdlib\//, /^zod(\/|$)/, /^commander(\/|$)/, /^csv-parse(\/|$)/];

/** The folder, under the output folder, that holds the bundle. */
export const BUNDLE_DIR = 'cli-bundle';

/**
 * A module's import.meta, as seen from the chunk that holds it, made to say the module's own place in
 * dist/ again: the sources read files beside themselves (data/registry.json, serve's worker, runner.py,
 * package.json two folders up) and resolve packages from there.
 */
function ownPlace(source, file, bundleDir) {
  const relative = path.relative(bundleDir, file).split(path.sep).join('/');
  const url = `new URL(${JSON.stringify(relative)}, import.meta.url)`;
  return source
    .replaceAll('import.meta.dirname', `__bundledDirname(${url})`)
    .replaceAll('import.meta.filename', `__bundledFilename(${url})`)
    .replaceAll('import.meta.url', `${url}.href`);
}

/** Bundles `outDir`/cli/main.js into `outDir`/cli-bundle/ with esbuild (a dependency of tsx, pinned in devDependencies). */
export async function bundleCli(outDir) {
  const esbuild = await import('esbuild');
  const bundleDir = path.join(outDir, BUNDLE_DIR);
  const own = path.resolve(outDir) + path.sep;
  await esbuild.build({
    entryPoints: [path.join(outDir, 'cli/main.js')],
    outdir: bundleDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    // the helpers ownPlace's replacements call, and `require` for the CommonJS packages bundled
    banner: {
      js: [
        "import { createRequire as __bundledRequire } from 'node:module';",
        "import { fileURLToPath as __bundledPath } from 'node:url';",
        "import { dirname as __bundledDir } from 'node:path';",
        'const require = __bundledRequire(import.meta.url);',
        'const __bundledFilename = (url) => __bundledPath(url);',
        'const __bundledDirname = (url) => __bundledDir(__bundledPath(url));',
      ].join('\n'),
    },
    plugins: [{
      name: 'genstudy-cli-bundle',
      setup(build) {
        // bare specifiers in the project's modules: BUNDLED's are bundled (esbuild resolves them), any other is Node's at run time;
        // a bundled package's own dependencies are bundled with it (@stdlib's gammaincinv requires `debug`), built-in modules never
        build.onResolve({ filter: /^[^./]/ }, (args) => {
          if (!args.importer.startsWith(own) && !isBuiltin(args.path)) return undefined;
          return BUNDLED.some((re) => re.test(args.path)) ? undefined : { path: args.path, external: true };
        });
        build.onLoad({ filter: /\.js$/ }, (args) => {
          if (!args.path.startsWith(own)) return undefined;
          const source = fs.readFileSync(args.path, 'utf8');
          return { contents: source.includes('import.meta') ? ownPlace(source, args.path, bundleDir) : source, loader: 'js' };
        });
      },
    }],
  });
}
