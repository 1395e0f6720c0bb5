// copycat-sdk/fs: files in the directories the operator grants (WASI preopens).

export class FsError extends Error {
  constructor(path: string, code: string, action?: string);
  readonly code: string;
  readonly path: string;
}

export class File {
  readonly path: string;
  position: number;
  size(): number;
  read(length?: number, position?: number): Uint8Array;
  write(data: string | Uint8Array, position: number): number;
  append(data: string | Uint8Array): number;
  truncate(size: number): void;
  sync(): void;
  close(): void;
}

export interface OpenOptions {
  read?: boolean;
  write?: boolean;
  create?: boolean;
  exclusive?: boolean;
  truncate?: boolean;
  append?: boolean;
}

export function granted(path: string): boolean;
export function open(path: string, options?: OpenOptions): File;
export function readFile(path: string): Uint8Array;
export function readTextFile(path: string): string;
export function writeFile(path: string, data: string | Uint8Array, options?: { sync?: boolean }): void;
export function writeFileAtomic(path: string, data: string | Uint8Array): void;
export function rename(from: string, to: string): void;
export function remove(path: string): void;
export function mkdir(path: string): void;
export function stat(path: string): { type: string; size: number };
export function exists(path: string): boolean;
export function readDir(path: string): string[];
