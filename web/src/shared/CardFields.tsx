import type { ChangeEvent } from "react";
import { brandOf, digitsOf, formatExpiry, groupCardNumber } from "./card";
import { Field } from "./Field";

/** The card as shown: number grouped, expiry `MM / YY`. */
export interface CardEntry {
  cardNumber: string;
  cardExp: string;
  cardCvv: string;
}
type CardField = keyof CardEntry;

/**
 * Card number (grouped as typed, the brand beside its label), expiry and security code with their
 * problems as typed: the checkout's card fields, and the upsell page's after a refused one-click
 * charge (issue 36). The caller owns the values, which fields were left (`errors` holds only those
 * it shows) and the checks (web/src/shared/card.ts).
 */
export function CardFields({
  card,
  onChange,
  errors,
  onBlur,
  idPrefix = "",
}: {
  card: CardEntry;
  onChange: (card: CardEntry) => void;
  errors: Partial<Record<CardField, string>>;
  onBlur: (field: CardField) => void;
  idPrefix?: string;
}) {
  function onCardNumber(e: ChangeEvent<HTMLInputElement>) {
    const input = e.target;
    const caret = input.selectionStart ?? input.value.length;
    const digitsBefore = digitsOf(input.value.slice(0, caret)).length;
    const digits = digitsOf(input.value);
    const max = brandOf(digits).groups.reduce((a, b) => a + b, 0);
    const grouped = groupCardNumber(digits.slice(0, max));
    onChange({ ...card, cardNumber: grouped });
    // Keep the caret after the same digit when the grouping moved it.
    if (caret < input.value.length) {
      requestAnimationFrame(() => {
        let at = 0;
        for (let seen = 0; at < grouped.length && seen < digitsBefore; at++) if (/\d/.test(grouped[at]!)) seen++;
        input.setSelectionRange(at, at);
      });
    }
  }
  const brand = brandOf(digitsOf(card.cardNumber)).name;
  return (
    <>
      <Field
        name="cardNumber"
        id={`${idPrefix}cardNumber`}
        label="Card number"
        autoComplete="cc-number"
        inputMode="numeric"
        required
        placeholder="1234 1234 1234 1234"
        value={card.cardNumber}
        error={errors.cardNumber}
        onBlur={() => onBlur("cardNumber")}
        onChange={onCardNumber}
        aside={
          <span className="card-brand" data-testid="card-brand" aria-live="polite">
            {brand}
          </span>
        }
      />
      <div className="row">
        <Field
          name="cardExp"
          id={`${idPrefix}cardExp`}
          label="Expiry date (MM / YY)"
          autoComplete="cc-exp"
          inputMode="numeric"
          required
          placeholder="MM / YY"
          maxLength={7}
          value={card.cardExp}
          error={errors.cardExp}
          onBlur={() => onBlur("cardExp")}
          onChange={(e) => onChange({ ...card, cardExp: formatExpiry(e.target.value, card.cardExp) })}
        />
        <Field
          name="cardCvv"
          id={`${idPrefix}cardCvv`}
          label="Security code"
          autoComplete="cc-csc"
          inputMode="numeric"
          required
          maxLength={4}
          value={card.cardCvv}
          error={errors.cardCvv}
          onBlur={() => onBlur("cardCvv")}
          onChange={(e) => onChange({ ...card, cardCvv: digitsOf(e.target.value).slice(0, 4) })}
        />
      </div>
    </>
  );
}
