import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a sibling worker module. Built, it is the .js file beside the caller. From source (tests,
 * benches under tsx) the worker first registers tsx itself: loader hooks do not follow workers on
 * Node 20. Workers get none of the parent's flags: process-wide and V8 flags (--no-node-snapshot,
 * --max-old-space-size, ...) are refused by workers, and these workers need none.
 */
export function startSiblingWorker(base: string, name: string, options: WorkerOptions = {}): Worker {
    if (!base.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, base), { ...options, execArgv: [] });
    const target = new URL(`./${name}.ts`, base).href;
    const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(target)}); });`;
    return new Worker(boot, { ...options, eval: true, execArgv: [] });
}
