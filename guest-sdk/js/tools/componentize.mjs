#!/usr/bin/env node
// Build one Copycat connector written in JavaScript into a WebAssembly component.
//
//   node componentize.mjs --entry src/index.js --world source|sink|transform --out my.wasm
//       [--build-dir build] [--toolchain DIR] [--copycat-home DIR] [--force]
//
// Usually run through build-component.sh, which installs the toolchain first.
//
// 1. Bundle the entry module and everything it imports into one ES module
//    with Rolldown (componentize-js wants a single module). `copycat-sdk`,
//    `copycat-sdk/source`, ... resolve to guest-sdk/js/src/; imports of WIT
//    interfaces (`copycat:...`, `wasi:...`) stay imports, and an import of
//    one that the code does not use is dropped (so a transform, whose world
//    has no clock, can use 'copycat-sdk').
// 2. Assemble the WIT: guest-sdk/js/wit/copycat-js.wit (Copycat's worlds plus
//    wasi:filesystem; the sinks with the errant record reporter), the vendored
//    WASI WIT, wit/connector@0.3.0/, wit/errant@0.1.0/, wit/dynamic@0.1.0/ and
//    wit/transform@0.1.0/. A source or sink whose module exports `instance`
//    (a dynamic connector) is built against the `-dynamic` world.
// 3. componentize-js (StarlingMonkey + Wizer) with the `http` and
//    `fetch-event` engine features disabled (a connector has no use for
//    `fetch()` or an incoming-HTTP handler; without them the component does
//    not import wasi:http at all).
//
// The output is rebuilt only when the bundle, the WIT, the options or the
// toolchain changed (a hash is kept next to the bundle in the build dir).

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const SDK_DIR = resolve(HERE, '..');
// Engine features turned off (componentize-js `disableFeatures`). Kept:
// stdio (console.* and uncaught-error reports reach the task log), random
// (Math.random and crypto.getRandomValues are random) and clocks (Date.now,
// setTimeout).
const DISABLED_FEATURES = ['http', 'fetch-event'];
const DRIVER_VERSION = '2';
const WORLDS = ['source', 'sink', 'transform'];

function usage(message) {
  if (message) console.error(`componentize.mjs: ${message}`);
  console.error('usage: componentize.mjs --entry FILE --world source|sink|transform --out FILE.wasm [--build-dir DIR] [--toolchain DIR] [--copycat-home DIR] [--force]');
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { force: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => argv[++i] ?? usage(`${arg} needs a value`);
    switch (arg) {
      case '--entry': opts.entry = value(); break;
      case '--world': opts.world = value(); break;
      case '--out': opts.out = value(); break;
      case '--build-dir': opts.buildDir = value(); break;
      case '--toolchain': opts.toolchain = value(); break;
      case '--copycat-home': opts.copycatHome = value(); break;
      case '--force': opts.force = true; break;
      default: usage(`unknown argument ${arg}`);
    }
  }
  if (!opts.entry || !opts.world || !opts.out) usage('--entry, --world and --out are required');
  if (!WORLDS.includes(opts.world)) usage(`--world must be one of ${WORLDS.join(', ')}, not ${opts.world}`);
  opts.entry = resolve(opts.entry);
  opts.out = resolve(opts.out);
  opts.buildDir = resolve(opts.buildDir ?? join(dirname(opts.out), `${basename(opts.out, '.wasm')}.build`));
  opts.copycatHome = resolve(opts.copycatHome ?? process.env.COPYCAT_HOME ?? join(SDK_DIR, '..', '..'));
  const toolchains = process.env.COPYCAT_TOOLCHAINS ?? join(process.env.HOME ?? '/tmp', '.cache', 'copycat', 'toolchains');
  opts.toolchain = resolve(opts.toolchain ?? join(toolchains, 'js'));
  return opts;
}

// Import a package installed in the toolchain directory (not next to this
// script, so Node's own resolution cannot find it).
async function importFromToolchain(toolchain, name) {
  const dir = join(toolchain, 'node_modules', name);
  const pkgFile = join(dir, 'package.json');
  if (!existsSync(pkgFile)) {
    throw new Error(`${name} is not installed in ${toolchain}; run guest-sdk/js/tools/build-component.sh (or scripts/examples/js.sh) to install the toolchain`);
  }
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
  let entry = pkg.exports?.['.'] ?? pkg.exports ?? pkg.module ?? pkg.main ?? 'index.js';
  if (typeof entry === 'object') entry = entry.import ?? entry.default;
  return { module: await import(pathToFileURL(join(dir, entry)).href), version: pkg.version };
}

