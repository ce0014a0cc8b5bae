// Reads a package-lock.json (v2/v3) the way `npm ci` would on another machine: a package whose
// optional dependencies are per-platform binaries (rollup, esbuild, …) must have every one of them
// in the lock, and at least one must install on the target platform. npm 10's `npm ci` in the
// Alpine image does not fail when the musl binary is missing; it installs none and the build breaks.

/** The platform a lock must install on, as npm matches package `os`/`cpu`/`libc` fields. */
export interface Platform {
    os: string;
    cpu: string;
    libc: 'glibc' | 'musl';
}

interface LockEntry {
    version?: string;
    optional?: boolean;
    optionalDependencies?: Record<string, string>;
    os?: string[];
    cpu?: string[];
    libc?: string[];
}

/** npm's rule for a field like `os: ["linux", "!win32"]`: no list, or the value listed and not negated. */
const allows = (list: string[] | undefined, value: string): boolean =>
    !list || list.length === 0 || (!list.includes(`!${value}`) && (list.includes(value) || list.every((v) => v.startsWith('!'))));

/** True when npm would install this entry on the platform. */
export const installsOn = (entry: LockEntry, p: Platform): boolean => allows(entry.os, p.os) && allows(entry.cpu, p.cpu) && allows(entry.libc, p.libc);

/** The lock path a dependency of `from` resolves to (node_modules lookup walking up), or undefined. */
const resolve = (packages: Record<string, LockEntry>, from: string, name: string): string | undefined => {
    let dir = from;
    for (;;) {
        const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
        if (candidate in packages) return candidate;
        if (!dir) return undefined;
        const cut = dir.lastIndexOf('/node_modules/');
        dir = cut === -1 ? '' : dir.slice(0, cut);
    }
};

/** What would keep the lock from installing the platform's binaries; empty when it installs. */
export function lockProblems(lockText: string, target: Platform): string[] {
    const lock = JSON.parse(lockText) as { packages?: Record<string, LockEntry> };
    const packages = lock.packages ?? {};
    const problems: string[] = [];
    for (const [path, entry] of Object.entries(packages)) {
        const optional = Object.keys(entry.optionalDependencies ?? {});
        const members = optional.map((name) => ({ name, at: resolve(packages, path, name) }));
        const found = members.flatMap((m) => (m.at ? [packages[m.at]!] : []));
        const owner = path || '(root)';
        // npm ci stops on these ("Missing: … from lock file"); npm 10 skipped them silently.
        for (const m of members) if (!m.at) problems.push(`${owner}: ${m.name} is missing from the lock`);
        // A family of binaries: some optional sibling is built for Linux. fsevents alone (macOS) is not one.
        if (!found.some((e) => e.os?.includes('linux'))) continue;
        if (!found.some((e) => installsOn(e, target))) problems.push(`${owner}: no optional binary installs on ${target.os}-${target.cpu}-${target.libc}`);
    }
    return problems;
}
