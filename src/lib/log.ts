/** A line-oriented logger; tests pass a silent one. */
export interface Logger {
    info(message: string, data?: Record<string, unknown>): void;
    warn(message: string, data?: Record<string, unknown>): void;
    error(message: string, data?: Record<string, unknown>): void;
}

const line = (level: string, message: string, data?: Record<string, unknown>): string =>
    `${new Date().toISOString()} ${level} ${message}${data ? ` ${JSON.stringify(data)}` : ''}\n`;

/** Writes to stdout/stderr. */
export const consoleLogger: Logger = {
    info: (m, d) => process.stdout.write(line('INFO ', m, d)),
    warn: (m, d) => process.stderr.write(line('WARN ', m, d)),
    error: (m, d) => process.stderr.write(line('ERROR', m, d)),
};

/** Discards everything. */
export const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