// `copycat-sdk` and its subpaths, from guest-sdk/js/package.json's exports map.
function sdkModules() {
  const pkg = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8'));
  const map = new Map();
  for (const [sub, target] of Object.entries(pkg.exports)) {
    map.set(sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`, join(SDK_DIR, typeof target === 'string' ? target : target.default));
  }
  return map;
}

async function bundle(rolldown, entry) {
  const modules = sdkModules();
  const build = await rolldown.rolldown({
    input: entry,
    cwd: dirname(entry),
    platform: 'neutral',
    // WIT interfaces are provided by the component's imports, not by files.
    external: /^(copycat|wasi):/,
    resolve: { mainFields: ['module', 'main'] },
    // Keep an import of a WIT interface only where its bindings are used.
    treeshake: { moduleSideEffects: 'no-external' },
    plugins: [
      {
        name: 'copycat-sdk',
        resolveId(id) {
          return modules.get(id) ?? null;
        },
      },
    ],
    onLog(level, log) {
      if (level === 'warn') console.error(`warning: ${log.message}`);
    },
  });
  try {
    const { output } = await build.generate({ format: 'esm', codeSplitting: false });
    const chunks = output.filter((o) => o.type === 'chunk');
    if (chunks.length !== 1) throw new Error(`bundling produced ${chunks.length} chunks; dynamic import() is not supported`);
    return { code: chunks[0].code, exports: chunks[0].exports };
  } finally {
    await build.close();
  }
}

// The WIT directory for componentize-js: the JS worlds, vendored WASI, and
// Copycat's packages as dependencies. Returns its files' content for the hash.
function assembleWit(witDir, copycatHome) {
  const packages = [
    ['connector@0.3.0', 'connector', 'batch.wit'],
    ['errant@0.1.0', 'errant', 'errant.wit'],
    ['dynamic@0.1.0', 'dynamic', 'dynamic.wit'],
    ['transform@0.1.0', 'transform', 'transform.wit'],
  ];
  for (const [dir, , probe] of packages) {
    if (!existsSync(join(copycatHome, 'wit', dir, probe))) {
      throw new Error(`no Copycat WIT at ${join(copycatHome, 'wit', dir)}; set COPYCAT_HOME to the Copycat checkout`);
    }
  }
  rmSync(witDir, { recursive: true, force: true });
  const copies = [[join(SDK_DIR, 'wit', 'copycat-js.wit'), join(witDir, 'copycat-js.wit')]];
  for (const f of readdirSync(join(SDK_DIR, 'wit', 'deps')).filter((f) => f.endsWith('.wit')).sort()) {
    copies.push([join(SDK_DIR, 'wit', 'deps', f), join(witDir, 'deps', f)]);
  }
  for (const [from, to] of packages) {
    mkdirSync(join(witDir, 'deps', to), { recursive: true });
    const dir = join(copycatHome, 'wit', from);
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.wit')).sort()) {
      copies.push([join(dir, f), join(witDir, 'deps', to, f)]);
    }
  }
  mkdirSync(join(witDir, 'deps'), { recursive: true });
  const contents = [];
  for (const [from, to] of copies) {
    copyFileSync(from, to);
    contents.push(`${basename(to)}\n${readFileSync(from, 'utf8')}`);
  }
  return contents.join('\n');
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const started = Date.now();
  if (!existsSync(opts.entry)) throw new Error(`entry module ${opts.entry} not found`);
  mkdirSync(opts.buildDir, { recursive: true });
  mkdirSync(dirname(opts.out), { recursive: true });

  const { module: rolldown } = await importFromToolchain(opts.toolchain, 'rolldown');
  const { code, exports } = await bundle(rolldown, opts.entry);
  // A source or sink that exports `instance` is dynamic (copycat:dynamic).
  const world = opts.world !== 'transform' && exports.includes('instance') ? `${opts.world}-dynamic` : opts.world;
  const bundlePath = join(opts.buildDir, 'connector.js');
  writeFileSync(bundlePath, code);

  const witDir = join(opts.buildDir, 'wit');
  const wit = assembleWit(witDir, opts.copycatHome);

  const lock = join(opts.toolchain, 'package-lock.json');
  const hash = createHash('sha256')
    .update(`${DRIVER_VERSION}\n${world}\n${DISABLED_FEATURES.join(',')}\n`)
    .update(existsSync(lock) ? readFileSync(lock) : '')
    .update(wit)
    .update(code)
    .digest('hex');
  const stamp = join(opts.buildDir, 'inputs.sha256');
  if (!opts.force && existsSync(opts.out) && existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) {
    console.error(`${opts.out}: up to date`);
    return;
  }

  const { module: cjs, version } = await importFromToolchain(opts.toolchain, '@bytecodealliance/componentize-js');
  // componentize-js maps the working directory to `/` for the engine while it
  // pre-initialises the module, so run it from the build directory.
  const callerCwd = process.cwd();
  let component;
  try {
    process.chdir(opts.buildDir);
    ({ component } = await cjs.componentize({
      sourcePath: bundlePath,
      witPath: witDir,
      worldName: `copycat:js/${world}`,
      disableFeatures: DISABLED_FEATURES,
    }));
  } finally {
    process.chdir(callerCwd);
  }
  rmSync(stamp, { force: true });
  writeFileSync(opts.out, component);
  writeFileSync(stamp, hash);
  const kib = Math.round(statSync(opts.out).size / 1024);
  console.error(`${opts.out}: ${kib} KiB in ${((Date.now() - started) / 1000).toFixed(1)} s (componentize-js ${version}, world copycat:js/${world})`);
}

main().catch((e) => {
  console.error(`error: ${e?.message ?? e}`);
  if (process.env.COPYCAT_DEBUG && e?.stack) console.error(e.stack);
  process.exit(1);
});
