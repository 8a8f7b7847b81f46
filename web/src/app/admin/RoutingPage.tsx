import { useEffect, useState, type FormEvent } from "react";
import type { RoutingReply, RoutingRuleView, RoutingVersionReply } from "../../shared/api-types";
import { api } from "../../shared/api";
import { useAction, useApi, date } from "./hooks";
import { Failure, Field, Message, Select } from "./ui";

// Issue 34: the brand's routing rules of the mode the switch shows (docs/orchestration.md "Routing
// rules"). The list is edited here and saved whole as a new version; older versions can be loaded.

type Rule = RoutingRuleView;
type TargetType = "provider" | "split" | "best_of";

const CARD_BRANDS = ["visa", "mastercard", "amex", "discover", "jcb", "diners", "unionpay", "maestro"] as const;

interface RuleDraft {
  id?: string;
  name: string;
  amountMin: string;
  amountMax: string;
  currencies: string;
  countries: string;
  cardBrands: string[];
  binRanges: string;
  binCountries: string;
  productIds: string;
  funnelIds: string;
  buyer: string;
  targetType: TargetType;
  rows: { provider: string; weight: string }[];
  explorationPercent: string;
  caps: { provider: string; currency: string; dailyAmount: string }[];
}

const list = (typed: string) => typed.split(",").map((s) => s.trim()).filter(Boolean);
const joined = (values: string[] | undefined) => (values ?? []).join(", ");

function draftOf(rule: Rule | null, providers: string[]): RuleDraft {
  const first = providers[0] ?? "";
  if (!rule) {
    return { name: "", amountMin: "", amountMax: "", currencies: "", countries: "", cardBrands: [], binRanges: "", binCountries: "", productIds: "", funnelIds: "", buyer: "", targetType: "provider", rows: [{ provider: first, weight: "1" }], explorationPercent: "10", caps: [] };
  }
  const c = rule.conditions;
  const t = rule.target;
  const rows =
    t.type === "split" ? (t.splits ?? []).map((s) => ({ provider: s.provider, weight: String(s.weight) })) : t.type === "best_of" ? (t.providers ?? []).map((p) => ({ provider: p, weight: "1" })) : [{ provider: t.provider ?? first, weight: "1" }];
  return {
    id: rule.id,
    name: rule.name,
    amountMin: c.amountMin === undefined ? "" : String(c.amountMin),
    amountMax: c.amountMax === undefined ? "" : String(c.amountMax),
    currencies: joined(c.currencies),
    countries: joined(c.countries),
    cardBrands: c.cardBrands ?? [],
    binRanges: (c.binRanges ?? []).map((r) => (r.from === r.to ? r.from : `${r.from}-${r.to}`)).join(", "),
    binCountries: joined(c.binCountries),
    productIds: joined(c.productIds),
    funnelIds: joined(c.funnelIds),
    buyer: c.buyer ?? "",
    targetType: t.type as TargetType,
    rows,
    explorationPercent: String(t.explorationPercent ?? 10),
    caps: (rule.caps ?? []).map((cap) => ({ provider: cap.provider, currency: cap.currency, dailyAmount: String(cap.dailyAmount) })),
  };
}

/** The rule the API takes; its checks (providers, weights, ranges) are the server's, shown as its message. */
function ruleOf(d: RuleDraft): Rule {
  const conditions: Rule["conditions"] = {};
  if (d.amountMin !== "") conditions.amountMin = Number(d.amountMin);
  if (d.amountMax !== "") conditions.amountMax = Number(d.amountMax);
  const codes = (typed: string) => list(typed).map((s) => s.toUpperCase());
  if (list(d.currencies).length) conditions.currencies = codes(d.currencies);
  if (list(d.countries).length) conditions.countries = codes(d.countries);
  if (d.cardBrands.length) conditions.cardBrands = d.cardBrands;
  if (list(d.binRanges).length) conditions.binRanges = list(d.binRanges).map((r) => ({ from: r.split("-")[0]!.trim(), to: (r.split("-")[1] ?? r).trim() }));
  if (list(d.binCountries).length) conditions.binCountries = codes(d.binCountries);
  if (list(d.productIds).length) conditions.productIds = list(d.productIds);
  if (list(d.funnelIds).length) conditions.funnelIds = list(d.funnelIds);
  if (d.buyer === "first" || d.buyer === "returning") conditions.buyer = d.buyer;
  const target: Rule["target"] =
    d.targetType === "provider"
      ? { type: "provider", provider: d.rows[0]?.provider ?? "" }
      : d.targetType === "split"
        ? { type: "split", splits: d.rows.map((r) => ({ provider: r.provider, weight: Number(r.weight) })) }
        : { type: "best_of", providers: d.rows.map((r) => r.provider), explorationPercent: Number(d.explorationPercent || 10) };
  const caps = d.caps.map((cap) => ({ provider: cap.provider, currency: cap.currency.toUpperCase(), dailyAmount: Number(cap.dailyAmount) }));
  return { ...(d.id ? { id: d.id } : {}), name: d.name, conditions, target, ...(caps.length ? { caps } : {}) } as Rule;
}

