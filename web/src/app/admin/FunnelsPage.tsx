import { useState, type FormEvent, type ReactNode } from "react";
import type { FunnelStatsReply, FunnelsReply, FunnelView } from "../../shared/api-types";
import { api } from "../../shared/api";
import { formatMoney, parseMoney } from "../../shared/money";
import { useAction, useApi } from "./hooks";
import { ConfirmAction, Failure, Field, Message, Select } from "./ui";

// Issue 19: upsell funnels of the brand (docs/funnels.md). The form builds an AND of simple
// conditions; AND/OR groups are kept as they are when the funnel has them (edited through the API).

type Funnel = FunnelView;
type Stats = FunnelStatsReply;
type Condition = { type: string; productIds?: string[]; productNames?: string[]; min?: number; max?: number; in?: string[]; value?: boolean };

interface OfferDraft { name: string; price: string; originalPrice: string; description: string; image: string }
interface VariantDraft { id?: string; weight: string; offer: OfferDraft; downsell: OfferDraft }
interface Draft {
  name: string;
  priority: string;
  status: string;
  currency: string;
  products: string;
  minTotal: string;
  maxTotal: string;
  countries: string;
  firstOrder: string;
  steps: VariantDraft[][];
}

const emptyOffer = (): OfferDraft => ({ name: "", price: "", originalPrice: "", description: "", image: "" });
const emptyVariant = (): VariantDraft => ({ weight: "1", offer: emptyOffer(), downsell: emptyOffer() });
const emptyDraft = (): Draft => ({ name: "", priority: "100", status: "draft", currency: "USD", products: "", minTotal: "", maxTotal: "", countries: "", firstOrder: "", steps: [[emptyVariant()]] });
const list = (typed: string) => typed.split(",").map((s) => s.trim()).filter(Boolean);
const amountText = (minor: number | undefined, currency: string) => (minor === undefined ? "" : formatMoney(minor, currency, "en-US").replace(/[^0-9.]/g, ""));

type OfferBody = { name: string; prices: Record<string, number>; originalPrices?: Record<string, number>; description?: string; image?: string };

function offerBody(offer: OfferDraft, currency: string, where: string): OfferBody {
  const price = parseMoney(offer.price, currency);
  if (!offer.name.trim() || price === null || price < 1) throw new Error(`${where}: a name and a price are needed.`);
  const original = offer.originalPrice ? parseMoney(offer.originalPrice, currency) : null;
  return {
    name: offer.name.trim(),
    prices: { [currency]: price },
    ...(original !== null ? { originalPrices: { [currency]: original } } : {}),
    ...(offer.description ? { description: offer.description } : {}),
    ...(offer.image ? { image: offer.image } : {}),
  };
}

/** The API body of the form; keeps the funnel's groups (the form edits only plain conditions). */
function bodyOf(draft: Draft, kept: Condition[]) {
  const currency = draft.currency.toUpperCase();
  const conditions: Condition[] = [...kept];
  const products = list(draft.products);
  if (products.length) conditions.push({ type: "product", productIds: products, productNames: products });
  const min = draft.minTotal ? parseMoney(draft.minTotal, currency) : null;
  const max = draft.maxTotal ? parseMoney(draft.maxTotal, currency) : null;
  if (min !== null || max !== null) conditions.push({ type: "orderTotal", ...(min !== null ? { min } : {}), ...(max !== null ? { max } : {}) });
  conditions.push({ type: "currency", in: [currency] });
  const countries = list(draft.countries).map((c) => c.toUpperCase());
  if (countries.length) conditions.push({ type: "country", in: countries });
  if (draft.firstOrder) conditions.push({ type: "firstOrder", value: draft.firstOrder === "yes" });
  return {
    name: draft.name,
    priority: Number(draft.priority || 100),
    status: draft.status,
    trigger: { match: "all", conditions },
    steps: draft.steps.map((variants, s) => ({
      variants: variants.map((v, i) => ({
        ...(v.id ? { id: v.id } : {}),
        weight: Number(v.weight || 1),
        offer: offerBody(v.offer, currency, `Step ${s + 1}, variant ${i + 1}`),
        ...(v.downsell.name ? { downsell: offerBody(v.downsell, currency, `Step ${s + 1}, variant ${i + 1} downsell`) } : {}),
      })),
    })),
  };
}

