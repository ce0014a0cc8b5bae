// The pipeline configuration both pipeline benchmarks use: a schema, a Stripe signature and a small script.
export const SECRET = 'whsec_bench_pipeline';
export const PIPELINE_INPUT = {
    urlCount: 1,
    jsonSchema: {
        type: 'object',
        required: ['id', 'type', 'data'],
        properties: { id: { type: 'string', pattern: '^evt_' }, type: { type: 'string' }, data: { type: 'object', required: ['object'] } },
    },
    signatureVerification: { provider: 'stripe', tolerance: 3600 },
    signatureVerificationSecret: SECRET,
    customScript: "if (event.body.type === 'invoice.paid') { event.statusCode = HTTP_STATUS.ACCEPTED; event.tag = event.body.data.object.metadata.order; }",
};