function conditionsText(c: Rule["conditions"]): string {
  const parts: string[] = [];
  if (c.amountMin !== undefined && c.amountMax !== undefined) parts.push(`amount ${c.amountMin} to below ${c.amountMax}`);
  else if (c.amountMin !== undefined) parts.push(`amount at least ${c.amountMin}`);
  else if (c.amountMax !== undefined) parts.push(`amount below ${c.amountMax}`);
  if (c.currencies?.length) parts.push(`currency ${c.currencies.join("/")}`);
  if (c.countries?.length) parts.push(`buyer in ${c.countries.join("/")}`);
  if (c.cardBrands?.length) parts.push(`card ${c.cardBrands.join("/")}`);
  if (c.binRanges?.length) parts.push(`BIN ${c.binRanges.map((r) => `${r.from}–${r.to}`).join(", ")}`);
  if (c.binCountries?.length) parts.push(`card from ${c.binCountries.join("/")}`);
  if (c.productIds?.length) parts.push(`product ${c.productIds.join("/")}`);
  if (c.funnelIds?.length) parts.push(`funnel ${c.funnelIds.join("/")}`);
  if (c.buyer) parts.push(c.buyer === "first" ? "first order" : "returning buyer");
  return parts.length ? parts.join("; ") : "every order";
}

function targetText(rule: Rule): string {
  const t = rule.target;
  const caps = rule.caps?.length ? `; caps: ${rule.caps.map((c) => `${c.provider} ${c.dailyAmount} ${c.currency}/day`).join(", ")}` : "";
  if (t.type === "split") {
    const total = (t.splits ?? []).reduce((sum, s) => sum + s.weight, 0);
    return `split ${(t.splits ?? []).map((s) => `${s.provider} ${Math.round((s.weight / total) * 1000) / 10}%`).join(", ")}${caps}`;
  }
  if (t.type === "best_of") return `best of ${(t.providers ?? []).join(", ")} (exploration ${t.explorationPercent ?? 10}%)${caps}`;
  return `${t.provider}${caps}`;
}

