import type { Deps } from "../ctx.js";
import type { App } from "../http/types.js";

export function registerCheckoutRoutes(_app: App, _deps: Deps): void {}