/** The form of a stored funnel: its plain conditions in the fields, its groups kept aside. */
function draftOf(funnel: Funnel): { draft: Draft; kept: Condition[] } {
  const conditions = (funnel.trigger as { conditions: Condition[] }).conditions;
  const find = (type: string) => conditions.find((c) => c.type === type);
  const currency = find("currency")?.in?.[0] ?? Object.keys(funnel.steps[0]?.variants[0]?.offer.prices ?? {})[0] ?? "USD";
  const total = find("orderTotal");
  const offerDraft = (offer: Funnel["steps"][number]["variants"][number]["offer"] | undefined): OfferDraft =>
    offer
      ? { name: offer.name, price: amountText(offer.prices?.[currency] ?? offer.price, currency), originalPrice: amountText(offer.originalPrices?.[currency] ?? offer.originalPrice, currency), description: offer.description ?? "", image: offer.image ?? "" }
      : emptyOffer();
  const firstOrder = find("firstOrder");
  return {
    kept: conditions.filter((c) => c.type === "group"),
    draft: {
      name: funnel.name,
      priority: String(funnel.priority),
      status: funnel.status,
      currency,
      products: (find("product")?.productIds ?? find("product")?.productNames ?? []).join(", "),
      minTotal: amountText(total?.min, currency),
      maxTotal: amountText(total?.max, currency),
      countries: (find("country")?.in ?? []).join(", "),
      firstOrder: firstOrder ? (firstOrder.value ? "yes" : "no") : "",
      steps: funnel.steps.map((step) => step.variants.map((v) => ({ id: v.id, weight: String(v.weight), offer: offerDraft(v.offer), downsell: offerDraft(v.downsell) }))),
    },
  };
}