export function RoutingPage() {
  const routing = useApi<RoutingReply>("/api/admin/routing");
  const action = useAction();
  const [rules, setRules] = useState<Rule[]>([]);
  const [maxProviders, setMaxProviders] = useState(2);
  const [changed, setChanged] = useState(false);
  const [editing, setEditing] = useState<{ index: number | null; draft: RuleDraft } | null>(null);
  const data = routing.data;
  const providers = data?.providers ?? [];

  useEffect(() => {
    if (!data) return;
    setRules(data.rules);
    setMaxProviders(data.maxProviders);
    setChanged(false);
    setEditing(null);
  }, [data]);

  const change = (next: Rule[]) => (setRules(next), setChanged(true));
  const move = (index: number, by: number) => {
    const next = [...rules];
    const [rule] = next.splice(index, 1);
    next.splice(index + by, 0, rule!);
    change(next);
  };
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!editing) return;
    const rule = ruleOf(editing.draft);
    change(editing.index === null ? [...rules, rule] : rules.map((r, i) => (i === editing.index ? rule : r)));
    setEditing(null);
  };
  const save = () => {
    if (!data) return;
    void action.run(
      () => api<RoutingReply>("/api/admin/routing", { method: "PUT", body: { livemode: data.livemode, rules, maxProviders } }),
      (r) => (routing.reload(), `Saved version ${r.version} of the ${r.livemode ? "live" : "test"} routing rules.`),
    );
  };
  const load = (version: number) => {
    if (!data) return;
    void action.run(
      () => api<RoutingVersionReply>(`/api/admin/routing/versions/${version}?livemode=${data.livemode}`),
      (r) => (setRules(r.rules), setMaxProviders(r.maxProviders), setChanged(true), setEditing(null), `Loaded version ${r.version}: save to make it the current rules again.`),
    );
  };
  const mode = data ? (data.livemode ? "live" : "test") : "";

  return (
    <>
      <h1>Payment routing</h1>
      <p className="muted">
        Which provider charges an order's card. Rules are read from the top: the first whose conditions all hold decides; when none does, the default rule charges through your enabled providers in their usual order. Amounts are in minor units (4999 = 49.99).
      </p>
      <Failure error={routing.error} />
      <Message message={action.message} />
      {data && (
        <>
          <p>
            Showing the <strong>{mode}</strong> rules, version {data.version === 0 ? "none saved yet" : data.version}
            {changed && <strong> (unsaved changes)</strong>}.
          </p>
          <table>
            <caption className="sr-only">Routing rules, in the order they are read</caption>
            <thead><tr><th>#</th><th>Rule</th><th>Conditions</th><th>Target</th><th><span className="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {rules.map((rule, i) => (
                <tr key={rule.id ?? `new-${i}`}>
                  <td>{i + 1}</td>
                  <td>{rule.name}</td>
                  <td>{conditionsText(rule.conditions)}</td>
                  <td>{targetText(rule)}</td>
                  <td className="actions">
                    <button type="button" className="secondary" aria-label={`Move ${rule.name} up`} disabled={i === 0} onClick={() => move(i, -1)}>Up</button>
                    <button type="button" className="secondary" aria-label={`Move ${rule.name} down`} disabled={i === rules.length - 1} onClick={() => move(i, 1)}>Down</button>
                    <button type="button" className="secondary" aria-label={`Edit ${rule.name}`} onClick={() => setEditing({ index: i, draft: draftOf(rule, providers) })}>Edit</button>
                    <button type="button" className="secondary" aria-label={`Remove ${rule.name}`} onClick={() => change(rules.filter((_, j) => j !== i))}>Remove</button>
                  </td>
                </tr>
              ))}
              <tr>
                <td>{rules.length + 1}</td>
                <td>Default rule</td>
                <td>every order no rule above takes</td>
                <td>your enabled providers, in their usual order</td>
                <td />
              </tr>
            </tbody>
          </table>
          {!editing && <p><button type="button" className="secondary" onClick={() => setEditing({ index: null, draft: draftOf(null, providers) })}>Add a rule</button></p>}
          {editing && <RuleForm draft={editing.draft} isNew={editing.index === null} providers={providers} onChange={(draft) => setEditing({ ...editing, draft })} onSubmit={apply} onCancel={() => setEditing(null)} />}
          <Select
            id="routing-max-providers"
            label="Providers one payment may try when a card is soft-declined (cascade)"
            options={[["1", "1 (no cascade)"], ["2", "2"], ["3", "3"], ["4", "4"]]}
            value={String(maxProviders)}
            onChange={(e) => (setMaxProviders(Number(e.currentTarget.value)), setChanged(true))}
          />
          <p><button type="button" disabled={action.busy || !changed} onClick={save}>Save as a new version</button></p>
          <h2>Version history</h2>
          {data.versions.length === 0 ? (
            <p>No version saved yet for {mode} orders.</p>
          ) : (
            <table>
              <caption className="sr-only">Saved versions, newest first</caption>
              <thead><tr><th>Version</th><th>Saved</th><th>By</th><th><span className="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {data.versions.map((v) => (
                  <tr key={v.version}>
                    <td>{v.version}{v.version === data.version && " (current)"}</td>
                    <td>{date(v.createdAt)}</td>
                    <td>{v.createdByName ?? v.createdBy ?? "—"}</td>
                    <td className="actions"><button type="button" className="secondary" aria-label={`Load version ${v.version}`} disabled={action.busy} onClick={() => load(v.version)}>Load</button></td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </>
  );
}

