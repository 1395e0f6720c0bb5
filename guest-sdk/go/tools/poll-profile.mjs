// The guest side of a Go source's poll, without a component host: runs the
// core module (what componentize.sh builds in <out>.d/core.wasm) under
// node's WASI, with Copycat's imports stubbed (offsets.read: nothing
// committed), calls start with the given config, then poll(N) ROUNDS times,
// and prints the CPU time per record. With `node --cpu-prof` and a core
// module built without `-s -w` (see docs/authoring/go.md, "Performance"),
// the profile names every Go function.
//
//   node guest-sdk/go/tools/poll-profile.mjs core.wasm topic=t value.size=100 count=0
//   N=1000 ROUNDS=3000 node --cpu-prof guest-sdk/go/tools/poll-profile.mjs core.wasm ...
import { readFileSync } from 'node:fs';
import { WASI } from 'node:wasi';

const [file, ...pairs] = process.argv.slice(2);
if (!file) {
  console.error('usage: node poll-profile.mjs <core.wasm> [key=value...]');
  process.exit(2);
}
const config = pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]);
const N = Number(process.env.N || 1000);
const ROUNDS = Number(process.env.ROUNDS || 1000);

const wasi = new WASI({ version: 'preview1', args: [], env: {} });
const mod = await WebAssembly.compile(readFileSync(file));
let mem;
const imports = { wasi_snapshot_preview1: wasi.wasiImport };
for (const imp of WebAssembly.Module.imports(mod)) {
  if (imp.module === 'wasi_snapshot_preview1') continue;
  imports[imp.module] ??= {};
  imports[imp.module][imp.name] = (...a) => {
    const v = new DataView(mem.buffer);
    if (imp.name === 'read') v.setBigUint64(a[2], 0n, true); // an empty list<source-position>
    if (imp.name === 'log') console.error('log:', Buffer.from(mem.buffer, a[1], a[2]).toString());
  };
}
const inst = await WebAssembly.instantiate(mod, imports);
mem = inst.exports.memory;
wasi.initialize(inst);
const e = inst.exports;
const alloc = (n) => e.cabi_realloc(0, 0, 4, Math.max(n, 1));
const str = (s) => {
  const b = Buffer.from(s);
  const p = alloc(b.length);
  new Uint8Array(mem.buffer, p, b.length).set(b);
  return [p, b.length];
};
const list = alloc(config.length * 16);
config.forEach(([k, v], i) => {
  const words = [...str(k), ...str(v)];
  words.forEach((w, j) => new DataView(mem.buffer).setUint32(list + 16 * i + 4 * j, w, true));
});
const task = 'copycat:connector/source-task@0.3.0';
let r = e[`${task}#start`](list, config.length);
if (new DataView(mem.buffer).getUint8(r) !== 0) {
  console.error('start failed');
  process.exit(1);
}
e[`cabi_post_${task}#start`](r);
const poll = e[`${task}#poll`];
const post = e[`cabi_post_${task}#poll`];
for (let i = 0; i < Math.max(300, ROUNDS / 5); i++) post(poll(N)); // warm up (V8 tiers up)
r = poll(N);
const v = new DataView(mem.buffer);
if (v.getUint8(r) !== 0) {
  console.error('poll failed');
  process.exit(1);
}
const records = v.getUint32(r + 24, true); // value-lengths' length
const bytes = v.getUint32(r + 8, true); // data's length
post(r);
const cpu0 = process.cpuUsage();
const wall0 = process.hrtime.bigint();
for (let i = 0; i < ROUNDS; i++) post(poll(N));
const cpu = process.cpuUsage(cpu0);
const wall = Number(process.hrtime.bigint() - wall0);
const per = (ns) => (ns / ROUNDS / Math.max(records, 1)).toFixed(1);
console.log(`poll(${N}): ${records} records, ${bytes} bytes; ${per((cpu.user + cpu.system) * 1000)} ns/record CPU, ${per(wall)} ns/record wall`);
