// Labelled inputs with the core's error next to them (aria-invalid + aria-describedby, so a
// screen reader reads the message with the field).
import type { ReactNode } from "react";

/** The DOM id of an input for a core field key (`baseUrl`, `env.TOKEN`...). */
export const inputId = (field: string) => `profile-${field.replace(/[^A-Za-z0-9_-]/g, "_")}`;
const errorId = (field: string) => `${inputId(field)}-error`;

/** The attributes that tie an input to its error message. */
export function errorProps(field: string, error: string | undefined) {
  return {
    id: inputId(field),
    "aria-invalid": error ? true : undefined,
    "aria-describedby": error ? errorId(field) : undefined,
  } as const;
}

export function FieldError({ field, error }: { field: string; error: string | undefined }) {
  if (!error) return null;
  return (
    <p className="field-error" id={errorId(field)} data-field-error={field} role="alert">
      {error}
    </p>
  );
}

interface FieldProps {
  field: string;
  label: string;
  error: string | undefined;
  hint?: ReactNode;
  children: ReactNode;
}

/** A label above its input, a hint under it, and the core's error under that. */
export function Field({ field, label, error, hint, children }: FieldProps) {
  return (
    <div className={`profile-field${error ? " invalid" : ""}`}>
      <label htmlFor={inputId(field)}>{label}</label>
      {children}
      {hint && <p className="field-hint">{hint}</p>}
      <FieldError field={field} error={error} />
    </div>
  );
}

interface TextProps {
  field: string;
  label: string;
  value: string;
  error: string | undefined;
  onChange: (v: string) => void;
  hint?: ReactNode;
  placeholder?: string;
  type?: "text" | "number" | "url";
  multiline?: boolean;
  rows?: number;
}

export function TextField(p: TextProps) {
  const common = {
    ...errorProps(p.field, p.error),
    value: p.value,
    placeholder: p.placeholder,
    spellCheck: false,
  };
  return (
    <Field field={p.field} label={p.label} error={p.error} hint={p.hint}>
      {p.multiline ? (
        <textarea {...common} rows={p.rows ?? 3} onChange={(e) => p.onChange(e.target.value)} />
      ) : (
        <input
          {...common}
          type={p.type ?? "text"}
          min={p.type === "number" ? 0 : undefined}
          step={p.type === "number" ? 1 : undefined}
          onChange={(e) => p.onChange(e.target.value)}
        />
      )}
    </Field>
  );
}

export function CheckField({ field, label, checked, error, onChange, hint }: {
  field: string;
  label: string;
  checked: boolean;
  error: string | undefined;
  onChange: (v: boolean) => void;
  hint?: ReactNode;
}) {
  return (
    <div className={`profile-field check${error ? " invalid" : ""}`}>
      <label>
        <input type="checkbox" {...errorProps(field, error)} checked={checked} onChange={(e) => onChange(e.target.checked)} /> {label}
      </label>
      {hint && <p className="field-hint">{hint}</p>}
      <FieldError field={field} error={error} />
    </div>
  );
}
