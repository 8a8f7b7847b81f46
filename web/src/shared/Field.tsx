import type { InputHTMLAttributes, ReactNode } from "react";

export interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "name"> {
  name: string;
  label: string;
  error?: string;
  aside?: ReactNode;
  /** The input's id when two forms on a page share field names; default `name`. */
  id?: string;
}

/** A labelled input with its problem below it (aria-invalid, aria-describedby): the checkout's and the upsell card form's fields. */
export function Field({ name, label, error, aside, id = name, ...input }: FieldProps) {
  return (
    <div className="field">
      <div className="label-row">
        <label htmlFor={id}>{label}</label>
        {aside}
      </div>
      <input id={id} name={name} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} {...input} />
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
