import { useState, type ReactNode } from "react";

export function Field({ id, label, children, ...props }: { id: string; label: string; children?: ReactNode } & React.InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div>
      <label htmlFor={id}>{label}</label>
      {children ?? <input id={id} name={id} {...props} />}
    </div>
  );
}

export function Select({ id, label, options, ...props }: { id: string; label: string; options: readonly (string | [string, string])[] } & React.SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <div>
      <label htmlFor={id}>{label}</label>
      <select id={id} name={id} {...props}>
        {options.map((o) => {
          const [value, text] = typeof o === "string" ? [o, o] : o;
          return (
            <option key={value} value={value}>
              {text}
            </option>
          );
        })}
      </select>
    </div>
  );
}

export function Message({ message }: { message: { ok: boolean; text: string } | null }) {
  return (
    <div role="status" className={message ? (message.ok ? "notice" : "error") : ""}>
      {message?.text ?? ""}
    </div>
  );
}

export function Failure({ error }: { error: string | null }) {
  return error ? <p className="error" role="alert">{error}</p> : null;
}

/**
 * Previous / next for every paged list. `total` (records in all) is shown when the API gives it;
 * nothing is rendered when everything fits on one page unless `always` (a list that says "Page 1 of 1").
 */
export function Pager({ page, totalPages, total, onPage, always = false }: { page: number; totalPages: number; total?: number; onPage: (page: number) => void; always?: boolean }) {
  if (!always && totalPages <= 1) return null;
  return (
    <p className="actions">
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>Previous</button>
      <span>Page {page} of {Math.max(1, totalPages)}{total === undefined ? "" : ` (${total} in all)`}</span>
      <button type="button" className="secondary" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>Next</button>
    </p>
  );
}

/**
 * A destructive action asked twice: the first button shows what will happen and a confirm and a
 * cancel button; only the confirm acts (issue 18: delete webhook, revoke key, delete brand).
 */
export function ConfirmAction({ label, ariaLabel, question, confirm, busy, onConfirm }: { label: string; ariaLabel: string; question: string; confirm: string; busy: boolean; onConfirm: () => Promise<unknown> | void }) {
  const [asking, setAsking] = useState(false);
  if (!asking) return <button type="button" className="secondary" onClick={() => setAsking(true)} aria-label={ariaLabel}>{label}</button>;
  return (
    <>
      <span>{question}</span>
      <button type="button" disabled={busy} onClick={() => void Promise.resolve(onConfirm()).finally(() => setAsking(false))}>{confirm}</button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>Cancel</button>
    </>
  );
}
