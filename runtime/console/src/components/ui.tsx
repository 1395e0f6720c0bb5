import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { tone } from '../lib/status';

/** A state's text in a fixed-width badge (no jump when the state changes). */
export function StateBadge({ state, testid }: { state: string; testid?: string }) {
  return (
    <span class={`badge badge-${tone(state)}`} data-testid={testid}>
      {state}
    </span>
  );
}

/**
 * A line whose space is always reserved: empty, it keeps its height.
 * `kind` colours it; it is announced to screen readers.
 */
export function Message({
  text,
  kind = 'info',
  testid,
  id,
}: {
  text: string | null | undefined;
  kind?: 'info' | 'ok' | 'error';
  testid?: string;
  id?: string;
}) {
  return (
    <p class={`msg msg-${text ? kind : 'empty'}`} role={kind === 'error' ? 'alert' : 'status'} data-testid={testid} id={id}>
      {text ?? ''}
    </p>
  );
}

/** Grey bars of the final size, while the first answer is awaited. */
export function SkeletonRows({ rows = 3, cols }: { rows?: number; cols: number }) {
  return (
    <>
      {Array.from({ length: rows }, (_, r) => (
        <tr class="skeleton-row" aria-hidden="true" key={r}>
          {Array.from({ length: cols }, (_, c) => (
            <td key={c}>
              <span class="skeleton" />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

/** What went wrong, and what to do about it. */
export function ErrorState({ message, status, children }: { message: string; status?: number | null; children?: ComponentChildren }) {
  let hint: ComponentChildren = null;
  if (status === 401)
    hint = (
      <>
        This worker requires credentials: <SignInLink /> (or reload the page to be asked for them).
      </>
    );
  else if (status === 0 || (status !== null && status !== undefined && status >= 500))
    hint = 'Check that the worker is running and reachable (and Kafka, for a 500); this page tries again every 2 s.';
  return (
    <div class="state-box state-error" role="alert">
      <p>{message}</p>
      {hint && <p class="muted">{hint}</p>}
      {children}
    </div>
  );
}

export function EmptyState({ children, testid }: { children: ComponentChildren; testid?: string }) {
  return (
    <div class="state-box" data-testid={testid}>
      {children}
    </div>
  );
}

/**
 * An in-page modal dialog (`<dialog>`: focus stays inside, Escape cancels).
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  confirmTestid,
  onConfirm,
  onCancel,
  busy,
}: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  confirmTestid: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          onConfirm();
        }}
      >
        <h2 id={titleId}>{title}</h2>
        <div>{children}</div>
        <div class="actions">
          {/* First in the dialog: showModal() puts the focus here, on the safe choice. */}
          <button type="button" class="btn" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" class="btn btn-danger" data-testid={confirmTestid} disabled={busy}>
            {confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}

export function Section({ title, children, testid, id, actions }: { title: string; children: ComponentChildren; testid?: string; id?: string; actions?: ComponentChildren }) {
  return (
    <section class="card" data-testid={testid} id={id} aria-labelledby={id ? `${id}-h` : undefined}>
      <div class="card-head">
        <h2 id={id ? `${id}-h` : undefined}>{title}</h2>
        {actions && <div class="card-actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}

/** A trace in a `<details>` with a `<pre>`. */
export function Trace({ trace, testid, summary = 'Trace' }: { trace: string; testid?: string; summary?: string }) {
  const first = trace.split('\n')[0];
  return (
    <details class="trace" data-testid={testid}>
      <summary>
        {summary}: <span class="trace-first">{first.length > 120 ? first.slice(0, 120) + '…' : first}</span>
      </summary>
      <pre>{trace}</pre>
    </details>
  );
}

/**
 * The worker's sign-in form (served by the worker, outside the app): a
 * full page load, not a route of the app.
 */
export function SignInLink() {
  return (
    <a
      href="/ui/login"
      onClick={(e) => {
        // Keep the router from handling it: the worker serves this page.
        e.stopPropagation();
      }}
    >
      sign in
    </a>
  );
}
