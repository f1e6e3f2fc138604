// run.mjs - runs the browser tests (meson: suite 'browser'). Installs the
// pinned devDependencies (playwright-core, axe-core) with `npm ci` when
// node_modules lacks one, checks
// for Debian's chromium, then runs every *.test.mjs here with node's test
// runner, whose summary ends the output.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const chromium = process.env.CHESS_CHROMIUM || '/usr/bin/chromium';
const server = process.env.CHESS_SERVER;

function installedVersion(name) {
    try {
        return JSON.parse(readFileSync(join(here, 'node_modules', name,
            'package.json'), 'utf8')).version;
    } catch {
        return null;
    }
}

// playwright-core, and axe-core for the accessibility checks
const wanted = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'))
    .devDependencies;
const stale = Object.keys(wanted).filter((name) =>
    installedVersion(name) !== wanted[name]);
if (stale.length) {
    console.log(`run.mjs: installing ${stale.map((n) =>
        `${n} ${wanted[n]}`).join(', ')} (npm ci)`);
    const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund'],
                          { cwd: here, stdio: 'inherit' });
    if (npm.status !== 0) {
        console.error('run.mjs: npm ci failed');
        process.exit(1);
    }
}
if (!existsSync(chromium)) {
    console.error(`run.mjs: no chromium at ${chromium}; install Debian's ` +
                  'chromium (deploy/deps.sh test)');
    process.exit(1);
}
if (server && !existsSync(server)) {
    console.error(`run.mjs: no chess-server at ${server}`);
    process.exit(1);
}

const files = readdirSync(here).filter((f) => f.endsWith('.test.mjs'))
    .sort().map((f) => join(here, f));
const [major, minor] = process.versions.node.split('.').map(Number);
const args = ['--test'];
// Type web/'s modules by the package.json above them (the repository's),
// never by Node 20+'s guess from their syntax: Node 18 (Debian 12's) does
// not guess, so a client module it would load as CommonJS fails here too.
if (process.allowedNodeEnvironmentFlags.has('--experimental-detect-module'))
    args.push('--no-experimental-detect-module');
// One file at a time: each starts a server and a browser, and the machines
// this runs on have two cores. The flag is in Node 18.19+ (Debian 12 has
// 18.20) and 20.10+; older ones run max(cores - 1, 1) files at once.
if (major > 20 || (major === 20 && minor >= 10) || (major === 18 && minor >= 19))
    args.push('--test-concurrency=1');
const r = spawnSync(process.execPath, [...args, ...files],
                    { cwd: here, stdio: 'inherit', env: process.env });
process.exit(r.status === null ? 1 : r.status);
