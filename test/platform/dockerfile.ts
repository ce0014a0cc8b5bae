import { readFileSync } from 'node:fs';

// A Docker build is not possible here, so tests read the Dockerfile as text: its stages, what the
// runtime stage copies from the builder, and its start command.

const root = new URL('../../', import.meta.url);

/** The Dockerfile's instructions (continuation lines joined, comments dropped), split into stages at each FROM. */
export function dockerStages(text = readFileSync(new URL('Dockerfile', root), 'utf8')): string[][] {
    return text
        .replace(/\\\n/g, ' ')
        .split('\n')
        .filter((l) => l.trim() && !l.trim().startsWith('#'))
        .reduce<string[][]>((acc, line) => (/^FROM /i.test(line) ? [...acc, [line]] : (acc[acc.length - 1]!.push(line), acc)), []);
}

/** The app paths the last stage copies from the builder, e.g. `dist`, `node_modules`. */
export function runtimeCopies(stages = dockerStages()): string[] {
    return stages[stages.length - 1]!.flatMap((l) => {
        const m = /^COPY --from=builder .*\/usr\/src\/app\/(\S+) /.exec(l);
        return m ? [m[1]!] : [];
    });
}

/** The last stage's CMD in exec form, e.g. `["sh", "-c", "…"]`. */
export function runtimeCommand(stages = dockerStages()): string[] {
    const cmd = stages[stages.length - 1]!.filter((l) => /^CMD /.test(l)).at(-1);
    if (!cmd) throw new Error('the Dockerfile has no CMD in its last stage');
    return JSON.parse(cmd.slice(4)) as string[];
}

/** The last stage's `ENV name=value` settings, e.g. `{ NODE_ENV: 'production' }`. */
export function runtimeEnv(stages = dockerStages()): Record<string, string> {
    const env: Record<string, string> = {};
    for (const line of stages[stages.length - 1]!) {
        const m = /^ENV (\w+)=(\S*)$/.exec(line.trim());
        if (m) env[m[1]!] = m[2]!;
    }
    return env;
}
