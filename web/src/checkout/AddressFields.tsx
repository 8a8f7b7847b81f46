import type { ReactElement } from "react";
import type { FieldProps } from "../shared/Field";
import { addressRulesOf } from "../shared/address-rules";
import type { Country } from "./countries";
import type { CustomerForm } from "./pay";

type AddressField = "line1" | "line2" | "city" | "state" | "postalCode" | "country";

/**
 * The shipping address (issue 36): state/region and postal code asked, required, checked and labelled
 * by the country's rules (src/lib/address-rules.ts, shared with the server); a country without
 * states (Germany, France, the Netherlands) has no such field.
 */
export function AddressFields({
  form,
  setForm,
  field,
  shown,
  blur,
  countries,
}: {
  form: CustomerForm;
  setForm: (form: CustomerForm) => void;
  /** The checkout's customer field (value, problem, blur and change wired). */
  field: (name: AddressField, label: string, props?: Omit<FieldProps, "name" | "label">) => ReactElement;
  shown: (name: AddressField) => string | undefined;
  blur: (name: AddressField) => () => void;
  countries: Country[];
}) {
  const rules = addressRulesOf(form.country);
  return (
    <fieldset className="stack" data-testid="shipping-address">
      <legend>Shipping address</legend>
      {field("line1", "Address", { autoComplete: "address-line1", required: true })}
      {field("line2", "Apartment, suite (optional)", { autoComplete: "address-line2" })}
      <div className="row">
        {field("city", "City", { autoComplete: "address-level2", required: true })}
        {rules.state && field("state", rules.state.label, { autoComplete: "address-level1", required: rules.state.required })}
      </div>
      <div className="row">
        {field("postalCode", rules.postalCode.label, { autoComplete: "postal-code", required: rules.postalCode.required })}
        <div className="field">
          <label htmlFor="country">Country</label>
          <select
            id="country"
            name="country"
            autoComplete="country"
            required
            value={form.country}
            aria-invalid={shown("country") ? true : undefined}
            aria-describedby={shown("country") ? "country-error" : undefined}
            onBlur={blur("country")}
            onChange={(e) => setForm({ ...form, country: e.target.value })}
          >
            <option value="">Choose…</option>
            {countries.map((c) => (
              <option key={c.code} value={c.code}>
                {c.name}
              </option>
            ))}
          </select>
          {shown("country") && (
            <p id="country-error" className="field-error">
              {shown("country")}
            </p>
          )}
        </div>
      </div>
    </fieldset>
  );
}
