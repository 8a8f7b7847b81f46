import type { BrandingReply } from "./api-types";
import { useEffect, useState, type ReactNode } from "react";

/** GET /api/admin/branding: the brand serving this host (logo and colour only when stored). */
export type Branding = BrandingReply;

/** WCAG relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

/**
 * Applies a brand colour: `--brand` (bars, buttons), `--brand-ink` (white or near-black, whichever
 * reads better on it) and `--link` (the colour itself when it reads on white, else the default blue).
 */
export function applyBrandColor(color: string, root: HTMLElement = document.documentElement): void {
  if (!/^#[0-9a-fA-F]{6}$/.test(color)) return;
  const l = luminance(color);
  root.style.setProperty("--brand", color);
  root.style.setProperty("--brand-ink", contrast(l, 1) >= contrast(l, luminance("#111827")) ? "#ffffff" : "#111827");
  if (contrast(l, 1) >= 4.5) root.style.setProperty("--link", color);
}

let brandingRequest: Promise<Branding | null> | null = null;

/** The branding, fetched once per page load however many readers ask (the page's title reads it too); null on failure. */
export function loadBranding(): Promise<Branding | null> {
  brandingRequest ??= fetch("/api/admin/branding", { credentials: "same-origin" })
    .then((r) => (r.ok ? (r.json() as Promise<Branding>) : null))
    .catch(() => null);
  return brandingRequest;
}

/** Reads the branding once; failures keep the default look (the page works without it). */
export function useBranding(): Branding | null {
  const [branding, setBranding] = useState<Branding | null>(null);
  useEffect(() => {
    let live = true;
    loadBranding()
      .then((b) => {
        if (!live || !b) return;
        if (b.color) applyBrandColor(b.color);
        setBranding(b);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  return branding;
}

/** The brand bar: logo and name (space kept while they load: no layout shift), then the page's line. */
export function BrandBar({ branding, children }: { branding: Branding | null; children: ReactNode }) {
  return (
    <header className="brandbar">
      <span className="brand-id" data-testid="brand-name">
        {branding?.logoUrl && <img src={branding.logoUrl} alt="" height={32} width={32} className="brand-logo" data-testid="brand-logo" referrerPolicy="no-referrer" />}
        {branding?.companyName ?? ""}
      </span>
      <span>{children}</span>
    </header>
  );
}
