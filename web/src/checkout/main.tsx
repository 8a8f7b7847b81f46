import { createRoot } from "react-dom/client";
import "../shared/base.css";
import "./checkout.css";
import { CheckoutPage } from "./CheckoutPage";

createRoot(document.getElementById("root")!).render(<CheckoutPage path={location.pathname} />);
