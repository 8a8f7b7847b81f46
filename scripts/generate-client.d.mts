// Types of scripts/generate-client.mjs for the tests that import it (test/client/typed-client.test.ts).
export declare const CLIENT_DOCUMENT: string;
export declare const CLIENT_SCHEMA: string;
export declare function merchantDocument(full: Record<string, any>): Record<string, any>;
export declare function documentText(doc: Record<string, any>): string;
export declare function schemaText(doc: Record<string, any>): Promise<string>;
export declare function serviceDocument(): Promise<Record<string, any>>;
export declare function generateClient(options?: { check?: boolean }): Promise<string[]>;
