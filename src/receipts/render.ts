import { formatMoney } from "../lib/money.js";

/** What a receipt shows of the brand (brands row; settings in docs/receipts.md). */
export interface ReceiptBrand {
  name: string;
  logoUrl?: string;
  color?: string;
  supportEmail: string | null;
}

export interface ReceiptLine {
  name: string;
  quantity: number;
  /** Minor units, for one. */
  unitPrice: number;
}

/** One mail to the buyer: the purchase, a one-click upsell charge, or money given back. */
export type Receipt =
  | { kind: "order"; orderId: string; customerName: string; amount: number; currency: string; lines: ReceiptLine[] }
  | { kind: "upsell"; orderId: string; originalOrderId: string; amount: number; currency: string; lines: ReceiptLine[] }
  | { kind: "refund"; orderId: string; amount: number; currency: string; refundedTotal: number };

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Header lines hold no line breaks (a buyer's name is theirs to choose). */
const oneLine = (value: string) => value.replace(/[\r\n]+/g, " ").trim();
const DEFAULT_COLOR = "#111827";

function headline(receipt: Receipt): { subject: string; intro: string } {
  switch (receipt.kind) {
    case "order":
      return { subject: `Your receipt for order ${receipt.orderId}`, intro: `Thank you for your order${receipt.customerName ? `, ${oneLine(receipt.customerName)}` : ""}. Here is your receipt.` };
    case "upsell":
      return { subject: `Your receipt for order ${receipt.orderId}`, intro: `Thank you for adding to order ${receipt.originalOrderId}. This charge was made to the card you paid with.` };
    case "refund":
      return { subject: `Refund for order ${receipt.orderId}`, intro: `We have refunded ${formatMoney(receipt.amount, receipt.currency)} for order ${receipt.orderId}. It reaches your account within a few business days, depending on your bank.` };
  }
}

/**
 * A test order's receipt (issue 33): it goes to the brand's team, never to the buyer, and says so in
 * its subject and first lines. `buyer`: the address a live receipt would have gone to.
 */
export interface TestReceipt {
  buyer: string | null;
}

const testNotice = (test: TestReceipt) =>
  `TEST: this receipt is of a test order; no real money moved. It was sent to the brand's team, not to the buyer${test.buyer ? ` (${oneLine(test.buyer)})` : ""}.`;

/** The receipt as plain text and HTML (inline styles: mail programs ignore style sheets). Every buyer-given text is escaped. */
export function renderReceipt(brand: ReceiptBrand, receipt: Receipt, test?: TestReceipt): RenderedMail {
  const rendered = renderLiveReceipt(brand, receipt);
  if (!test) return rendered;
  const notice = testNotice(test);
  return {
    subject: `[TEST] ${rendered.subject}`,
    text: `${notice}\n\n${rendered.text}`,
    html: rendered.html.replace(
      "<tr><td style=\"padding:24px\">",
      `<tr><td style="padding:24px"><p style="margin:0 0 16px;padding:8px;background:#fef3c7;color:#92400e;font-weight:bold">${escapeHtml(notice)}</p>`,
    ),
  };
}

function renderLiveReceipt(brand: ReceiptBrand, receipt: Receipt): RenderedMail {
  const { subject, intro } = headline(receipt);
  const money = (minor: number) => formatMoney(minor, receipt.currency);
  const lines = receipt.kind === "refund" ? [] : receipt.lines;
  const totalLabel = receipt.kind === "refund" ? "Refunded" : "Total";
  const support = brand.supportEmail ? `Questions? Write to ${brand.supportEmail}.` : "Questions? Reply to this mail.";

  const text = [
    brand.name,
    "",
    intro,
    "",
    `Order: ${receipt.orderId}`,
    ...lines.map((line) => `${line.quantity} × ${oneLine(line.name)}  ${money(line.unitPrice * line.quantity)}`),
    `${totalLabel}: ${money(receipt.amount)}`,
    ...(receipt.kind === "refund" && receipt.refundedTotal !== receipt.amount ? [`Refunded on this charge so far: ${money(receipt.refundedTotal)}`] : []),
    "",
    support,
  ].join("\n");

  const color = brand.color ?? DEFAULT_COLOR;
  const cell = 'style="padding:6px 0;border-bottom:1px solid #e5e7eb"';
  const rows = lines
    .map((line) => `<tr><td ${cell}>${line.quantity} × ${escapeHtml(line.name)}</td><td ${cell} align="right">${escapeHtml(money(line.unitPrice * line.quantity))}</td></tr>`)
    .join("");
  const html = `<!doctype html><html lang="en"><body style="margin:0;background:#f3f4f6;font-family:Arial,Helvetica,sans-serif;color:#111827">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:24px">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="background:#fff;border-top:6px solid ${color}">
<tr><td style="padding:24px">
${brand.logoUrl ? `<img src="${escapeHtml(brand.logoUrl)}" alt="${escapeHtml(brand.name)}" height="40" style="display:block;margin-bottom:16px">` : `<h1 style="margin:0 0 16px;font-size:20px;color:${color}">${escapeHtml(brand.name)}</h1>`}
<p>${escapeHtml(intro)}</p>
<p style="color:#4b5563">Order ${escapeHtml(receipt.orderId)}</p>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0">${rows}
<tr><td style="padding:8px 0"><strong>${totalLabel}</strong></td><td align="right" style="padding:8px 0"><strong>${escapeHtml(money(receipt.amount))}</strong></td></tr></table>
<p style="color:#4b5563;font-size:13px">${escapeHtml(support)}</p>
</td></tr></table></td></tr></table></body></html>`;
  return { subject: `${subject} – ${oneLine(brand.name)}`, text, html };
}
