import type { Deps } from "../ctx.js";
import type { App } from "../http/types.js";

export function registerProviderRoutes(_app: App, _deps: Deps): void {}
