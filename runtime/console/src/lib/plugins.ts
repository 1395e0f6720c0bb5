import type { PluginEntry } from './types';

/** Plugin names, one entry per name (the list has one per version). */
export function pluginNames(entries: PluginEntry[]): { name: string; type: string; versions: string[] }[] {
  const by = new Map<string, { name: string; type: string; versions: string[] }>();
  for (const e of entries) {
    const x = by.get(e.class) ?? { name: e.class, type: e.type, versions: [] };
    if (e.version && !x.versions.includes(e.version)) x.versions.push(e.version);
    by.set(e.class, x);
  }
  return [...by.values()].sort((a, b) => a.name.localeCompare(b.name));
}
