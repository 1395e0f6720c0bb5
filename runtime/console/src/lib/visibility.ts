// Polling only while the page is visible.

export const POLL_MS = 2000;

export function pageVisible(): boolean {
  return typeof document === 'undefined' || document.visibilityState !== 'hidden';
}

export function onVisibilityChange(fn: (visible: boolean) => void): () => void {
  if (typeof document === 'undefined') return () => {};
  const h = () => fn(pageVisible());
  document.addEventListener('visibilitychange', h);
  return () => document.removeEventListener('visibilitychange', h);
}
