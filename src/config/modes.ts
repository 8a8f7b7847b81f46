// The operator's switches that several config files name (index.ts reads them, unsafe.ts judges them).
export type RegistrationMode = "open" | "disabled" | "maintenance";
export type PaymentMode = "test" | "live";
