import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a sibling worker module. Built, it is the .js file beside the caller. From source (tests,
 * benches under tsx) the worker first registers tsx itself: loader hooks do not follow workers on Node 20.
 */
export function startSiblingWorker(base: string, name: string, options: WorkerOptions = {}): Worker {
    // Process-wide flags such as --no-node-snapshot are refused by workers.
    const execArgv = process.execArgv.filter((flag) => flag !== '--no-node-snapshot');
    if (!base.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, base), { ...options, execArgv });
    const target = new URL(`./${name}.ts`, base).href;
    const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(target)}); });`;
    return new Worker(boot, { ...options, eval: true, execArgv: execArgv.filter((f) => !f.includes('tsx') && f !== '--import') });
}
