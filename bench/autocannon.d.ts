// The part of autocannon's API the benches use (the package ships no types).
declare module 'autocannon' {
    interface Histogram {
        average: number;
        p50: number;
        p90: number;
        p99: number;
        max: number;
    }
    interface Options {
        url: string;
        method?: string;
        connections?: number;
        duration?: number;
        /** Stop after this many requests (instead of after `duration`). */
        amount?: number;
        headers?: Record<string, string>;
        body?: string;
    }
    interface Result {
        latency: Histogram;
        requests: Histogram & { total: number };
        '2xx': number;
        non2xx: number;
        errors: number;
        timeouts: number;
    }
    function autocannon(options: Options): Promise<Result>;
    export default autocannon;
}
