import type { ReactNode } from "react";

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
