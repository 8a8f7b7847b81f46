import { useCallback, useEffect, useState } from "react";
import { api, ApiError, messageOf } from "../../shared/api";
import { learnMode, useMode, withMode } from "./mode";

/**
 * GET `path` when it changes; `reload` fetches again (after a change). `errorCode`: the API's `code` of
 * a refusal. A list or stat is asked in the mode the switch shows (mode.ts), and refetched when it changes.
 */
export function useApi<T>(bare: string | null): { data: T | null; error: string | null; errorCode: string | null; reload: () => void } {
  const mode = useMode();
  const path = bare === null ? null : withMode(bare, mode);
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [errorCode, setErrorCode] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!path) return;
    let live = true;
    api<T>(path)
      .then((d) => {
        if (!live) return;
        const shown = (d as { livemode?: unknown } | null)?.livemode;
        if (typeof shown === "boolean" && !/[?&]livemode=/.test(path)) learnMode(shown);
        setData(d);
        setError(null);
        setErrorCode(null);
      })
      .catch((e) => live && (setError(messageOf(e)), setErrorCode(e instanceof ApiError ? (e.code ?? null) : null)));
    return () => {
      live = false;
    };
  }, [path, tick]);
  return { data, error, errorCode, reload: useCallback(() => setTick((t) => t + 1), []) };
}

/** Runs a change; returns its message for a role=status line, or the API's error. */
export function useAction(): { busy: boolean; message: { ok: boolean; text: string } | null; run: <T>(fn: () => Promise<T>, ok: (r: T) => string) => Promise<void> } {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const run = useCallback(async <T,>(fn: () => Promise<T>, ok: (r: T) => string) => {
    setBusy(true);
    setMessage(null);
    try {
      setMessage({ ok: true, text: ok(await fn()) });
    } catch (e) {
      setMessage({ ok: false, text: messageOf(e) });
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, message, run };
}

export const formValues = (form: HTMLFormElement) => Object.fromEntries(new FormData(form)) as Record<string, string>;
export const date = (ms: number) => new Date(ms).toLocaleString();
