// The ingest benchmarks' request body: a Stripe-like invoice.paid event padded to about 1 KB of JSON.
const event = {
    id: 'evt_1QxYz2AbCdEfGhIj',
    type: 'invoice.paid',
    created: 1732262400,
    livemode: false,
    data: {
        object: {
            id: 'in_1QxYz2AbCdEfGhIj',
            customer: 'cus_R4nD0mCu5t0m3r',
            amount_paid: 4200,
            currency: 'usd',
            lines: Array.from({ length: 6 }, (_, i) => ({ id: `il_${i}`, description: `Seat license ${i}`, amount: 700, quantity: 1 })),
            metadata: { order: 'A-10042', region: 'eu-west' },
        },
    },
};
const unpadded = JSON.stringify(event);
export const BODY = JSON.stringify({ ...event, pad: 'x'.repeat(Math.max(0, 1024 - unpadded.length - 10)) });
