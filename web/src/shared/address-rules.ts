// The address rules by country (issue 36), one table with the server's: src/lib/address-rules.ts is
// dependency-free, so the bundle takes it as it is (test/web/api-types.unit.test.ts allows this import).
export { addressPartProblem, addressProblems, addressRulesOf, type AddressPartRule, type CountryAddressRules } from "../../../src/lib/address-rules";
