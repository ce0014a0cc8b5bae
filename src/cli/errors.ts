// The two ways the command stops on purpose; main.ts turns each into its exit code and one line.

/** Bad usage: a missing or invalid argument, an unknown option, a filter the service refuses. Exit 2. */
export class UsageError extends Error {
    override readonly name = 'UsageError';
}

/** The command cannot go on: a refused key, an unknown webhook or event, a service it cannot reach at start. Exit 1. */
export class FatalError extends Error {
    override readonly name = 'FatalError';
}

/** A short description of anything thrown: its message, or its text. */
export function describe(error: unknown): string {
    if (error instanceof Error) {
        const code = (error as { code?: unknown }).code;
        return typeof code === 'string' && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
    }
    return String(error);
}
