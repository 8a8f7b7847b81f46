import { createRoot } from "react-dom/client";
import "../shared/base.css";
import "./checkout.css";
import { CheckoutPage } from "./CheckoutPage";
import { loadBranding } from "../shared/branding";
import { decodeClaims } from "../shared/jwt";

// The tab's title names the product and the shop (the token's productName, the brand's name).
function productOfPath(): string | undefined {
  try {
    return decodeClaims(decodeURIComponent(location.pathname.replace(/^\/checkout\//, "").replace(/\/$/, "")))?.productName;
  } catch {
    return undefined; // a malformed path: the page itself says the link is not valid
  }
}
const product = productOfPath();
document.title = product ? `${product} – Checkout` : "Checkout";
void loadBranding().then((brand) => {
  if (brand?.companyName) document.title = `${product ?? "Checkout"} – ${brand.companyName}`;
});

createRoot(document.getElementById("root")!).render(<CheckoutPage path={location.pathname} />);
