/** Signature verification settings (see DECISIONS.md). */
export interface SignatureConfig {
    provider: 'stripe' | 'shopify' | 'github' | 'slack' | 'custom';
    headerName?: string;
    algorithm?: 'sha1' | 'sha256' | 'sha512';
    encoding?: 'hex' | 'base64';
    timestampKey?: string;
    tolerance?: number;
    secret?: string;
}

/** Run input after validation and defaults: the fields of INPUT_SCHEMA.json. */
export interface InputConfig {
    urlCount: number;
    retentionHours: number;
    /** Active webhooks at most; POST /webhooks past it is refused (409). */
    maxWebhooks: number;
    authKey?: string;
    allowedIps: string[];
    rateLimitPerMinute: number;
    maskSensitiveData: boolean;
    redactBodyPaths: string[];
    defaultResponseCode: number;
    defaultResponseBody: string;
    defaultResponseHeaders: Record<string, string>;
    responseDelayMs: number;
    maxPayloadSize: number;
    enableJSONParsing: boolean;
    jsonSchema?: Record<string, unknown>;
    signatureVerification?: SignatureConfig;
    signatureVerificationSecret?: string;
    customScript?: string;
    forwardUrl?: string;
    replayMaxRetries: number;
    replayTimeoutMs: number;
    /** PostgreSQL connection string shared by several instances (secret; DATABASE_URL wins over it). */
    databaseUrl?: string;
}