function RuleForm({ draft, isNew, providers, onChange, onSubmit, onCancel }: { draft: RuleDraft; isNew: boolean; providers: string[]; onChange: (d: RuleDraft) => void; onSubmit: (e: FormEvent<HTMLFormElement>) => void; onCancel: () => void }) {
  const set = (patch: Partial<RuleDraft>) => onChange({ ...draft, ...patch });
  const text = (key: keyof RuleDraft, label: string, extra: Record<string, unknown> = {}) => (
    <Field id={`rule-${key}`} label={label} value={draft[key] as string} onChange={(e) => set({ [key]: e.currentTarget.value } as Partial<RuleDraft>)} {...extra} />
  );
  const setRow = (i: number, patch: Partial<RuleDraft["rows"][number]>) => set({ rows: draft.rows.map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  const setCap = (i: number, patch: Partial<RuleDraft["caps"][number]>) => set({ caps: draft.caps.map((c, j) => (j === i ? { ...c, ...patch } : c)) });
  const providerOptions = providers.map((p) => [p, p] as [string, string]);
  const several = draft.targetType !== "provider";
  return (
    <form className="card stack" onSubmit={onSubmit} style={{ marginTop: "1rem", maxWidth: "48rem" }} aria-labelledby="rule-form-heading">
      <h2 id="rule-form-heading">{isNew ? "New rule" : "Edit rule"}</h2>
      {text("name", "Rule name", { required: true, maxLength: 200 })}
      <fieldset>
        <legend>Conditions: every filled one must hold</legend>
        {text("amountMin", "Amount at least (minor units)", { type: "number", min: 0 })}
        {text("amountMax", "Amount below (minor units)", { type: "number", min: 0 })}
        {text("currencies", "Currencies (codes, comma-separated)")}
        {text("countries", "Buyer countries (codes, comma-separated)")}
        <fieldset>
          <legend>Card brands</legend>
          {CARD_BRANDS.map((brand) => (
            <label key={brand} className="inline">
              <input type="checkbox" checked={draft.cardBrands.includes(brand)} onChange={(e) => set({ cardBrands: e.currentTarget.checked ? [...draft.cardBrands, brand] : draft.cardBrands.filter((b) => b !== brand) })} /> {brand}
            </label>
          ))}
        </fieldset>
        {text("binRanges", "BIN ranges (e.g. 400000-499999, comma-separated; 6–8 digits)")}
        {text("binCountries", "Card issuing countries (codes, comma-separated)")}
        {text("productIds", "Products (ids, comma-separated)")}
        {text("funnelIds", "Funnels (ids, comma-separated)")}
        <Select id="rule-buyer" label="Buyer" options={[["", "Any"], ["first", "First order"], ["returning", "Returning buyer"]]} value={draft.buyer} onChange={(e) => set({ buyer: e.currentTarget.value })} />
      </fieldset>
      <fieldset>
        <legend>Target</legend>
        <Select
          id="rule-target"
          label="Send the order to"
          options={[["provider", "One provider"], ["split", "A split by weight"], ["best_of", "The best approval rate of"]]}
          value={draft.targetType}
          onChange={(e) => {
            const targetType = e.currentTarget.value as TargetType;
            const rows = targetType === "provider" ? draft.rows.slice(0, 1) : draft.rows.length < 2 ? [...draft.rows, { provider: providers.find((p) => !draft.rows.some((r) => r.provider === p)) ?? providers[0] ?? "", weight: "1" }] : draft.rows;
            set({ targetType, rows });
          }}
        />
        {draft.rows.map((row, i) => (
          <div key={i} className="row">
            <Select id={`rule-provider-${i}`} label={several ? `Provider ${i + 1}` : "Provider"} options={providerOptions} value={row.provider} onChange={(e) => setRow(i, { provider: e.currentTarget.value })} />
            {draft.targetType === "split" && <Field id={`rule-weight-${i}`} label={`Weight of provider ${i + 1}`} type="number" min={0} step="any" required value={row.weight} onChange={(e) => setRow(i, { weight: e.currentTarget.value })} />}
            {several && draft.rows.length > 1 && <button type="button" className="secondary" onClick={() => set({ rows: draft.rows.filter((_, j) => j !== i) })}>Remove provider {i + 1}</button>}
          </div>
        ))}
        {several && draft.rows.length < providers.length && (
          <button type="button" className="secondary" onClick={() => set({ rows: [...draft.rows, { provider: providers.find((p) => !draft.rows.some((r) => r.provider === p)) ?? providers[0] ?? "", weight: "1" }] })}>Add a provider</button>
        )}
        {draft.targetType === "best_of" && text("explorationPercent", "Exploration share (% of orders tried first on another provider)", { type: "number", min: 0, max: 100 })}
      </fieldset>
      <fieldset>
        <legend>Daily caps (approved volume per provider, per day and currency)</legend>
        {draft.caps.map((cap, i) => (
          <div key={i} className="row">
            <Select id={`rule-cap-provider-${i}`} label={`Cap ${i + 1} provider`} options={providerOptions} value={cap.provider} onChange={(e) => setCap(i, { provider: e.currentTarget.value })} />
            <Field id={`rule-cap-currency-${i}`} label={`Cap ${i + 1} currency`} required pattern="[A-Za-z]{3}" value={cap.currency} onChange={(e) => setCap(i, { currency: e.currentTarget.value })} />
            <Field id={`rule-cap-amount-${i}`} label={`Cap ${i + 1} daily amount (minor units)`} type="number" min={0} required value={cap.dailyAmount} onChange={(e) => setCap(i, { dailyAmount: e.currentTarget.value })} />
            <button type="button" className="secondary" onClick={() => set({ caps: draft.caps.filter((_, j) => j !== i) })}>Remove cap {i + 1}</button>
          </div>
        ))}
        <button type="button" className="secondary" onClick={() => set({ caps: [...draft.caps, { provider: draft.rows[0]?.provider ?? providers[0] ?? "", currency: "USD", dailyAmount: "" }] })}>Add a cap</button>
      </fieldset>
      <p>
        <button type="submit">{isNew ? "Add rule" : "Apply changes"}</button> <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
      </p>
      <p className="muted">The list is saved with “Save as a new version”.</p>
    </form>
  );
}
