export declare const PROJECT_ROOT: string;
export declare const BUNDLE_DIR: string;
export declare const MANIFEST: string;
export declare function sourcesHash(inputs: string[], root?: string): string;
export declare function currentBundle(dir?: string, root?: string): string | undefined;
