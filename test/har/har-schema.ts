// The fields HAR 1.2 marks as required (http://www.softwareishard.com/blog/har-12-spec/), as a JSON
// Schema for ajv. Optional fields are left open; custom fields must start with `_`.

const nameValue = { type: 'object', required: ['name', 'value'], properties: { name: { type: 'string' }, value: { type: 'string' } } };
const cookie = nameValue;
const num = { type: 'number' };
const str = { type: 'string' };

/** JSON Schema of a HAR 1.2 document's required structure. */
export const HAR_SCHEMA = {
    type: 'object',
    required: ['log'],
    properties: {
        log: {
            type: 'object',
            required: ['version', 'creator', 'entries'],
            properties: {
                version: { const: '1.2' },
                creator: { type: 'object', required: ['name', 'version'], properties: { name: str, version: str } },
                entries: {
                    type: 'array',
                    items: {
                        type: 'object',
                        required: ['startedDateTime', 'time', 'request', 'response', 'cache', 'timings'],
                        properties: {
                            startedDateTime: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T' },
                            time: num,
                            request: {
                                type: 'object',
                                required: ['method', 'url', 'httpVersion', 'cookies', 'headers', 'queryString', 'headersSize', 'bodySize'],
                                properties: {
                                    method: str,
                                    url: { type: 'string', pattern: '^https?://' },
                                    httpVersion: str,
                                    cookies: { type: 'array', items: cookie },
                                    headers: { type: 'array', items: nameValue },
                                    queryString: { type: 'array', items: nameValue },
                                    postData: { type: 'object', required: ['mimeType'], properties: { mimeType: str, text: str } },
                                    headersSize: num,
                                    bodySize: num,
                                },
                            },
                            response: {
                                type: 'object',
                                required: ['status', 'statusText', 'httpVersion', 'cookies', 'headers', 'content', 'redirectURL', 'headersSize', 'bodySize'],
                                properties: {
                                    status: num,
                                    statusText: str,
                                    httpVersion: str,
                                    cookies: { type: 'array', items: cookie },
                                    headers: { type: 'array', items: nameValue },
                                    content: { type: 'object', required: ['size', 'mimeType'], properties: { size: num, mimeType: str, text: str } },
                                    redirectURL: str,
                                    headersSize: num,
                                    bodySize: num,
                                },
                            },
                            cache: { type: 'object' },
                            timings: { type: 'object', required: ['send', 'wait', 'receive'], properties: { send: num, wait: num, receive: num } },
                        },
                        patternProperties: { '^_': {} },
                        additionalProperties: false,
                    },
                },
            },
        },
    },
} as const;
