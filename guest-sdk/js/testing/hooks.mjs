// Module resolution hooks for register.mjs (runs on Node's loader thread).
import { readFileSync } from 'node:fs';

const SDK = new URL('../', import.meta.url);
const HOST = new URL('./host.js', import.meta.url).href;
const WIT = /^(copycat:connector|copycat:errant|copycat:dynamic|wasi:filesystem)\/[a-z-]+(@[0-9.]+)?$/;

const pkg = JSON.parse(readFileSync(new URL('package.json', SDK), 'utf8'));
const modules = new Map(
  Object.entries(pkg.exports).map(([sub, target]) => [sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`, new URL(typeof target === 'string' ? target : target.default, SDK).href]),
);
modules.set(`${pkg.name}/testing`, new URL('./index.js', import.meta.url).href);

export async function resolve(specifier, context, next) {
  if (WIT.test(specifier)) return { url: HOST, shortCircuit: true };
  const sdk = modules.get(specifier);
  if (sdk) return { url: sdk, shortCircuit: true };
  return next(specifier, context);
}
