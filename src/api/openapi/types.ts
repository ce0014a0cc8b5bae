// The parts of an OpenAPI 3.0 document that src/api/openapi writes. A schema is any object: the API's
// shapes (src/api/*.ts) are `as const` JSON Schema, translated for OpenAPI 3.0 when the document is built.

/** A schema: one of the API's shapes, or an inline one. */
export type SchemaObject = object;

/** A body of one media type. */
export interface MediaType {
    schema: SchemaObject;
    example?: unknown;
}

/** A response header. */
export interface Header {
    description: string;
    schema: SchemaObject;
}

/** A path, query or header parameter. */
export interface Parameter {
    name: string;
    in: 'path' | 'query' | 'header';
    required: boolean;
    description: string;
    schema: SchemaObject;
    example?: unknown;
    allowEmptyValue?: boolean;
}

/** One answer of an operation. */
export interface Response {
    description: string;
    content?: Record<string, MediaType>;
    headers?: Record<string, Header>;
}

/** The body an operation takes. */
export interface RequestBody {
    required: boolean;
    description?: string;
    content: Record<string, MediaType>;
}

/** One method of a path. */
export interface Operation {
    tags: string[];
    operationId: string;
    summary: string;
    description?: string;
    /** `[]`: no authentication, whatever the document's default. */
    security?: Record<string, string[]>[];
    parameters?: Parameter[];
    requestBody?: RequestBody;
    responses: Record<string, Response>;
}

/** A path and its methods. */
export interface PathItem {
    summary?: string;
    description?: string;
    parameters?: Parameter[];
    get?: Operation;
    post?: Operation;
    put?: Operation;
    patch?: Operation;
    delete?: Operation;
    head?: Operation;
    options?: Operation;
}

/** Paths by their template (`/logs/{logId}`). */
export type PathItems = Record<string, PathItem>;
