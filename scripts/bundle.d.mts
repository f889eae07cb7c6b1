export declare function bundle(outdir?: string): Promise<void>;