export function FunnelsPage() {
  const funnels = useApi<FunnelsReply>("/api/admin/funnels");
  const action = useAction();
  const [editing, setEditing] = useState<{ id: string | null; draft: Draft; kept: Condition[] } | null>(null);
  const [statsOf, setStatsOf] = useState<string | null>(null);

  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!editing) return;
    void action.run(
      async () => {
        const body = bodyOf(editing.draft, editing.kept);
        return editing.id
          ? api<{ funnel: Funnel }>(`/api/admin/funnels/${editing.id}`, { method: "PUT", body })
          : api<{ funnel: Funnel }>("/api/admin/funnels", { body });
      },
      (r) => (funnels.reload(), setEditing(null), `Saved funnel ${r.funnel.name} (version ${r.funnel.version}).`),
    );
  };
  const remove = (f: Funnel) => action.run(() => api(`/api/admin/funnels/${f.id}`, { method: "DELETE" }), () => (funnels.reload(), `Deleted funnel ${f.name}.`));

  return (
    <>
      <h1>Upsell funnels</h1>
      <p className="muted">After paying on the hosted checkout page, a buyer whose order matches a live funnel goes to its first offer. The first matching funnel by priority (lowest first) runs.</p>
      <Failure error={funnels.error} />
      <Message message={action.message} />
      <table>
        <caption className="sr-only">Funnels of this brand</caption>
        <thead><tr><th>Name</th><th>Status</th><th>Priority</th><th>Steps</th><th>Version</th><th><span className="sr-only">Actions</span></th></tr></thead>
        <tbody>
          {funnels.data?.funnels.map((f) => (
            <tr key={f.id}>
              <td>{f.name}</td>
              <td>{f.status}</td>
              <td>{f.priority}</td>
              <td>{f.steps.length}</td>
              <td>{f.version}</td>
              <td className="actions">
                <button type="button" className="secondary" onClick={() => setEditing({ id: f.id, ...draftOf(f) })}>Edit</button>
                <button type="button" className="secondary" onClick={() => setStatsOf(statsOf === f.id ? null : f.id)} aria-expanded={statsOf === f.id}>Stats</button>
                <ConfirmAction label="Delete" ariaLabel={`Delete ${f.name}`} question={`Delete ${f.name}? Its stats stay readable through the API.`} confirm="Confirm delete" busy={action.busy} onConfirm={() => remove(f)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {funnels.data && funnels.data.funnels.length === 0 && <p>No funnels yet.</p>}
      {statsOf && <FunnelStats id={statsOf} funnel={funnels.data?.funnels.find((f) => f.id === statsOf)} onPromoted={() => funnels.reload()} />}
      {!editing && <p><button type="button" onClick={() => setEditing({ id: null, draft: emptyDraft(), kept: [] })}>New funnel</button></p>}
      {editing && <FunnelForm editing={editing} busy={action.busy} onChange={(draft) => setEditing({ ...editing, draft })} onSubmit={save} onCancel={() => setEditing(null)} />}
    </>
  );
}

function OfferFields({ prefix, label, offer, onChange, required, rest }: { prefix: string; label: string; offer: OfferDraft; onChange: (offer: OfferDraft) => void; required: boolean; rest?: boolean }) {
  const field = (name: keyof OfferDraft, text: string, extra: Record<string, unknown> = {}) => (
    <Field id={`${prefix}-${name}`} label={`${label} ${text}`} value={offer[name]} onChange={(e) => onChange({ ...offer, [name]: e.currentTarget.value })} {...extra} />
  );
  return (
    <>
      {field("name", "name", { required, maxLength: 500 })}
      {field("price", "price", { required, inputMode: "decimal" })}
      {rest !== false && <OfferExtras field={field} />}
    </>
  );
}

/** An offer's optional fields: original price, description, image. */
function OfferExtras({ field }: { field: (name: keyof OfferDraft, text: string, extra?: Record<string, unknown>) => ReactNode }) {
  return (
    <>
      {field("originalPrice", "original price (optional)", { inputMode: "decimal" })}
      {field("description", "description (optional)", { maxLength: 5000 })}
      {field("image", "image URL (optional)", { maxLength: 2048 })}
    </>
  );
}

/** A disclosure of rarely used fields (issue 36 item 14: a shorter form, nothing removed); open when one of them holds a value. */
function MoreOptions({ label, filled, children }: { label: string; filled: boolean; children: ReactNode }) {
  return (
    <details className="more-options" open={filled || undefined}>
      <summary>{label}</summary>
      <div className="stack">{children}</div>
    </details>
  );
}

function FunnelForm({ editing, busy, onChange, onSubmit, onCancel }: { editing: { id: string | null; draft: Draft }; busy: boolean; onChange: (d: Draft) => void; onSubmit: (e: FormEvent<HTMLFormElement>) => void; onCancel: () => void }) {
  const { draft } = editing;
  const set = (patch: Partial<Draft>) => onChange({ ...draft, ...patch });
  const setVariant = (s: number, i: number, variant: VariantDraft) => set({ steps: draft.steps.map((step, si) => (si === s ? step.map((v, vi) => (vi === i ? variant : v)) : step)) });
  const text = (id: keyof Draft, label: string, extra: Record<string, unknown> = {}) => (
    <Field id={`funnel-${id}`} label={label} value={draft[id] as string} onChange={(e) => set({ [id]: e.currentTarget.value } as Partial<Draft>)} {...extra} />
  );
  return (
    <form className="card stack" onSubmit={onSubmit} style={{ marginTop: "1rem", maxWidth: "48rem" }} aria-labelledby="funnel-form-heading">
      <h2 id="funnel-form-heading">{editing.id ? "Edit funnel" : "New funnel"}</h2>
      {text("name", "Name", { required: true, maxLength: 200 })}
      <Select id="funnel-status" label="Status" options={[["draft", "Draft"], ["live", "Live"], ["paused", "Paused"]]} value={draft.status} onChange={(e) => set({ status: e.currentTarget.value })} />
      {text("currency", "Currency of the orders it takes (prices below are in it)", { required: true, pattern: "[A-Za-z]{3}" })}
      <fieldset>
        <legend>Trigger: every filled condition must hold</legend>
        {text("products", "Products bought (ids or names, comma-separated)")}
        <MoreOptions label="More trigger options" filled={[draft.minTotal, draft.maxTotal, draft.countries, draft.firstOrder].some((v) => v !== "")}>
          {text("minTotal", "Order total at least", { inputMode: "decimal" })}
          {text("maxTotal", "Order total at most", { inputMode: "decimal" })}
          {text("countries", "Countries (codes, comma-separated)")}
          <Select id="funnel-firstOrder" label="First order of this email" options={[["", "Either"], ["yes", "Yes"], ["no", "No"]]} value={draft.firstOrder} onChange={(e) => set({ firstOrder: e.currentTarget.value })} />
        </MoreOptions>
      </fieldset>
      {draft.steps.map((variants, s) => (
        <fieldset key={s}>
          <legend>Step {s + 1}</legend>
          {variants.map((v, i) => (
            <div key={i} className="stack">
              {variants.length > 1 && <strong>Variant {i + 1}</strong>}
              {variants.length > 1 && <Field id={`s${s}v${i}-weight`} label={`Step ${s + 1} variant ${i + 1} weight`} type="number" min={1} max={100} value={v.weight} onChange={(e) => setVariant(s, i, { ...v, weight: e.currentTarget.value })} />}
              <OfferFields prefix={`s${s}v${i}-offer`} label={`Step ${s + 1} variant ${i + 1} offer`} offer={v.offer} required rest={false} onChange={(offer) => setVariant(s, i, { ...v, offer })} />
              <MoreOptions label={`More options for step ${s + 1} variant ${i + 1}: original price, description, image, downsell`} filled={[v.offer.originalPrice, v.offer.description, v.offer.image, ...Object.values(v.downsell)].some((x) => x !== "")}>
                <OfferExtras field={(name, text, extra = {}) => <Field id={`s${s}v${i}-offer-${name}`} label={`Step ${s + 1} variant ${i + 1} offer ${text}`} value={v.offer[name]} onChange={(e) => setVariant(s, i, { ...v, offer: { ...v.offer, [name]: e.currentTarget.value } })} {...extra} />} />
                <OfferFields prefix={`s${s}v${i}-downsell`} label={`Step ${s + 1} variant ${i + 1} downsell`} offer={v.downsell} required={false} onChange={(downsell) => setVariant(s, i, { ...v, downsell })} />
              </MoreOptions>
            </div>
          ))}
          {variants.length < 4 && <button type="button" className="secondary" onClick={() => set({ steps: draft.steps.map((step, si) => (si === s ? [...step, emptyVariant()] : step)) })}>Add a variant to step {s + 1}</button>}
          {draft.steps.length > 1 && <button type="button" className="secondary" onClick={() => set({ steps: draft.steps.filter((_, si) => si !== s) })}>Remove step {s + 1}</button>}
        </fieldset>
      ))}
      {draft.steps.length < 5 && <button type="button" className="secondary" onClick={() => set({ steps: [...draft.steps, [emptyVariant()]] })}>Add a step</button>}
      <MoreOptions label="More options: priority" filled={draft.priority !== "100"}>
        {text("priority", "Priority (lowest runs first)", { type: "number", min: 0 })}
      </MoreOptions>
      <p>
        <button type="submit" disabled={busy}>Save funnel</button> <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
      </p>
    </form>
  );
}

/** A variant's name for the stats (issue 36): its offer's name, with the variant's number when a step has several. */
function variantNames(funnel: Funnel | undefined): Map<string, string> {
  const names = new Map<string, string>();
  for (const step of funnel?.steps ?? []) step.variants.forEach((v, i) => names.set(v.id, step.variants.length > 1 ? `${v.offer.name} (variant ${i + 1})` : v.offer.name));
  return names;
}

function FunnelStats({ id, funnel, onPromoted }: { id: string; funnel: Funnel | undefined; onPromoted: () => void }) {
  const names = variantNames(funnel);
  const nameOf = (variantId: string) => names.get(variantId) ?? variantId;
  const stats = useApi<Stats>(`/api/admin/funnels/${id}/stats`);
  const action = useAction();
  const money = (minor: number) => (stats.data?.currency ? formatMoney(minor, stats.data.currency) : String(minor));
  const percent = (x: number) => `${(x * 100).toFixed(1)} %`;
  const promote = (stepIndex: number, variantId: string) =>
    action.run(() => api(`/api/admin/funnels/${id}/promote`, { body: { stepIndex, variantId } }), () => (stats.reload(), onPromoted(), `Promoted ${nameOf(variantId)}: step ${stepIndex + 1} now shows only it.`));
  if (!stats.data) return <Failure error={stats.error} />;
  const s = stats.data;
  return (
    <section aria-labelledby="funnel-stats-heading" className="funnel-stats">
      <h2 id="funnel-stats-heading">Stats {s.from} to {s.to}</h2>
      <Message message={action.message} />
      <p>
        Sessions {s.sessions}, with an accept {s.sessionsWithAccept}; net revenue {money(s.netRevenue)} (gross {money(s.grossRevenue)}, refunded {money(s.refunded)}); net per checkout {money(Math.round(s.netRevenuePerCheckout))}.
      </p>
      <table>
        <caption className="sr-only">Figures per step and variant</caption>
        <thead>
          <tr><th>Step</th><th>Variant</th><th>Shown</th><th>Accepted / declined</th><th>Downsell accepts</th><th>Take rate</th><th>Net revenue (refunded)</th><th>Per impression</th><th>Chance best (revenue)</th><th><span className="sr-only">Actions</span></th></tr>
        </thead>
        <tbody>
          {s.steps.flatMap((step) =>
            step.variants.map((v) => (
              <tr key={`${step.stepIndex}-${v.variantId}`}>
                <td>{step.stepIndex + 1}</td>
                <td data-testid="variant-name">{nameOf(v.variantId)}{v.winner && <strong> Winner</strong>}</td>
                <td>{v.impressions}</td>
                <td>{v.accepts} / {v.declines}</td>
                <td>{v.downsellAccepts}</td>
                <td>{percent(v.takeRate)}</td>
                <td>{money(v.netRevenue)}{v.refunded > 0 && <> ({money(v.refunded)})</>}</td>
                <td>{money(Math.round(v.revenuePerImpression))}</td>
                <td>{step.variants.length > 1 ? `${percent(v.probabilityBestTakeRate)} (${percent(v.probabilityBestRevenue)})` : "—"}</td>
                <td className="actions">
                  {step.variants.length > 1 && (
                    <button type="button" className={v.winner ? "" : "secondary"} disabled={action.busy} aria-label={`Promote ${nameOf(v.variantId)}`} onClick={() => void promote(step.stepIndex, v.variantId)}>Promote</button>
                  )}
                </td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </section>
  );
}
