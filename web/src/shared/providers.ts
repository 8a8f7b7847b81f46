// The one value the pages take from the server's code: the provider manifest, a dependency-free
// list (src/providers/manifest.ts). test/web/api-types.unit.test.ts allows this import and no other.
export { PAYMENT_PROVIDERS, PROVIDER_MANIFEST } from "../../../src/providers/manifest";
